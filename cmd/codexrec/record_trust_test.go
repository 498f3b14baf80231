package main_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Two sessions recording to the same -o at once: the first to finish publishes
// there, the other is kept under a free name beside it, says where, and exits 2.
// Neither replaces the other.
func TestRecordConcurrentSameOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	a := startSession(t, "", nil, "record", "-o", out, "--", "cat")
	b := startSession(t, "", nil, "record", "-o", out, "--", "cat")
	roundTrip(t, a.stdin, a.stdout, `{"method":"from-a"}`+"\n")
	roundTrip(t, b.stdin, b.stdout, `{"method":"from-b"}`+"\n")
	if code := a.finish(); code != 0 {
		t.Fatalf("first session: exit %d: %s", code, a.stderr)
	}
	code := b.finish()
	kept := filepath.Join(filepath.Dir(out), "s.2.jsonl")
	if code != 2 || !strings.Contains(b.stderr.String(), "kept at "+kept) {
		t.Fatalf("second session: exit %d, stderr %q; want 2 naming %s", code, b.stderr, kept)
	}
	for path, method := range map[string]string{out: "from-a", kept: "from-b"} {
		rec := readRecording(t, path)
		if f := rec.Frames(wire.ClientToServer); len(f) != 1 || f[0].Msg.Method != method {
			t.Errorf("%s holds %v, want the session that sent %s", path, f, method)
		}
	}
}

// Targets that cannot take a recording are refused before the server starts, with
// the real problem named (never the hidden temporary file).
func TestRecordTargetChecks(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"directory with --force", []string{"--force", "-o", sub}, sub + ": only a regular file or a symbolic link is replaced: it is a directory (not even with --force)"},
		{"directory", []string{"-o", sub}, "it is a directory"},
		{"missing directory", []string{"-o", filepath.Join(dir, "nope", "s.jsonl")}, "directory " + filepath.Join(dir, "nope") + " does not exist"},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct {
			name string
			args []string
			want string
		}{"device with --force", []string{"--force", "-o", "/dev/null"}, "/dev/null: only a regular file or a symbolic link is replaced: it is a device (not even with --force)"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := filepath.Join(dir, "server-ran")
			args := append(append([]string{"record"}, tt.args...), "--", "sh", "-c", "touch "+marker)
			r := runCodexrec(t, "", strings.NewReader(""), args...)
			if r.code != 2 || !strings.Contains(string(r.stderr), tt.want) || strings.Contains(string(r.stderr), ".tmp") {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the server was started")
			}
		})
	}
	if fi, err := os.Stat("/dev/null"); runtime.GOOS == "linux" && (err != nil || fi.Mode()&os.ModeDevice == 0) {
		t.Errorf("/dev/null is no longer a device: %v %v", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(sub); len(ents) != 0 {
		t.Errorf("files left in the directory target: %v", ents)
	}
}

// A write error during the session (here a real one: the file size limit of
// setrlimit(RLIMIT_FSIZE), which the kernel enforces as it does a full disk) keeps
// what was written: forwarding goes on untouched, the recording is published with
// every entry written whole (with a trailer when it still fits, else cut at a line),
// and record exits 2 saying where it is.
func TestRecordWriteError(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs ulimit -f")
	}
	out := filepath.Join(t.TempDir(), "s.jsonl")
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, `{"method":"n","params":{"i":%d,"pad":"%s"}}`+"\n", i, strings.Repeat("x", i%300))
	}
	// 64 blocks (32 or 64 KiB, as the shell counts them) of a recording of ~700 KB.
	cmd := exec.Command("sh", "-c", `ulimit -f 64 && exec "$@"`, "sh", codexrecBin, "record", "--no-validate", "-o", out, "--", "cat")
	cmd.Stdin = strings.NewReader(in.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCodeOf(cmd.Run())
	if stdout.String() != in.String() {
		t.Fatalf("the client got %d bytes, want %d: a write error must not touch forwarding", stdout.Len(), in.Len())
	}
	if code != 2 || !strings.Contains(stderr.String(), "recording cut short by a write error") || !strings.Contains(stderr.String(), "is at "+out) {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	rec, err := recorder.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Problems) != 0 {
		t.Errorf("problems %v", rec.Problems)
	}
	frames := rec.Frames()
	if len(frames) == 0 || len(frames) >= 4000 {
		t.Fatalf("%d frames kept", len(frames))
	}
	var c2s []byte
	for _, f := range rec.Frames(wire.ClientToServer) {
		c2s = append(c2s, f.Line...)
	}
	if !strings.HasPrefix(in.String(), string(c2s)) {
		t.Error("the kept c2s frames are not a prefix of what the client sent")
	}
	if tr := rec.Trailer; tr != nil {
		if tr.Ended != recorder.EndError || !strings.Contains(tr.Error, "file too large") || tr.Frames["c2s"]+tr.Frames["s2c"] != int64(len(frames)) {
			t.Errorf("trailer %+v for %d frames", tr, len(frames))
		}
	} else if !strings.Contains(stderr.String(), "without a trailer") {
		t.Errorf("no trailer, and stderr does not say so: %s", stderr.String())
	}
}

