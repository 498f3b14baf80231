package diff_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"codexrec/fixtures/client"
	"codexrec/fixtures/fakemodel"
	"codexrec/internal/codextest"
	"codexrec/internal/wire"
	"codexrec/proxy"
	"codexrec/recorder"
)

// recordPlainTurn records one session of the real codex app-server of version, driven
// hermetically: initialize, thread/start, one turn answered by a scripted fake model
// (reasoning, then a streamed message), then stdin closes. It is the same session
// every time it runs; only what varies from run to run (ids, times, paths) differs.
// (The capture command will produce these fixtures; until then tests make their own.)
func recordPlainTurn(t *testing.T, version, path string) {
	t.Helper()
	bin := codextest.Binary(t, version)
	env, _ := codextest.Env(t)
	model, err := fakemodel.Start([]fakemodel.Response{{Output: []fakemodel.Item{
		{Type: "reasoning", Text: "The user wants a greeting."},
		{Type: "message", Text: "Hello, codexrec! This reply was streamed by a scripted fake model."},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()

	w, err := recorder.Create(path, recorder.Header{Scenario: "plain"}, recorder.Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	var versionSeen bool
	p := &proxy.Proxy{Tap: func(f *wire.Frame) error {
		if err := w.WriteFrame(f); err != nil {
			return err
		}
		if !versionSeen && f.Dir == wire.ServerToClient && f.Msg.Method == "initialize" {
			versionSeen = true
			return w.UpdateHeader(f.Time, recorder.Header{CodexVersion: version})
		}
		return nil
	}}
	cmd := exec.Command(bin, codextest.FakeProviderArgs(model.URL())...)
	cmd.Env = env
	cmd.Dir = t.TempDir()

	clientIn, proxyOut := io.Pipe()
	proxyIn, clientOut := io.Pipe()
	type ran struct {
		res proxy.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := p.Run(cmd, proxyIn, proxyOut, io.Discard)
		proxyOut.Close()
		done <- ran{res, err}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := client.New(clientIn, clientOut, 30*time.Second)
	drive := func() error {
		if err := c.Initialize(ctx); err != nil {
			return err
		}
		thread, err := c.StartThread(ctx, map[string]any{"approvalPolicy": "never", "sandbox": "read-only"})
		if err != nil {
			return err
		}
		mark := c.Mark()
		turn, err := c.StartTurn(ctx, thread, "Say hello to codexrec.")
		if err != nil {
			return err
		}
		_, _, err = c.WaitTurnCompleted(ctx, mark, turn)
		return err
	}
	if err := drive(); err != nil {
		c.Close()
		<-done
		t.Fatalf("codex %s session: %v", version, err)
	}
	c.Close()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF, ExitCode: r.res.ExitCode}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("recording %s: %v", filepath.Base(path), err)
	}
}
