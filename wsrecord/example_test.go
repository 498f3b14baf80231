package wsrecord_test

import (
	"os"
	"os/signal"

	"github.com/codexrec/codexrec/wsrecord"
)

// Recording the WebSocket clients of a codex app-server started for the purpose:
// what `codexrec record --listen ws://127.0.0.1:4500 -o recordings -- codex
// app-server` does, without the pipeline's stages (NewSession adds them).
func Example() {
	rec := &wsrecord.Recorder{Dir: "recordings"}
	run, err := wsrecord.Start(wsrecord.Options{
		Listen:  "ws://127.0.0.1:4500",
		Command: []string{"codex", "app-server"},
		Stderr:  os.Stderr,
	}, rec)
	if err != nil {
		return
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	select {
	case <-stop:
	case <-run.Done(): // the app-server exited
	}
	run.Stop() // or all of the above: wsrecord.Run(ctx, options, rec)
	for _, r := range rec.Results() {
		_ = r.Path // one recording per connection, in connection order
	}
}
