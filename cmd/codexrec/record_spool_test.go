package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/wire"
)

// A line longer than wire.SpoolMin, echoed through `record -- cat` with the defaults,
// reaches the client byte for byte and is recorded whole each way, whether its
// unfinished part can be spooled to TMPDIR or not (then it stays in memory).
func TestRecordSpooledLine(t *testing.T) {
	var line bytes.Buffer
	line.WriteString(`{"method":"item/commandExecution/outputDelta","params":{"threadId":"t","turnId":"u","itemId":"call_1","delta":"`)
	for line.Len() < wire.SpoolMin+(1<<20) {
		line.WriteString(`ok  \tgithub.com/example/project/internal/pkg042\t0.042s\tcoverage: 42.1% of statements\n`)
	}
	line.WriteString("\"}}\n")
	in := append([]byte("{\"id\":1,\"method\":\"ping\"}\n"), line.Bytes()...)
	for _, tmp := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		t.Setenv("TMPDIR", tmp)
		out := filepath.Join(t.TempDir(), "s.jsonl")
		r := runCodexrec(t, "", bytes.NewReader(in), "record", "-o", out, "--", "cat")
		if r.code != 0 {
			t.Fatalf("TMPDIR %s: exit %d: %s", tmp, r.code, r.stderr)
		}
		if !bytes.Equal(r.stdout, in) {
			t.Fatalf("TMPDIR %s: client got %d bytes, want %d", tmp, len(r.stdout), len(in))
		}
		rec := readRecording(t, out)
		for _, dir := range []wire.Direction{wire.ClientToServer, wire.ServerToClient} {
			frames := rec.Frames(dir)
			if len(frames) != 2 || !bytes.Equal(frames[1].Line, line.Bytes()) {
				t.Fatalf("TMPDIR %s: %s: %d frames; the long one not recorded whole", tmp, dir, len(frames))
			}
		}
		entries, _ := os.ReadDir(tmp) // a spool file is unlinked as soon as it is made
		for _, e := range entries {
			t.Errorf("TMPDIR holds %s after the session", e.Name())
		}
	}
}
