package main_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

var (
	faultOnce sync.Once
	faultPath string
	faultErr  error
)

// faultserverBin builds internal/testing/faultserver, the fake server for the fault cases the
// real codex app-server cannot produce on demand.
func faultserverBin(t *testing.T) string {
	t.Helper()
	faultOnce.Do(func() {
		faultPath = filepath.Join(filepath.Dir(codexrecBin), "faultserver")
		out, err := exec.Command("go", "build", "-o", faultPath, "github.com/codexrec/codexrec/internal/testing/faultserver").CombinedOutput()
		if err != nil {
			faultErr = fmt.Errorf("building faultserver: %v\n%s", err, out)
		}
	})
	if faultErr != nil {
		t.Fatal(faultErr)
	}
	return faultPath
}

// frameBytes concatenates the exact bytes of the frames of dir.
func frameBytes(rec *recorder.Recording, dir wire.Direction) []byte {
	var b []byte
	for _, e := range rec.Frames(dir) {
		b = append(b, e.Line...)
	}
	return b
}

func readRecording(t *testing.T, path string) *recorder.Recording {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("recording not published: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("recording mode %v, want 0600", fi.Mode().Perm())
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Trailer == nil {
		t.Fatal("recording has no trailer")
	}
	return rec
}

func TestRecordPassesEveryByte(t *testing.T) {
	srv := faultserverBin(t)
	in := "{\"id\":1,\"method\":\"initialize\",\"params\":{}}\n" +
		"\n" + // blank
		"not json\n" +
		"\xff\xfe invalid utf-8\n" +
		"[{\"id\":2,\"method\":\"batch\"}]\n" +
		"  {\"method\":\"padded\"}  \r\n" +
		"{\"id\":\"1\",\"method\":\"x\"}\n" +
		"{\"method\":\"no newline at the end\"}"
	out := filepath.Join(t.TempDir(), "s.jsonl")
	r := runCodexrec(t, "", strings.NewReader(in), "record", "-o", out, "--", srv, "-partial", "server tail")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if want := in + "server tail"; string(r.stdout) != want {
		t.Fatalf("client got %q\nwant %q", r.stdout, want)
	}
	rec := readRecording(t, out)
	if got := frameBytes(rec, wire.ClientToServer); string(got) != in {
		t.Errorf("c2s recorded %q", got)
	}
	if got := frameBytes(rec, wire.ServerToClient); string(got) != in+"server tail" {
		t.Errorf("s2c recorded %q", got)
	}
	frames := rec.Frames(wire.ClientToServer)
	wantKinds := []string{"request", "raw", "raw", "raw", "raw", "notification", "request", "notification"}
	for i, e := range frames {
		if e.Msg.Kind.String() != wantKinds[i] {
			t.Errorf("c2s frame %d kind %s, want %s (%q)", i, e.Msg.Kind, wantKinds[i], e.Line)
		}
	}
	if rec.Trailer.Ended != recorder.EndClientEOF || rec.Trailer.ExitCode != 0 {
		t.Errorf("trailer %+v", rec.Trailer)
	}
	// Each response is paired with the request of the other direction: the echoed
	// request "1" reaches the client as a request, so nothing is a response here.
	last := rec.Frames(wire.ServerToClient)
	if e := last[len(last)-1]; wire.HasNewline(e.Line) {
		t.Errorf("final partial line recorded with a newline: %q", e.Line)
	}
}

func roundTrip(t *testing.T, stdin io.Writer, stdout *bufio.Reader, line string) {
	t.Helper()
	if _, err := io.WriteString(stdin, line); err != nil {
		t.Fatal(err)
	}
	got, err := stdout.ReadString('\n')
	if err != nil || got != line {
		t.Fatalf("echo = %q, %v; want %q", got, err, line)
	}
}

// TestRecordBackPressure: with --queue 1 the recorder (validating and sanitizing
// every frame) falls behind at once; forwarding slows down instead of dropping, and
// the client and the recording get every byte of 3000 lines, some of 300 KB (past a
// read buffer), with the buffers recycled as record does.
func TestRecordBackPressure(t *testing.T) {
	var in strings.Builder
	for i := range 3000 {
		pad := strings.Repeat("p", i%97)
		if i%500 == 499 {
			pad = strings.Repeat("long output ", 25_000)
		}
		fmt.Fprintf(&in, `{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i%d","delta":"%s"}}`+"\n", i, pad)
	}
	out := filepath.Join(t.TempDir(), "s.jsonl")
	r := runCodexrec(t, "", strings.NewReader(in.String()), "record", "--queue", "1", "-o", out, "--", "cat")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if string(r.stdout) != in.String() {
		t.Fatalf("client got %d bytes, want %d", len(r.stdout), in.Len())
	}
	rec := readRecording(t, out)
	for _, dir := range []wire.Direction{wire.ClientToServer, wire.ServerToClient} {
		if got := frameBytes(rec, dir); string(got) != in.String() {
			t.Errorf("%s recorded %d bytes, want %d", dir, len(got), in.Len())
		}
		if n := rec.Trailer.Frames[dir.String()]; n != 3000 {
			t.Errorf("trailer counts %d %s frames, want 3000", n, dir)
		}
	}
}

func TestRecordChildExitsMidStream(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	s := startSession(t, "", nil, "record", "-o", out, "--", faultserverBin(t), "-exit-after", "2", "-code", "5")
	roundTrip(t, s.stdin, s.stdout, `{"id":1,"method":"a"}`+"\n")
	roundTrip(t, s.stdin, s.stdout, `{"id":2,"method":"b"}`+"\n")
	// The client keeps stdin open: the child's exit alone ends the session.
	if code := s.wait(); code != 5 {
		t.Fatalf("exit %d, want the child's 5; stderr: %s", code, s.stderr)
	}
	s.stdin.Close()
	rec := readRecording(t, out)
	tr := rec.Trailer
	if tr.Ended != recorder.EndChildExit || tr.ExitCode != 5 || tr.Frames["c2s"] != 2 || tr.Frames["s2c"] != 2 {
		t.Errorf("trailer %+v", tr)
	}
}

func TestRecordChildKilledBySignal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	s := startSession(t, "", nil, "record", "-o", out, "--", faultserverBin(t), "-kill-after", "1", "-signal", "KILL")
	roundTrip(t, s.stdin, s.stdout, `{"method":"n"}`+"\n")
	if code := s.wait(); code != 128+9 {
		t.Fatalf("exit %d, want 137", code)
	}
	rec := readRecording(t, out)
	if tr := rec.Trailer; tr.Ended != recorder.EndChildExit || tr.ExitCode != 137 || tr.Signal != "SIGKILL" {
		t.Errorf("trailer %+v", tr)
	}
	var exit *recorder.Entry
	for i, e := range rec.Entries {
		if e.Type == recorder.TypeExit {
			exit = &rec.Entries[i]
		}
	}
	if exit == nil || exit.ExitCode != 137 || exit.Signal != "SIGKILL" {
		t.Errorf("exit entry %+v", exit)
	}
}

