package main_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/codextest"
)

var fixtureRoot = filepath.Join("..", "..", "fixtures", "hermetic")

// TestShowFixtures runs the built binary over a committed fixture of each version and
// compares its output with the view package's golden timelines (the view package
// checks every fixture; here the command: file opening, flags, colour off on a pipe).
func TestShowFixtures(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join(fixtureRoot, "*", "resume.jsonl"))
	if len(matches) == 0 {
		// committed with the repository: never missing
		t.Fatalf("no fixtures under %s", fixtureRoot)
	}
	for _, m := range matches {
		rel, _ := filepath.Rel(fixtureRoot, m)
		t.Run(rel, func(t *testing.T) {
			res := runCodexrec(t, fixtureRoot, nil, "show", rel)
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			golden := filepath.Join("..", "..", "view", "testdata", "show", strings.TrimSuffix(rel, ".jsonl")+".txt")
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(res.stdout, want) {
				t.Errorf("codexrec show %s differs from %s", rel, golden)
			}
		})
	}
}

func TestShowFlagsAndErrors(t *testing.T) {
	rel := filepath.Join("0.171.0", "approval-accept.jsonl")
	if _, err := os.Stat(filepath.Join(fixtureRoot, rel)); err != nil {
		// committed with the repository: never missing
		t.Fatal(err)
	}
	// Flags may follow the file.
	res := runCodexrec(t, fixtureRoot, nil, "show", rel, "--method", "*requestApproval", "--raw")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if n := strings.Count(string(res.stdout), `requestApproval [0]`); n != 2 || !strings.Contains(string(res.stdout), `{"id":0,"result":{"decision":"accept"}`) {
		t.Errorf("show --method *requestApproval --raw:\n%s", res.stdout)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"show"}, 2, "want exactly one recording"},
		{[]string{"show", "no-such.jsonl"}, 2, "no-such.jsonl"},
		{[]string{"show", rel, "--no-such-flag"}, 2, "flag provided but not defined"},
		{[]string{"show", "../../go.mod"}, 2, "not a recording: first line is not a header"},
	} {
		res := runCodexrec(t, fixtureRoot, nil, tc.args...)
		if res.code != tc.code || !strings.Contains(string(res.stderr), tc.want) {
			t.Errorf("codexrec %v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, res.code, res.stderr, tc.code, tc.want)
		}
	}
}

// TestShowFollow watches a real session while codexrec record is still writing it:
// show --follow must print the thread/start answer before the session ends (when only
// the writer's temporary file exists), then stop by itself once the trailer is written.
// Second case: record --force over an old recording; show must follow the new one.
func TestShowFollow(t *testing.T) {
	bin := codextest.Binary(t, "0.171.0")
	t.Run("new", func(t *testing.T) { followSession(t, bin, false) })
	t.Run("over-old", func(t *testing.T) { followSession(t, bin, true) })
}

