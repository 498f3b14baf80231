package main_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// startupFixture is the recording the start-up bench replays, made 50 frames long
// (startupRecording).
const startupFixture = "../../fixtures/hermetic/0.171.0/plain.jsonl"

// startupRecording writes startupFixture with its last agent message delta
// repeated until the recording holds 50 frames, and returns its path.
func startupRecording(b *testing.B) string {
	data, err := os.ReadFile(startupFixture)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	frames, last := 0, -1
	for i, l := range lines {
		if gjson.GetBytes(l, "type").String() == "frame" {
			frames++
			if gjson.GetBytes(l, "msg.method").String() == "item/agentMessage/delta" {
				last = i
			}
		}
	}
	const want = 50
	if last < 0 || frames > want {
		b.Fatalf("%s: %d frames, no agent message delta to repeat", startupFixture, frames)
	}
	var out []byte
	seq := int64(0)
	for i, l := range lines {
		copies := 1
		if i == last {
			copies += want - frames
		}
		for range copies {
			switch gjson.GetBytes(l, "type").String() {
			case "frame":
				seq++
				l, err = sjsonSet(l, "seq", seq)
			case "trailer":
				l, err = sjsonSet(l, "frames.s2c", gjson.GetBytes(l, "frames.s2c").Int()+int64(want-frames))
			}
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, l...)
		}
	}
	path := filepath.Join(b.TempDir(), "fifty.jsonl")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		b.Fatal(err)
	}
	rec, err := recorder.ReadFile(path)
	if err != nil || len(rec.Problems) > 0 {
		b.Fatalf("%s: %v %v", path, err, rec.Problems)
	}
	n := 0
	for _, e := range rec.Entries {
		if e.Type == recorder.TypeFrame {
			n++
		}
	}
	if n != want {
		b.Fatalf("%s: %d frames, want %d", path, n, want)
	}
	return path
}

// selfArg in a start-up case's arguments stands for the build being timed.
const selfArg = "{self}"

// withSelf returns args with selfArg replaced by bin.
func withSelf(args []string, bin string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if a == selfArg {
			out[i] = bin
		}
	}
	return out
}

// sjsonSet replaces the number at key (a gjson path) of the JSON object line l.
func sjsonSet(l []byte, key string, v int64) ([]byte, error) {
	r := gjson.GetBytes(l, key)
	if r.Index <= 0 || r.Type != gjson.Number {
		return nil, fmt.Errorf("no number at %s in %.80s", key, l)
	}
	out := append([]byte(nil), l[:r.Index]...)
	out = strconv.AppendInt(out, v, 10)
	return append(out, l[r.Index+len(r.Raw):]...), nil
}

// BenchmarkStartup times whole short runs of codexrec, alternating this build and
// CODEXREC_BASE's: `record -o F -- true` with defaults and with every stage off, and
// a replay of a short recording driven by its own client frames, directly and as a
// shim replays it (record --mode replay; for the base only if it has --mode), and
// that replay recorded with defaults (a whole short session: its schema loaded and
// routes compiled).
// Reported per case and build: the median CPU time (user + system, as the
// kernel counts it for the process and the children it waited for) and wall time;
// and the child's own cost, `true` run directly in the same rounds (child-cpu-ms),
// which scripts/benchtable.awk takes off the record cases (the target does not
// count the child).
func BenchmarkStartup(b *testing.B) {
	startupReplay := startupRecording(b)
	rec, err := recorder.ReadFile(startupReplay)
	if err != nil {
		b.Fatal(err)
	}
	var client bytes.Buffer
	for _, e := range rec.Entries {
		if e.Type == recorder.TypeFrame && e.Dir == wire.ClientToServer {
			client.Write(e.Line)
		}
	}
	out := filepath.Join(b.TempDir(), "r.jsonl")
	cases := []struct {
		name   string
		args   []string
		stdin  []byte
		noBase bool // the base may predate it: run for it only if it succeeds once
	}{
		{"record-true", []string{"record", "--force", "-o", out, "--", "true"}, nil, false},
		{"record-true-off", []string{"record", "--no-validate", "--no-sanitize", "--no-leak-guard", "--force", "-o", out, "--", "true"}, nil, false},
		{"replay", []string{"replay", startupReplay}, client.Bytes(), false},
		{"shim-replay", []string{"record", "--mode", "replay", "-o", startupReplay, "--", "codex", "app-server"}, client.Bytes(), true},
		// A whole short session recorded with defaults: its first messages load the
		// schema of its version and compile their routes, which record -- true never
		// does. The server is the same build replaying the 50-frame recording.
		{"record-session", []string{"record", "--force", "-o", out, "--", selfArg, "replay", startupReplay}, client.Bytes(), false},
	}
	builds := map[string]string{"": codexrecBin}
	if base := os.Getenv("CODEXREC_BASE"); base != "" {
		builds["base-"] = base
	}
	skip := map[string]bool{} // prefix+name of a case the base cannot run
	for prefix, bin := range builds {
		for _, c := range cases {
			if prefix == "" || !c.noBase {
				continue
			}
			cmd := exec.Command(bin, withSelf(c.args, bin)...)
			cmd.Stdin = bytes.NewReader(c.stdin)
			if err := cmd.Run(); err != nil {
				b.Logf("%s%s: the base cannot run it (%v); this build's only", prefix, c.name, err)
				skip[prefix+c.name] = true
			}
		}
	}
	cpu, wall := map[string][]time.Duration{}, map[string][]time.Duration{}
	runs := envInt("BENCH_STARTS", 20)
	b.ResetTimer()
	for range b.N {
		for range runs {
			child, t0 := exec.Command("true"), time.Now()
			if err := child.Run(); err != nil {
				b.Fatal(err)
			}
			cpu["child"] = append(cpu["child"], child.ProcessState.UserTime()+child.ProcessState.SystemTime())
			wall["child"] = append(wall["child"], time.Since(t0))
			for _, c := range cases {
				for prefix, bin := range builds {
					if skip[prefix+c.name] {
						continue
					}
					cmd := exec.Command(bin, withSelf(c.args, bin)...)
					cmd.Stdin = bytes.NewReader(c.stdin)
					var stdout bytes.Buffer
					cmd.Stdout = &stdout
					t0 := time.Now()
					if err := cmd.Run(); err != nil {
						b.Fatalf("%s%s: %v", prefix, c.name, err)
					}
					wall[prefix+c.name] = append(wall[prefix+c.name], time.Since(t0))
					ps := cmd.ProcessState
					cpu[prefix+c.name] = append(cpu[prefix+c.name], ps.UserTime()+ps.SystemTime())
					if c.stdin != nil && stdout.Len() == 0 {
						b.Fatalf("%s%s: the replay answered nothing", prefix, c.name)
					}
				}
			}
		}
	}
	b.StopTimer()
	for name := range cpu {
		b.ReportMetric(float64(percentile(cpu[name], 0.5).Microseconds())/1000, name+"-cpu-ms")
		b.ReportMetric(float64(percentile(wall[name], 0.5).Microseconds())/1000, name+"-wall-ms")
	}
}