// A client that stops reading: the recording still holds every frame (the server is
// drained), marks those it never got as undelivered, the trailer says so, and
// record exits 2.
func TestRecordBrokenClientStdout(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	cmd := exec.Command(codexrecBin, "record", "--no-validate", "-o", out, "--", "cat")
	stdin, _ := cmd.StdinPipe()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	first := `{"id":1,"method":"initialize"}` + "\n"
	io.WriteString(stdin, first)
	got := make([]byte, len(first))
	if _, err := io.ReadFull(pr, got); err != nil || string(got) != first {
		t.Fatalf("echo %q %v", got, err)
	}
	pr.Close() // the client's stdout breaks
	for i := range 20 {
		fmt.Fprintf(stdin, `{"method":"after","params":{"i":%d}}`+"\n", i)
	}
	stdin.Close()
	code := exitCodeOf(cmd.Wait())
	if code != 2 || !strings.Contains(stderr.String(), "writing to the client failed") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	rec := readRecording(t, out)
	tr := rec.Trailer
	s2c := rec.Frames(wire.ServerToClient)
	if len(rec.Frames(wire.ClientToServer)) != 21 || len(s2c) != 21 {
		t.Fatalf("recorded %d c2s and %d s2c frames, want 21 each (the server is drained)", len(rec.Frames(wire.ClientToServer)), len(s2c))
	}
	if tr.ClientError == "" || tr.LastDelivered != s2c[0].Seq || tr.Undelivered != 20 || tr.Ended != recorder.EndClientEOF {
		t.Errorf("trailer %+v, first s2c seq %d", tr, s2c[0].Seq)
	}
	for i, f := range s2c {
		if f.Undelivered != (i > 0) {
			t.Errorf("s2c frame %d (seq %d): undelivered %v", i, f.Seq, f.Undelivered)
		}
	}
}

// A recording cut mid-line is read by every reader: the entries before the cut are
// served, the cut is a warning (a finding of check), never "not a JSON object".
func TestTornFileEveryReader(t *testing.T) {
	b, err := os.ReadFile(*checkFixture)
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.LastIndex(b, []byte(`{"type":"frame"`)) + 40
	dir := t.TempDir()
	torn := filepath.Join(dir, "torn.jsonl")
	os.WriteFile(torn, b[:cut], 0o600)
	tests := []struct {
		args  []string
		codes []int
		out   string // in stdout or stderr
	}{
		{[]string{"show", torn}, []int{0}, "truncated"},
		{[]string{"show", "--follow", torn}, []int{0}, "truncated"},
		{[]string{"summary", torn}, []int{0}, "truncated"},
		{[]string{"check", torn}, []int{0, 1}, "truncated"},
		{[]string{"validate", torn}, []int{0, 1}, "truncated"},
		{[]string{"diff", torn, *checkFixture}, []int{0, 1}, "truncated"},
		{[]string{"view", "-o", filepath.Join(dir, "v.html"), torn}, []int{0}, "truncated"},
		{[]string{"sanitize", "-o", filepath.Join(dir, "s.jsonl"), torn}, []int{0}, "truncated"},
		{[]string{"replay", torn}, []int{0, 1}, "truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			r := runCodexrec(t, "", strings.NewReader(""), tt.args...)
			all := string(r.stdout) + string(r.stderr)
			ok := false
			for _, c := range tt.codes {
				ok = ok || r.code == c
			}
			if !ok || strings.Contains(all, "not a JSON object") || !strings.Contains(all, tt.out) {
				t.Fatalf("exit %d (want one of %v), output:\n%.2000s", r.code, tt.codes, all)
			}
		})
	}
}

// Structural problems (a frame whose seq goes backwards after the trailer) are a
// finding of check and a one-line warning of every other reader, never silent.
func TestStructureProblemsEveryReader(t *testing.T) {
	b, err := os.ReadFile(*checkFixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	b = append(b, `{"type":"frame","seq":1,"t":9,"dir":"stderr","raw":"late"}`+"\n"...)
	os.WriteFile(bad, b, 0o600)
	r := runCodexrec(t, "", nil, "check", bad)
	if r.code != 1 || !strings.Contains(string(r.stdout), "structure") || !strings.Contains(string(r.stdout), "seq-order") {
		t.Errorf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"show", bad}, {"summary", bad}, {"validate", bad}, {"diff", bad, *checkFixture},
		{"view", "-o", filepath.Join(dir, "v.html"), bad}, {"sanitize", "-o", filepath.Join(dir, "s.jsonl"), bad},
		{"replay", bad},
	} {
		r := runCodexrec(t, "", nil, args...)
		warnings := 0
		for _, l := range strings.Split(string(r.stderr), "\n") {
			if strings.Contains(l, "warning: recording "+bad+": line") {
				warnings++
			}
		}
		if r.code == 2 || warnings != 1 {
			t.Errorf("%s: exit %d, %d warning lines, want 1; stderr:\n%s", args[0], r.code, warnings, r.stderr)
		}
	}
}
