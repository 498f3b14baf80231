package recorder_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/codexrec/codexrec/recorder"
)

// endless is a stream that never ends and never has a newline: fill, forever.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestNotHeaderRefusedEarly: a stream or file whose first bytes cannot start a
// header is refused with ErrNoHeader at once, not read whole first (a device with
// no end and no newline, /dev/zero, grew the first line until memory ran out:
// 2.7 GB in five seconds). A recording that starts with spaces before its '{' is
// not refused by this (and an endless run of spaces is still read as a line).
func TestNotHeaderRefusedEarly(t *testing.T) {
	deadline := time.AfterFunc(30*time.Second, func() { panic("a reader kept reading an endless stream") })
	defer deadline.Stop()
	for _, fill := range []byte{0, 'x', '['} {
		if _, err := recorder.NewReader(endless(fill), "endless"); !errors.Is(err, recorder.ErrNoHeader) {
			t.Errorf("NewReader on endless %q: %v, want ErrNoHeader", fill, err)
		}
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		for name, read := range map[string]func(string) error{
			"ReadFile":  func(p string) error { _, err := recorder.ReadFile(p); return err },
			"ReadBytes": func(p string) error { _, err := recorder.ReadBytes(p); return err },
			"NewReader": func(p string) error {
				f, err := os.Open(p)
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = recorder.NewReader(f, p)
				return err
			},
		} {
			if err := read("/dev/zero"); !errors.Is(err, recorder.ErrNoHeader) {
				t.Errorf("%s(/dev/zero): %v, want ErrNoHeader", name, err)
			}
		}
	}
	dir := t.TempDir()
	spaced := dir + "/spaced.jsonl"
	if err := os.WriteFile(spaced, []byte("  \t{\"type\":\"header\",\"format\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := recorder.ReadFile(spaced); err != nil {
		t.Errorf("a header after spaces: %v", err)
	}
}
