package wire_test

import (
	"errors"
	"testing"

	"github.com/codexrec/codexrec/wire"
)

func TestTapFuncs(t *testing.T) {
	var zero wire.TapFuncs
	if zero.Frame(&wire.Frame{}) != nil || zero.Idle() != nil {
		t.Fatal("the zero TapFuncs does something")
	}
	boom := errors.New("boom")
	var frames, idles int
	var tap wire.Tap = wire.TapFuncs{
		OnFrame: func(*wire.Frame) error { frames++; return boom },
		OnIdle:  func() error { idles++; return nil },
	}
	if err := tap.Frame(&wire.Frame{}); err != boom {
		t.Fatalf("Frame returned %v, want OnFrame's error", err)
	}
	if err := tap.Idle(); err != nil || frames != 1 || idles != 1 {
		t.Fatalf("Idle %v, %d frames, %d idles", err, frames, idles)
	}
}
