package main_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecordClientEOFWhenServerStdoutEnds: the client sees EOF as soon as the
// server's stdout ends, not when the session is over (here the server closes its
// stdout and lingers for 2 s); the recording still holds the server's frame.
func TestRecordClientEOFWhenServerStdoutEnds(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "r.jsonl")
	cmd := exec.Command(codexrecBin, "record", "-o", rec, "--", "sh", "-c",
		`echo '{"id":1,"result":{}}'; exec 1>&-; sleep 2`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(out)
	eof := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	exit := time.Since(start)
	if string(got) != `{"id":1,"result":{}}`+"\n" {
		t.Errorf("client got %q", got)
	}
	if exit < 2*time.Second {
		t.Fatalf("codexrec exited after %v, before the server did", exit)
	}
	if eof >= 2*time.Second {
		t.Errorf("the client saw EOF after %v, when codexrec exited (%v), not when the server's stdout ended", eof, exit)
	}
	if tr := readRecording(t, rec).Trailer; tr == nil || tr.Frames["s2c"] != 1 {
		t.Errorf("trailer %+v, want 1 server frame", tr)
	}
}

// TestRecordLongLineWithGuard: a server line far longer than the pipeline may fall
// behind (record.MaxLag) is written in parts; the guard following the recording
// waits for its end instead of holding the writer back forever.
func TestRecordLongLineWithGuard(t *testing.T) {
	dir := t.TempDir()
	line := `{"method":"item/commandExecution/outputDelta","params":{"itemId":"call_1","delta":"` + strings.Repeat("ok  \\tgithub.com/example/project\\t0.042s\\n", 12<<20/44) + `"}}` + "\n"
	src := filepath.Join(dir, "line.jsonl")
	if err := os.WriteFile(src, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "r.jsonl")
	cmd := exec.Command(codexrecBin, "record", "-o", rec, "--", "cat", src)
	var out bytes.Buffer
	cmd.Stdout = &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("codexrec did not finish a session with one 12 MB line")
	}
	if out.Len() != len(line) {
		t.Errorf("client got %d bytes, want %d", out.Len(), len(line))
	}
	if tr := readRecording(t, rec).Trailer; tr == nil || tr.Frames["s2c"] != 1 {
		t.Errorf("trailer %+v, want 1 server frame", tr)
	}
}
