//go:build linux

package main_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/codexrec/codexrec/recorder"
)

// smallFS mounts a tmpfs of size bytes on a fresh directory, or skips: mounting
// needs root (CAP_SYS_ADMIN).
func smallFS(t *testing.T, size int) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// TestRecordOnFullFileSystem records a server streaming deltas onto a real file
// system too small for the session, sanitized and with --no-sanitize (where the leak
// guard has secrets to redact and needs room for its spool): the wire is whole, and
// the command's message names a recording that exists and reads.
func TestRecordOnFullFileSystem(t *testing.T) {
	const secret = "sk-proj-Qw3rT9yU1iO5pA7sD2fG4hJ6kL8zX0cV3bN5mQ1wE9rT7yU5iO3pA1sD9fG7h"
	var in strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&in, `{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"chunk %d %s"}}`+"\n", i, secret)
	}
	for _, args := range [][]string{{}, {"--no-sanitize"}} {
		t.Run(strings.Join(append([]string{"record"}, args...), " "), func(t *testing.T) {
			dir := smallFS(t, 256<<10)
			out := filepath.Join(dir, "r.jsonl")
			a := append(append([]string{"record"}, args...), "-o", out, "--", "cat")
			r := runCodexrec(t, t.TempDir(), strings.NewReader(in.String()), a...)
			if !bytes.Equal(r.stdout, []byte(in.String())) {
				t.Errorf("the wire lost bytes: %d of %d", len(r.stdout), in.Len())
			}
			if r.code == 0 {
				t.Errorf("exit 0 on a full disk; stderr: %s", r.stderr)
			}
			// "... is at PATH", "... kept unpublished at PATH": where the recording is.
			named := regexp.MustCompile(` at (`+regexp.QuoteMeta(dir)+`/[^\s:;,)]+)`).FindAllSubmatch(r.stderr, -1)
			if len(named) == 0 {
				t.Fatalf("the message says of no file in %s that the recording is there: %s", dir, r.stderr)
			}
			for _, n := range named {
				p := strings.TrimRight(string(n[1]), ".")
				if _, err := os.Stat(p); err != nil {
					t.Errorf("the message names %s, which does not exist: %s", p, r.stderr)
					continue
				}
				rec, err := recorder.ReadFile(p)
				if err != nil || len(rec.Frames()) == 0 {
					t.Errorf("%s: %v (%d frames)", p, err, len(rec.Frames()))
				}
				if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(secret[:20])) && !strings.HasSuffix(p, ".quarantine") {
					t.Errorf("%s holds the secret unmasked", p)
				}
			}
			t.Logf("stderr: %s", r.stderr)
		})
	}
}
