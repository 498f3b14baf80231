package wire_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/wire"
)

// outputDelta is the large frame of app-server traffic: a 200 KB command output
// delta, a JSON escape every 40 bytes.
var outputDelta = []byte(`{"method":"item/commandExecution/outputDelta","params":{"threadId":"01a226dd-027d-7b30-b455-5b5bc11ec58d","turnId":"01a226dd-1111-7b30-b455-5b5bc11ec58d","itemId":"call_1","delta":"` +
	strings.Repeat(`output line of a long-running command\n`, 200_000/40) + `"},"emittedAtMs":1795948348018}` + "\n")

var smallNote = []byte(`{"method":"item/agentMessage/delta","params":{"threadId":"01a226dd-027d-7b30-b455-5b5bc11ec58d","turnId":"01a226dd-1111-7b30-b455-5b5bc11ec58d","itemId":"msg_1","delta":"word "},"emittedAtMs":1795948348018}` + "\n")

func BenchmarkClassify(b *testing.B) {
	for _, tc := range []struct {
		name string
		line []byte
	}{{"outputDelta", outputDelta}, {"smallNote", smallNote}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.line)))
			for b.Loop() {
				if m := wire.Classify(tc.line); m.Kind != wire.KindNotification {
					b.Fatal(m)
				}
			}
		})
	}
}

// BenchmarkLines reads the traffic mix's two frame shapes through Lines into one
// reused 256 KB buffer, as the proxy does.
func BenchmarkLines(b *testing.B) {
	var mix []byte
	for range 99 {
		mix = append(mix, smallNote...)
	}
	mix = append(mix, outputDelta...)
	b.SetBytes(int64(len(mix)))
	buf := make([]byte, 0, 256<<10)
	for b.Loop() {
		lr := wire.NewLines(bytes.NewReader(mix))
		for {
			chunk, err := lr.Next(buf)
			if err != nil {
				break
			}
			buf = chunk[:0]
		}
	}
}
