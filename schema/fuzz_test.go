package schema_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// FuzzCheck: validation never panics and never blocks, whatever the lines. Each input
// is a session: lines alternate direction unless they start with '>' (client) or '<'
// (server).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"},"capabilities":{"experimentalApi":true}}}` + "\n" + `{"id":1,"result":{"userAgent":"x/0.163.0"}}`,
		`>{"id":1,"method":"thread/start","params":{"bogus":[1,{"a":null}]}}` + "\n" + `<{"id":1,"result":{"thread":{"turns":[{"items":[{"type":"agentMessage","id":"x","text":1}]}]}}}`,
		`<{"method":"process/exited","params":{"exitCode":1e400,"processHandle":"p"}}`,
		`<{"method":"item/started","params":{"item":{"type":"nope"}},"emittedAtMs":-1}`,
		`>{"id":1,"error":{"code":1.5}}` + "\n" + `{"id":[],"method":7}`,
		"\xff\xfe\n[]\n{}\n\n   \n{\"method\":\"initialized\",\"id\":null}",
	} {
		f.Add([]byte(s))
	}
	set, err := schema.Load("0.163.0")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v := schema.NewValidator(set)
		done := make(chan struct{})
		go func() {
			defer close(done)
			dir := wire.ClientToServer
			for i, line := range bytes.Split(data, []byte("\n")) {
				d := dir
				if len(line) > 0 && line[0] == '>' {
					d, line = wire.ClientToServer, line[1:]
				} else if len(line) > 0 && line[0] == '<' {
					d, line = wire.ServerToClient, line[1:]
				}
				for _, fd := range v.Check(&wire.Frame{Seq: int64(i + 1), Dir: d, Line: line}) {
					if fd.Seq != int64(i+1) || fd.Rule == "" || fd.Reason == "" || bytes.ContainsRune([]byte(fd.Reason), '\n') {
						t.Errorf("bad finding %+v", fd)
					}
				}
				dir = dir.Opposite()
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Check blocked on %q", data)
		}
	})
}
