package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/replay"
)

// FuzzServe feeds arbitrary client input to a replay of a real capture: Serve must
// return, and every line it writes must be JSON (the capture holds no raw frames, and
// error answers splice whatever id the client sent).
func FuzzServe(f *testing.F) {
	sc, err := replay.LoadFile(fixture(codexbin.Newest, "plain"), 0)
	if err != nil {
		f.Fatal(err)
	}
	var recorded []byte
	for _, cf := range sc.Client {
		recorded = append(recorded, cf.Line...)
	}
	f.Add(recorded)
	f.Add([]byte("{\"id\":{\"a\":[1]},\"method\":\"x\"}\n{\"id\":0,\"result\":{}}\nnot json\n\n[1,2]\n"))
	f.Add([]byte(`{"id":"\u0000","method":"initialize","params":{"clientInfo":{"name":"codexrec-capture","title":"codexrec capture","version":"1"}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		srv := &replay.Server{Script: sc, Mode: replay.ModeParams, Unordered: len(in)%2 == 1}
		srv.Serve(context.Background(), bytes.NewReader(in), &out)
		for i, line := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("output line %d is not JSON: %q", i+1, line)
			}
		}
	})
}