func TestRecordStderrFlood(t *testing.T) {
	const size = 10_000_000
	for _, noStderr := range []bool{false, true} {
		t.Run(fmt.Sprintf("no-stderr=%v", noStderr), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "s.jsonl")
			// --no-validate: the schema summary record prints on stderr at the end would
			// mix with the child's bytes this test counts.
			args := []string{"record", "-o", out, "--no-validate"}
			if noStderr {
				args = append(args, "--no-stderr")
			}
			args = append(args, "--", faultserverBin(t), "-stderr", fmt.Sprint(size))
			r := runCodexrec(t, "", strings.NewReader(`{"method":"x"}`+"\n"), args...)
			if r.code != 0 {
				t.Fatalf("exit %d", r.code)
			}
			if len(r.stderr) != size || !bytes.HasPrefix(r.stderr, []byte("faultserver: xxx")) {
				t.Fatalf("stderr passed through %d bytes, want %d", len(r.stderr), size)
			}
			rec := readRecording(t, out)
			got := frameBytes(rec, wire.Stderr)
			if noStderr {
				if len(got) != 0 {
					t.Fatalf("--no-stderr recorded %d stderr bytes", len(got))
				}
				return
			}
			if !bytes.Equal(got, r.stderr) {
				t.Fatalf("recorded stderr (%d bytes) differs from what passed through", len(got))
			}
			if n := rec.Trailer.Frames["stderr"]; n != size/100 {
				t.Errorf("stderr frames %d, want %d", n, size/100)
			}
		})
	}
}

func TestRecordClientClosesStdinEarly(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	r := runCodexrec(t, "", strings.NewReader(""), "record", "-o", out, "--", faultserverBin(t))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rec := readRecording(t, out)
	if tr := rec.Trailer; tr.Ended != recorder.EndClientEOF || len(rec.Frames()) != 0 {
		t.Errorf("trailer %+v, frames %d", tr, len(rec.Frames()))
	}
}

