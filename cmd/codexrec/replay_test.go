package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/codexrec/codexrec/internal/termtext"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/fixtures/client"
	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/fixtures/scenario"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/normalize"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// replayFixture is a committed capture from the real binary.
func replayFixture(version, name string) string {
	return filepath.Join("..", "..", "fixtures", "hermetic", version, name+".jsonl")
}

// readFixture reads a committed capture (its file mode is git's, not a recording's).
func readFixture(t *testing.T, path string) *recorder.Recording {
	t.Helper()
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// recordedClientInput is the recorded client's lines of a recording's first segment,
// as one stdin: a client that sends everything at once.
func recordedClientInput(t *testing.T, path string) (in []byte, s2c []byte, stderr []byte) {
	t.Helper()
	rec := readFixture(t, path)
	seg := rec.Segments()[0]
	for _, e := range seg {
		if e.Type != recorder.TypeFrame {
			continue
		}
		switch e.Dir {
		case wire.ClientToServer:
			in = append(in, e.Line...)
		case wire.ServerToClient:
			s2c = append(s2c, e.Line...)
		case wire.Stderr:
			stderr = append(stderr, e.Line...)
		}
	}
	return in, s2c, stderr
}

// TestReplayCommand runs the built binary on a committed capture: exit codes,
// diagnostics and flags.
func TestReplayCommand(t *testing.T) {
	plain := replayFixture(codexbin.Newest, "plain")
	in, out, stderr := recordedClientInput(t, plain)
	wrong := bytes.Replace(in, []byte("Say hello to codexrec."), []byte("Say goodbye."), 1)
	if bytes.Equal(wrong, in) {
		t.Fatal("the plain fixture no longer asks to say hello")
	}
	firstLine := in[:bytes.IndexByte(in, '\n')+1]
	cwd := t.TempDir()
	out = restoredPaths(t, out, cwd)

	for _, tc := range []struct {
		name       string
		args       []string
		stdin      []byte
		code       int
		stdout     []byte // exact, when set
		stdoutHas  string
		stderrHas  []string
		stderrNot  string
		stderrSame []byte // exact, when set
	}{
		{name: "serves the recording byte for byte", args: []string{"--match", "strict", plain}, stdin: in, stdout: out,
			stderrSame: []byte{}},
		// The server's recorded stderr is replayed through the output layer: its
		// colour codes, like any escape in a recording, are shown escaped. Patience is
		// off: the client's whole input is there, and on a loaded machine a patience
		// note would be a line the recording does not hold.
		{name: "stderr replayed", args: []string{"--stderr", "--patience", "0", plain}, stdin: in, stdout: out,
			stderrSame: []byte(termtext.String(string(stderr), termtext.Mask))},
		{name: "mismatch", args: []string{plain}, stdin: wrong, code: 1,
			stdoutHas: `{"error":{"code":-32600,"message":"replay: request turn/start differs from the recorded one`,
			stderrHas: []string{"client line 4 matched nothing", "/params/input/0/text: \"Say goodbye.\", recorded \"Say hello to codexrec.\"",
				"1 expected client frame(s) never came"}},
		{name: "fail fast", args: []string{"--fail-fast", plain}, stdin: wrong, code: 1,
			stderrHas: []string{"client line 4 matched nothing"}, stderrNot: "never came"},
		{name: "unused", args: []string{plain}, stdin: firstLine, code: 1,
			stderrHas: []string{"3 expected client frame(s) never came", "notification initialized", "request thread/start", "request turn/start"}},
		{name: "allow unused", args: []string{"--allow-unused", plain}, stdin: firstLine, code: 0,
			stderrHas: []string{"3 expected client frame(s) never came"}},
		{name: "fault", args: []string{"--fault", "garbage=hello there", "--fault", "drop:item/agentMessage/delta", plain}, stdin: in,
			stdoutHas: "hello there\n{\"id\":0,"},
		{name: "method mode", args: []string{"--match", "method", plain}, stdin: wrong, stdoutHas: `"method":"turn/completed"`},
		{name: "no file", args: []string{}, code: 2, stderrHas: []string{"want exactly one recording"}},
		{name: "missing file", args: []string{filepath.Join(t.TempDir(), "none.jsonl")}, code: 2, stderrHas: []string{"no such file"}},
		{name: "bad mode", args: []string{"--match", "exact", plain}, code: 2, stderrHas: []string{`unknown match mode "exact"`}},
		{name: "bad fault", args: []string{"--fault", "explode", plain}, code: 2, stderrHas: []string{`unknown kind "explode"`}},
		{name: "bad speed", args: []string{"--speed", "-1", plain}, code: 2, stderrHas: []string{"--speed"}},
		{name: "bad patience", args: []string{"--patience", "-1s", plain}, code: 2, stderrHas: []string{"--patience -1s"}},
		{name: "no such segment", args: []string{"--segment", "3", plain}, code: 2, stderrHas: []string{"segment 3 (the recording has 1)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCodexrec(t, "", bytes.NewReader(tc.stdin), append([]string{"replay", "--cwd", cwd}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			if tc.stdout != nil && !bytes.Equal(r.stdout, tc.stdout) {
				t.Errorf("stdout differs from the recording (%d bytes, want %d)", len(r.stdout), len(tc.stdout))
			}
			if tc.stdoutHas != "" && !bytes.Contains(r.stdout, []byte(tc.stdoutHas)) {
				t.Errorf("stdout lacks %q:\n%.2000s", tc.stdoutHas, r.stdout)
			}
			for _, s := range tc.stderrHas {
				if !bytes.Contains(r.stderr, []byte(s)) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
			if tc.stderrNot != "" && bytes.Contains(r.stderr, []byte(tc.stderrNot)) {
				t.Errorf("stderr has %q:\n%s", tc.stderrNot, r.stderr)
			}
			if tc.stderrSame != nil && !bytes.Equal(r.stderr, tc.stderrSame) {
				t.Errorf("stderr:\n%s\nwant:\n%s", r.stderr, tc.stderrSame)
			}
		})
	}
}

// restoredPaths is what a replay in cwd serves for recorded server output: the path
// placeholders become real paths (CODEX_HOME set to a test directory; the recorded
// client sends the literal "<cwd>", which fills in nothing).
func restoredPaths(t *testing.T, out []byte, cwd string) []byte {
	t.Helper()
	home := t.TempDir()
	t.Setenv("CODEX_HOME", home)
	for _, r := range [][2]string{{"<codex-home>", home}, {"<cwd>", cwd}, {"<tmp>", os.TempDir()}, {"<home>", os.Getenv("HOME")}} {
		out = bytes.ReplaceAll(out, []byte(r[0]), []byte(r[1]))
	}
	return out
}

// TestReplaySegment serves the second lifetime of the committed restart capture.
func TestReplaySegment(t *testing.T) {
	path := replayFixture(codexbin.Newest, "resume")
	rec := readFixture(t, path)
	segs := rec.Segments()
	var in, out []byte
	for _, e := range segs[len(segs)-1] {
		if e.Type == recorder.TypeFrame && e.Dir == wire.ClientToServer {
			in = append(in, e.Line...)
		}
		if e.Type == recorder.TypeFrame && e.Dir == wire.ServerToClient {
			out = append(out, e.Line...)
		}
	}
	cwd := t.TempDir()
	out = restoredPaths(t, out, cwd)
	r := runCodexrec(t, "", bytes.NewReader(in), "replay", "--cwd", cwd, "--segment", fmt.Sprint(len(segs)), path)
	if r.code != 0 || !bytes.Equal(r.stdout, out) {
		t.Fatalf("segment %d: exit %d, stdout %d bytes (want %d); stderr:\n%s", len(segs), r.code, len(r.stdout), len(out), r.stderr)
	}
	if !bytes.Contains(in, []byte(`"method":"thread/resume"`)) {
		t.Errorf("the last segment does not resume the thread")
	}
	r = runCodexrec(t, "", bytes.NewReader(in), "replay", path)
	if r.code != 1 {
		t.Errorf("segment 1 served the resumed lifetime's client: exit %d", r.code)
	}
}

// driveScenario is the scripted client's part of a scenario without mid-turn actions
// or restarts: handshake, thread, turns answered as the scenario says.
func driveScenario(ctx context.Context, c *client.Client, sc *scenario.Scenario, workspace string) error {
	if err := c.Initialize(ctx); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	params := map[string]any{"cwd": workspace}
	for k, v := range sc.Thread {
		params[k] = v
	}
	thread, err := c.StartThread(ctx, params)
	if err != nil {
		return err
	}
	for i, turn := range sc.Turns {
		answers := turn.Answers
		c.SetAnswer(func(method string, _ json.RawMessage) (any, bool) {
			a, ok := answers[method]
			return a, ok
		})
		mark := c.Mark()
		id, err := c.StartTurn(ctx, thread, turn.Input)
		if err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		end, _, err := c.WaitTurnCompleted(ctx, mark, id)
		if err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		if end.Status != scenario.StatusCompleted {
			return fmt.Errorf("turn %d ended %s: %s", i+1, end.Status, end.Error)
		}
	}
	return nil
}

// runRecorded runs `codexrec record -o out -- argv...` in dir with env, drives it
// with the scenario's client and waits for it to exit.
func runRecorded(t *testing.T, sc *scenario.Scenario, dir string, env []string, out string, argv ...string) {
	t.Helper()
	sess := startSession(t, dir, env, append([]string{"record", "-o", out, "--"}, argv...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := client.New(sess.stdout, sess.stdin, 30*time.Second)
	derr := driveScenario(ctx, c, sc, dir)
	c.Close()
	// Not sess.wait: the client's goroutine still reads stdout until the pipe closes.
	werr := sess.cmd.Wait()
	if derr != nil || werr != nil {
		t.Fatalf("%s: client: %v; exit: %v; stderr:\n%s", strings.Join(argv, " "), derr, werr, tail(sess.stderr.String(), 3000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// normalizedFrames normalises the frames of one direction of a recording with one
// normalizer per recording, so generated ids become the same symbols when they
// appear in the same places.
func normalizedFrames(t *testing.T, rec *recorder.Recording, n *normalize.Normalizer, dir wire.Direction) []string {
	t.Helper()
	var out []string
	for _, e := range rec.Frames(dir) {
		v, err := n.Message(e.JSON())
		if err != nil {
			t.Fatalf("%s: seq %d: %v", rec.Name, e.Seq, err)
		}
		out = append(out, e.Msg.Kind.String()+" "+string(normalize.Marshal(v)))
	}
	return out
}

// TestReplayRoundTrip: a scripted client's session with the real codex app-server is
// recorded; the same client then runs against `codexrec replay` of that recording,
// itself wrapped by `codexrec record`; the two recordings are equal after
// normalisation, frame for frame in each direction.
func TestReplayRoundTrip(t *testing.T) {
	for _, v := range codexbin.Versions {
		for _, name := range []string{"plain", "approval-accept"} {
			t.Run(v+"/"+name, func(t *testing.T) {
				bin := codextest.Binary(t, v)
				sc, err := fixtures.Shipped(name)
				if err != nil {
					t.Fatal(err)
				}
				model, err := fakemodel.Start(sc.Responses)
				if err != nil {
					t.Fatal(err)
				}
				defer model.Close()
				env, _ := codextest.Env(t)
				dir := t.TempDir()
				real := filepath.Join(dir, "real.jsonl")
				work1 := t.TempDir()
				runRecorded(t, sc, work1, env, real, append([]string{bin}, codextest.FakeProviderArgs(model.URL())...)...)
				if err := model.Err(); err != nil {
					t.Fatalf("fake model: %v", err)
				}

				replayed := filepath.Join(dir, "replayed.jsonl")
				work2 := t.TempDir()
				runRecorded(t, sc, work2, os.Environ(), replayed, codexrecBin, "replay", real)

				a, b := readRecording(t, real), readRecording(t, replayed)
				na, nb := normalize.MustNew(normalize.Options{}), normalize.MustNew(normalize.Options{})
				for _, dir := range []wire.Direction{wire.ClientToServer, wire.ServerToClient} {
					fa := normalizedFrames(t, a, na, dir)
					fb := normalizedFrames(t, b, nb, dir)
					if len(fa) != len(fb) {
						t.Errorf("%s: %d frames recorded from codex, %d from the replay", dir, len(fa), len(fb))
					}
					for i := 0; i < len(fa) && i < len(fb); i++ {
						if fa[i] != fb[i] {
							t.Errorf("%s frame %d differs:\ncodex  %.400s\nreplay %.400s", dir, i+1, fa[i], fb[i])
							break
						}
					}
				}
				if len(a.Frames(wire.ServerToClient)) < 20 {
					t.Errorf("only %d server frames: the turn did not happen", len(a.Frames(wire.ServerToClient)))
				}
				if name == "approval-accept" && !bytes.Contains(frameBytes(b, wire.ServerToClient), []byte(`"method":"item/commandExecution/requestApproval"`)) {
					t.Error("the replayed session has no approval request")
				}
			})
		}
	}
}

// TestReplayRefusals: the built binary says replay's settings that do not go
// together (dropin.ReplayOptions.Validate's fields) as its flags, exit 2.
func TestReplayRefusals(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "r.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--loop", rec}, "--loop, --url-file, --ws-token-file and --connections need --listen URL"},
		{[]string{"--connections", "2", rec}, "--loop, --url-file, --ws-token-file and --connections need --listen URL"},
		{[]string{"--ws-token-file", rec, rec}, "--loop, --url-file, --ws-token-file and --connections need --listen URL"},
		{[]string{"--segment", "-1", rec}, "--segment -1: segments are numbered from 1"},
		{[]string{"--segment", "0", rec}, "--segment 0: segments are numbered from 1"},
		{[]string{"--listen", "ws://127.0.0.1:0", "--segment", "2", rec}, "--segment: a socket recording holds one connection"},
		{[]string{"--listen", "ws://localhost", rec}, "--listen: "},
		{[]string{"--listen", "ws://127.0.0.1:0", "--memory-budget", "-1", rec}, "--memory-budget: -1 MiB: want 0 (the default) or more"},
	} {
		r := runCodexrec(t, "", nil, append([]string{"replay"}, tc.args...)...)
		if r.code != 2 || !strings.Contains(string(r.stderr), "codexrec replay: "+tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
