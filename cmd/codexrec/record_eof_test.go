package main_test

import (
	"io"
	"os/exec"
	"path/filepath"
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
