package dropin_test

import (
	"context"
	"log"
	"os"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/shim"
)

// A drop-in session on this process's stdio in mode auto: the first run records the
// real codex into a recording named by the naming rule, later runs replay it.
func ExampleSession_UseRunners() {
	ctx := context.Background()
	rec := &dropin.RecordOptions{Version: "my-tool"} // validate, sanitize, guard
	rep := &dropin.ReplayOptions{Server: &replay.Server{Unordered: true}}
	s := &dropin.Session{Mode: shim.ModeAuto, Command: []string{"codex", "app-server"}}
	s.SetTarget("testdata/sessions/")
	s.UseRunners(ctx, rec, rep)
	if err := s.Run(os.Stdin); err != nil {
		log.Fatal(err)
	}
}

// The same session from one settings struct, as codexrec record --mode and replay
// --mode run one: the notes (the mode's decision, a stale recording recorded
// afresh) go to Log.
func ExampleSessionOptions_Run() {
	m := &dropin.SessionOptions{Mode: shim.ModeAuto, Command: []string{"codex", "app-server"},
		Record: &dropin.RecordOptions{Version: "my-tool"}, Log: os.Stderr}
	if err := m.Run(context.Background(), "testdata/sessions/", os.Stdin); err != nil {
		log.Fatal(err)
	}
}
