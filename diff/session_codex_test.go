package diff_test

import (
	"context"
	"testing"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// capturePlain records the shipped plain scenario (initialize, thread/start, one turn
// answered by the scripted fake model) with the real codex app-server of version,
// unsanitized, to path. It is the same session every time; only what varies from run
// to run (ids, times, temporary paths) differs.
func capturePlain(t *testing.T, version, path string) {
	t.Helper()
	bin := codextest.Binary(t, version)
	sc, err := fixtures.Shipped("plain")
	if err != nil {
		t.Fatal(err)
	}
	w, err := recorder.Create(path, recorder.Header{Scenario: sc.Name}, recorder.Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	versionSeen := false
	s, err := fixtures.Start(fixtures.StartOptions{
		Scenario: sc,
		Codex:    bin,
		TempDir:  t.TempDir(),
		Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
			if err := w.WriteFrame(f); err != nil {
				return err
			}
			if !versionSeen && f.Dir == wire.ServerToClient && f.Msg.Method == "initialize" {
				versionSeen = true
				return w.UpdateHeader(f.Time, recorder.Header{CodexVersion: version})
			}
			return nil
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatalf("capture plain with codex %s: %v", version, err)
	}
	exit := proxy.Result{}
	if len(res.Exits) > 0 {
		exit = res.Exits[len(res.Exits)-1]
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF, ExitCode: exit.ExitCode}); err != nil {
		t.Fatal(err)
	}
}