func TestRecordForwardsSignals(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		sig      syscall.Signal
		wantCode int
		lastLine string
	}{
		{"child handles SIGTERM", []string{"-on-term", "7"}, syscall.SIGTERM, 7, `{"method":"faultserver/signal","params":{"signal":"terminated"}}`},
		{"child handles SIGHUP", []string{"-on-term", "0"}, syscall.SIGHUP, 0, `{"method":"faultserver/signal","params":{"signal":"hangup"}}`},
		{"child dies of SIGTERM", nil, syscall.SIGTERM, 143, `{"method":"ping"}`},
		{"child dies of SIGINT", nil, syscall.SIGINT, 130, `{"method":"ping"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "s.jsonl")
			args := append([]string{"record", "-o", out, "--", faultserverBin(t)}, tt.args...)
			s := startSession(t, "", nil, args...)
			// After a round trip the child runs and the proxy's handlers are installed.
			roundTrip(t, s.stdin, s.stdout, `{"method":"ping"}`+"\n")
			if err := s.cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(s.stdout)
			if code := s.wait(); code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.wantCode, s.stderr)
			}
			s.stdin.Close()
			rec := readRecording(t, out)
			tr := rec.Trailer
			if tr.Ended != recorder.EndSignal || tr.ExitCode != tt.wantCode {
				t.Errorf("trailer %+v", tr)
			}
			s2c := rec.Frames(wire.ServerToClient)
			if got := strings.TrimSpace(string(s2c[len(s2c)-1].Line)); got != tt.lastLine {
				t.Errorf("last s2c frame %q, want %q", got, tt.lastLine)
			}
			if want := string(frameBytes(rec, wire.ServerToClient)); `{"method":"ping"}`+"\n"+string(rest) != want {
				t.Errorf("client got %q after the ping, recording has %q", rest, want)
			}
		})
	}
}

func TestRecordStartFailure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	r := runCodexrec(t, "", strings.NewReader(""), "record", "-o", out, "--", filepath.Join(t.TempDir(), "no-such-codex"))
	if r.code != 2 {
		t.Fatalf("exit %d, want 2", r.code)
	}
	if !strings.Contains(string(r.stderr), "cannot start server") || !strings.Contains(string(r.stderr), "no-such-codex") {
		t.Errorf("stderr %q does not say what failed", r.stderr)
	}
	// A typo in the command leaves nothing in the way of the corrected one.
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("a failed start left %s behind (%v)", out, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 0 {
		t.Errorf("a failed start left %v behind", ents)
	}
	r = runCodexrec(t, "", strings.NewReader(`{"id":1,"method":"initialize","params":{}}`+"\n"), "record", "-o", out, "--", "cat")
	if r.code != 0 {
		t.Fatalf("the corrected command: exit %d: %s", r.code, r.stderr)
	}
	if rec := readRecording(t, out); rec.Trailer == nil || rec.Trailer.Ended != recorder.EndClientEOF {
		t.Errorf("the corrected command's trailer %+v", rec.Trailer)
	}
}

func TestRecordUsageErrors(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "keep.jsonl")
	os.WriteFile(existing, []byte("keep"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no -o", []string{"record", "--", "true"}, "-o FILE is required"},
		{"no command", []string{"record", "-o", filepath.Join(dir, "x.jsonl")}, "no command to run"},
		{"existing file", []string{"record", "-o", existing, "--", "true"}, "--force"},
		{"unknown flag", []string{"record", "--bogus"}, "flag provided but not defined"},
		{"unknown command", []string{"recrod"}, `unknown command "recrod"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCodexrec(t, dir, strings.NewReader(""), tt.args...)
			if r.code != 2 || !strings.Contains(string(r.stderr), tt.want) {
				t.Fatalf("exit %d stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
			}
			if len(r.stdout) != 0 {
				t.Errorf("stdout is the wire, but got %q", r.stdout)
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Error("existing recording was overwritten without --force")
	}
}

func TestHelpAndVersion(t *testing.T) {
	if r := runCodexrec(t, "", nil, "version"); r.code != 0 || !strings.HasPrefix(string(r.stdout), "codexrec ") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
	r := runCodexrec(t, "", nil, "help", "record")
	if r.code != 0 || !strings.Contains(string(r.stdout), "-no-stderr") || !strings.Contains(string(r.stdout), "exit codes") {
		t.Errorf("help record: %d %q", r.code, r.stdout)
	}
	if r := runCodexrec(t, "", nil); r.code != 2 {
		t.Errorf("no args: exit %d", r.code)
	}
}
