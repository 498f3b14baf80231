package main_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// BenchmarkRecordValidation measures live validation's cost on the proxy, as ratios in
// one run: the same traffic through a bare pipe, through `codexrec record
// --no-validate`, and through `codexrec record` (validation on, the default).
//
//   - echo: BenchmarkPipe's synthetic mix echoed by cat, so every message crosses (and
//     is validated) twice, once as a client message (unknown-method findings: the
//     client does not send server notifications) and once as a server message.
//   - server: the server notifications of the captured fixtures (the real traffic
//     mix: deltas, item and token-usage events), printed by a server that reads
//     nothing; each message is validated once and clean.
func BenchmarkRecordValidation(b *testing.B) {
	bin := plainBinary(b)
	echo, echoMsgs := trafficMix()
	notes, noteMsgs := fixtureNotifications(b)
	notesFile := filepath.Join(b.TempDir(), "notifications.jsonl")
	if err := os.WriteFile(notesFile, notes, 0o600); err != nil {
		b.Fatal(err)
	}
	for _, mix := range []struct {
		name   string
		input  []byte // written by the client, per op
		output int    // bytes the client reads back, per op
		msgs   int
		server func(n int) []string
	}{
		{"echo", echo, len(echo), echoMsgs, func(int) []string { return []string{"cat"} }},
		{"server", nil, len(notes), noteMsgs, func(n int) []string {
			return []string{"sh", "-c", `i=0; while [ $i -lt "$1" ]; do cat "$2"; i=$((i+1)); done`, "sh", strconv.Itoa(n), notesFile}
		}},
	} {
		for _, mode := range []struct {
			name string
			args []string
		}{
			{"bare", nil},
			{"record-novalidate", []string{"--no-validate"}},
			{"record-validate", []string{"--codex-version", "0.171.0"}},
		} {
			b.Run(mix.name+"/"+mode.name, func(b *testing.B) {
				server := mix.server(b.N)
				cmd := exec.Command(server[0], server[1:]...)
				if mode.args != nil {
					out := filepath.Join(b.TempDir(), "bench.jsonl")
					args := append(append([]string{"record", "--force", "-o", out}, mode.args...), "--")
					cmd = exec.Command(bin, append(args, server...)...)
				}
				stdin, _ := cmd.StdinPipe()
				stdout, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(mix.output))
				b.ResetTimer()
				go func() {
					for range b.N {
						stdin.Write(mix.input)
					}
					stdin.Close()
				}()
				n, err := io.Copy(io.Discard, stdout)
				b.StopTimer()
				if err != nil || n != int64(mix.output*b.N) {
					b.Fatalf("got %d bytes back, want %d (%v)", n, mix.output*b.N, err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(mix.msgs*b.N)/b.Elapsed().Seconds(), "msgs/s")
			})
		}
	}
}

// fixtureNotifications is every server notification of the newest version's captured
// fixtures, one per line.
func fixtureNotifications(b *testing.B) ([]byte, int) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "hermetic", "0.171.0", "*.jsonl"))
	var buf bytes.Buffer
	n := 0
	for _, p := range paths {
		rec, err := recorder.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range rec.Frames(wire.ServerToClient) {
			if e.Msg.Kind == wire.KindNotification {
				buf.Write(e.Line)
				n++
			}
		}
	}
	if n == 0 {
		b.Skip("no fixtures under fixtures/hermetic/0.171.0")
	}
	return buf.Bytes(), n
}

// plainBinary builds codexrec without the race detector (which the end-to-end tests'
// binary has, and which would dominate the figures).
func plainBinary(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "codexrec")
	if out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return path
}