func followSession(t *testing.T, bin string, overOld bool) {
	env, _ := codextest.Env(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "live.jsonl")
	args := []string{"record", "--no-sanitize", "-o", out}
	if overOld {
		old, err := os.ReadFile(filepath.Join(fixtureRoot, "0.171.0", "plain.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, old, 0o600); err != nil {
			t.Fatal(err)
		}
		hourAgo := time.Now().Add(-time.Hour)
		os.Chtimes(out, hourAgo, hourAgo)
		args = append(args, "--force")
	}
	show := exec.Command(codexrecBin, "show", "--follow", "--poll", "20ms", out)
	showOut, _ := show.StdoutPipe()
	showErrPipe, _ := show.StderrPipe()
	var showErr bytes.Buffer // read only after errDone
	errDone := make(chan struct{})
	drainErr := func() {
		go func() { io.Copy(&showErr, showErrPipe); close(errDone) }()
	}

	rec := exec.Command(codexrecBin, append(append(args, "--", bin), codextest.FakeProviderArgs("http://127.0.0.1:9/v1")...)...)
	rec.Dir, rec.Env = dir, env
	stdin, _ := rec.StdinPipe()
	recOut, _ := rec.StdoutPipe()
	var recErr bytes.Buffer
	rec.Stderr = &recErr
	if !overOld {
		if err := show.Start(); err != nil { // before the recording exists: it waits
			t.Fatal(err)
		}
		defer show.Process.Kill()
		line := readLine(showErrPipe)
		if !strings.Contains(line, "waiting for") {
			t.Fatalf("show started before the recording and did not say it was waiting: %q", line)
		}
		drainErr()
	}
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	defer rec.Process.Kill()
	kill := time.AfterFunc(60*time.Second, func() { rec.Process.Kill(); show.Process.Kill() })
	defer kill.Stop()
	if overOld {
		// Start once the new recording's temporary file is there beside the old one.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if m, _ := filepath.Glob(filepath.Join(dir, ".live.jsonl.*.tmp")); len(m) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("record did not create its temporary file")
			}
		}
		if err := show.Start(); err != nil {
			t.Fatal(err)
		}
		defer show.Process.Kill()
		drainErr()
	}

	io.WriteString(stdin, `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"codexrec-test","title":"t","version":"1"}}}`+"\n"+
		`{"method":"initialized"}`+"\n"+`{"id":2,"method":"thread/start","params":{}}`+"\n")
	go io.Copy(io.Discard, recOut)

	lines := bufio.NewScanner(showOut)
	var got strings.Builder
	for lines.Scan() {
		got.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), "thread/start [2] ↩#") {
			break
		}
	}
	if !strings.Contains(got.String(), "thread/start [2] ↩#") || !strings.Contains(got.String(), "codexrec-test 1") {
		t.Fatalf("show --follow ended before the live session's thread/start answer:\n%s", got.String())
	}
	if fi, err := os.Stat(out); err == nil && (!overOld || time.Since(fi.ModTime()) < time.Minute) {
		t.Fatal("the recording was already published: show did not follow a live session")
	}

	stdin.Close() // the session ends; record writes the trailer and publishes
	if err := rec.Wait(); err != nil {
		t.Fatalf("record: %v\n%s", err, recErr.String())
	}
	for lines.Scan() {
		got.WriteString(lines.Text() + "\n")
	}
	<-errDone
	if err := show.Wait(); err != nil {
		t.Fatalf("show --follow: %v; stderr: %s", err, showErr.String())
	}
	// What was followed live is what show prints from the finished file.
	final := runCodexrec(t, "", nil, "show", out)
	if got.String() != string(final.stdout) {
		t.Errorf("followed output differs from the finished file's:\n--- followed\n%s\n--- finished\n%s", got.String(), final.stdout)
	}
}

// TestShowColourOnTerminal runs show under a pseudo-terminal (util-linux script):
// colour escapes there, none on a pipe (TestShowFixtures), none with NO_COLOR.
func TestShowColourOnTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		codextest.Missing(t, "no script(1) to provide a terminal")
	}
	rel := filepath.Join("0.171.0", "plain.jsonl")
	if _, err := os.Stat(filepath.Join(fixtureRoot, rel)); err != nil {
		// committed with the repository: never missing
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env    string
		colour bool
	}{{"", true}, {"NO_COLOR=1", false}} {
		cmd := exec.Command(script, "-qec", codexrecBin+" show --method initialize "+rel, "/dev/null")
		cmd.Dir = fixtureRoot
		cmd.Env = append(os.Environ(), "TERM=xterm")
		if tc.env != "" {
			cmd.Env = append(cmd.Env, tc.env)
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", cmd.Args, err)
		}
		if got := strings.Contains(string(out), "\x1b[36m→ request"); got != tc.colour {
			t.Errorf("show on a terminal with %q: colour %v, want %v:\n%q", tc.env, got, tc.colour, out)
		}
	}
}

// readLine reads one line byte by byte, so nothing after it is consumed.
func readLine(r io.Reader) string {
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		if n == 1 {
			b = append(b, one[0])
			if one[0] == '\n' {
				return string(b)
			}
		}
		if err != nil {
			return string(b)
		}
	}
}
