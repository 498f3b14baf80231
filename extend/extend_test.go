package extend_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/extend"
	"github.com/codexrec/codexrec/fixtures/client"
	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/shim"
)

var replies = []string{"Hello from the first turn.", "And hello again from the second turn."}

// fakeModel serves one reply per turn, the nth of replies for the nth turn.
func fakeModel(t *testing.T, turns int) *fakemodel.Server {
	t.Helper()
	var script []fakemodel.Response
	for _, r := range replies[:turns] {
		script = append(script, fakemodel.Response{Output: []fakemodel.Item{{Type: "message", Text: r}}})
	}
	s, err := fakemodel.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// conversation is what a client saw: the thread id it was given and each turn's
// reply text.
type conversation struct {
	thread  string
	replies []string
}

// talk drives a session on r/w as a client: initialize, a thread, then one turn
// per prompt, each waited for to the end; then it closes its output.
func talk(t *testing.T, r io.Reader, w io.WriteCloser, cwd string, prompts ...string) conversation {
	t.Helper()
	return talkAnswering(t, r, w, cwd, nil, prompts...)
}

// talkAnswering is talk with a thread that asks for approvals, answered with
// answer (nil: a thread that never asks).
func talkAnswering(t *testing.T, r io.Reader, w io.WriteCloser, cwd string, answer client.AnswerFunc, prompts ...string) conversation {
	t.Helper()
	ctx := context.Background()
	c := client.New(r, w, 60*time.Second)
	defer c.Close()
	params := map[string]any{"approvalPolicy": "never", "sandbox": "read-only", "cwd": cwd}
	if answer != nil {
		c.SetAnswer(answer)
		params["approvalPolicy"], params["sandbox"] = "on-request", "workspace-write"
	}
	if err := c.Initialize(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	tid, err := c.StartThread(ctx, params)
	if err != nil {
		t.Fatalf("thread/start: %v", err)
	}
	conv := conversation{thread: tid}
	for i, p := range prompts {
		mark := c.Mark()
		turn, err := c.StartTurn(ctx, tid, p)
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		end, _, err := c.WaitTurnCompleted(ctx, mark, turn)
		if err != nil || end.Status != "completed" {
			t.Fatalf("turn %d: %+v %v", i+1, end, err)
		}
		text := ""
		for _, e := range c.Events(mark) {
			var p struct {
				ThreadID string `json:"threadId"`
				Item     struct {
					Type, Text string
				} `json:"item"`
			}
			if e.Method == "item/completed" && json.Unmarshal(e.Params, &p) == nil && p.Item.Type == "agentMessage" {
				if p.ThreadID != tid {
					t.Errorf("turn %d: item/completed names thread %s, the client's is %s", i+1, p.ThreadID, tid)
				}
				text = p.Item.Text
			}
		}
		conv.replies = append(conv.replies, text)
	}
	return conv
}

// hermetic is a real codex with a fake model of turns replies.
func hermetic(t *testing.T, turns int) (command, env []string, dir string) {
	t.Helper()
	return hermeticModel(t, fakeModel(t, turns))
}

// hermeticModel is a real codex with the fake model m.
func hermeticModel(t *testing.T, m *fakemodel.Server) (command, env []string, dir string) {
	t.Helper()
	bin := codextest.Binary(t, codexbin.Newest)
	env, _ = codextest.Env(t)
	return append([]string{bin}, codextest.FakeProviderArgs(m.URL())...), env, t.TempDir()
}

// recordOneTurn records a one-turn session with the real codex at path.
func recordOneTurn(t *testing.T, path string) {
	t.Helper()
	command, env, dir := hermetic(t, 1)
	conv := recordWith(t, path, command, env, dir, nil, "Say hello.")
	if conv.replies[0] != replies[0] {
		t.Fatalf("recorded turn replied %q", conv.replies[0])
	}
}

// recordWith records a session of the real codex command at path.
func recordWith(t *testing.T, path string, command, env []string, dir string, answer client.AnswerFunc, prompts ...string) conversation {
	t.Helper()
	s := &record.Session{}
	if err := s.Create(path, recorder.Header{Command: command}, recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env, cmd.Dir = env, dir
	toR, toW := io.Pipe()
	fromR, fromW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), &proxy.Proxy{}, cmd, toR, fromW, io.Discard)
		fromW.Close()
		done <- err
	}()
	conv := talkAnswering(t, fromR, toW, dir, answer, prompts...)
	if err := <-done; err != nil {
		t.Fatalf("recording: %v", err)
	}
	return conv
}

// TestExtendSecondTurn: a client that has a second turn the one-turn recording
// lacks gets the first from the replay and the second from the real codex, which
// was caught up with the first; the recording gains a segment extending the
// first, which then replays both turns with CI set, where extend is refused.
func TestExtendSecondTurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one-turn.jsonl")
	recordOneTurn(t, path)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	command, env, dir := hermetic(t, 2) // the catch-up runs turn 1 again
	cIn, sOut := io.Pipe()
	sIn, cOut := io.Pipe()
	var log bytes.Buffer
	type outcome struct {
		res extend.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := extend.Run(context.Background(), extend.Options{Path: path, Command: command, Env: env, Dir: dir,
			In: sIn, Out: sOut, Log: &log, Getenv: func(string) string { return "" }})
		sOut.Close()
		done <- outcome{res, err}
	}()
	conv := talk(t, cIn, cOut, dir, "Say hello.", "Say it again.")
	out := <-done
	if out.err != nil {
		t.Fatalf("extend: %v\n%s", out.err, log.String())
	}
	if want := replies; conv.replies[0] != want[0] || conv.replies[1] != want[1] {
		t.Fatalf("replies %q, want %q\n%s", conv.replies, want, log.String())
	}
	if !out.res.Extended || out.res.Segment != 2 || out.res.CaughtUp < 3 || out.res.Mapped == 0 {
		t.Fatalf("result %+v\n%s", out.res, log.String())
	}
	if !strings.Contains(log.String(), "client line 5 is not in") {
		t.Errorf("log does not say where the replay handed off:\n%s", log.String())
	}

	// The recording: the original's entries byte for byte, then segment 2.
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	orig := bytes.SplitAfter(before, []byte("\n"))
	orig = orig[:len(orig)-2] // the trailer and the empty tail
	if !bytes.HasPrefix(after, bytes.Join(orig, nil)) {
		t.Fatalf("the extended recording does not begin with the original's entries")
	}
	rest := after[len(bytes.Join(orig, nil)):]
	if !bytes.HasPrefix(rest, []byte(`{"type":"segment",`)) || !bytes.Contains(rest[:bytes.IndexByte(rest, '\n')], []byte(`"segment":2,"extends":1`)) {
		t.Fatalf("after the original comes %.200s", rest)
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if p := rec.Problems; len(p) > 0 {
		t.Fatalf("problems: %v", p)
	}
	if rec.Trailer == nil || rec.Trailer.Segments != 1 || rec.Trailer.Ended != recorder.EndClientEOF {
		t.Fatalf("trailer %+v", rec.Trailer)
	}
	sc, err := replay.LoadFile(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Segment != 2 {
		t.Fatalf("segment 1 is served as segment %d, want its extension 2", sc.Segment)
	}
	turns := 0
	for _, c := range sc.Client {
		if c.Msg.Method == "turn/start" {
			turns++
		}
	}
	if turns != 2 {
		t.Fatalf("the served segment holds %d turn/start, want 2", turns)
	}

	// CI: extend is refused, plain replay serves both turns without codex.
	ci := func(k string) string {
		if k == "CI" {
			return "true"
		}
		return ""
	}
	if _, err := extend.Run(context.Background(), extend.Options{Path: path, Command: command, Getenv: ci,
		In: strings.NewReader(""), Out: io.Discard}); !errors.Is(err, shim.ErrCI) {
		t.Fatalf("extend under CI: %v, want shim.ErrCI", err)
	}
	cIn, sOut = io.Pipe()
	sIn, cOut = io.Pipe()
	served := make(chan error, 1)
	go func() {
		srv := &replay.Server{Script: sc, Log: &log}
		err := srv.Serve(context.Background(), sIn, sOut)
		sOut.Close()
		served <- err
	}()
	again := talk(t, cIn, cOut, dir, "Say hello.", "Say it again.")
	if err := <-served; err != nil {
		t.Fatalf("replaying the extended recording: %v\n%s", err, log.String())
	}
	if again.replies[0] != replies[0] || again.replies[1] != replies[1] {
		t.Fatalf("replayed replies %q", again.replies)
	}
}

// TestExtendChangedPrompt: a client whose prompt changed since the recording is
// handed to the real codex at that turn/start, after initialize and thread/start
// were replayed and caught up; the thread id the replay gave it goes on working.
func TestExtendChangedPrompt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one-turn.jsonl")
	recordOneTurn(t, path)
	command, env, dir := hermetic(t, 1)
	cIn, sOut := io.Pipe()
	sIn, cOut := io.Pipe()
	var log bytes.Buffer
	done := make(chan error, 1)
	var res extend.Result
	go func() {
		var err error
		res, err = extend.Run(context.Background(), extend.Options{Path: path, Command: command, Env: env, Dir: dir,
			In: sIn, Out: sOut, Log: &log, Getenv: func(string) string { return "" }})
		sOut.Close()
		done <- err
	}()
	conv := talk(t, cIn, cOut, dir, "Say something else.")
	if err := <-done; err != nil {
		t.Fatalf("extend: %v\n%s", err, log.String())
	}
	if conv.replies[0] != replies[0] || res.Handoff == nil || res.Handoff.Line != 4 || res.CaughtUp != 3 {
		t.Fatalf("replies %q, result %+v\n%s", conv.replies, res, log.String())
	}
	if !strings.Contains(log.String(), "request turn/start differs from the recorded one") {
		t.Errorf("the log does not say why the replay handed off:\n%s", log.String())
	}
	sc, err := replay.LoadFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, c := range sc.Client {
		if c.Msg.Method == "turn/start" {
			prompts = append(prompts, string(c.Line))
		}
	}
	if sc.Segment != 2 || len(prompts) != 1 || !strings.Contains(prompts[0], "Say something else.") {
		t.Fatalf("served segment %d with turn/start %q", sc.Segment, prompts)
	}
}

// approvalModel asks to run a command that needs approval, then says reply.
func approvalModel(t *testing.T, reply string) *fakemodel.Server {
	t.Helper()
	m, err := fakemodel.Start([]fakemodel.Response{
		{Output: []fakemodel.Item{{Type: "function_call", Name: "exec_command",
			Arguments: json.RawMessage(`{"cmd":"echo hello from codexrec","login":false,"sandbox_permissions":"require_escalated","justification":"Print a greeting"}`)}}},
		{Output: []fakemodel.Item{{Type: "message", Text: reply}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func decide(decision string, asked *int) client.AnswerFunc {
	return func(method string, _ json.RawMessage) (any, bool) {
		*asked++
		return map[string]any{"decision": decision}, method == "item/commandExecution/requestApproval"
	}
}

// TestExtendDeclinedApproval: the recording accepted an approval; a client that
// declines it is handed off at its answer: the catch-up waits for the real
// server's approval request and sends the answer with that request's id.
func TestExtendDeclinedApproval(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approval.jsonl")
	command, env, dir := hermeticModel(t, approvalModel(t, "The command printed: hello from codexrec"))
	asked := 0
	if conv := recordWith(t, path, command, env, dir, decide("accept", &asked), "Print a greeting with echo."); asked != 1 || conv.replies[0] == "" {
		t.Fatalf("recording the approval: asked %d times, replies %q", asked, conv.replies)
	}

	command, env, dir = hermeticModel(t, approvalModel(t, "The command was declined."))
	cIn, sOut := io.Pipe()
	sIn, cOut := io.Pipe()
	var log bytes.Buffer
	done := make(chan error, 1)
	var res extend.Result
	go func() {
		var err error
		res, err = extend.Run(context.Background(), extend.Options{Path: path, Command: command, Env: env, Dir: dir,
			In: sIn, Out: sOut, Log: &log, Getenv: func(string) string { return "" }})
		sOut.Close()
		done <- err
	}()
	asked = 0
	conv := talkAnswering(t, cIn, cOut, dir, decide("decline", &asked), "Print a greeting with echo.")
	if err := <-done; err != nil {
		t.Fatalf("extend: %v\n%s", err, log.String())
	}
	if asked != 1 || conv.replies[0] != "The command was declined." || res.Handoff == nil || res.Handoff.Msg.Kind.String() != "response" {
		t.Fatalf("asked %d, replies %q, handoff %+v\n%s", asked, conv.replies, res.Handoff, log.String())
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The real server's approval request and the answer sent to it, in segment 2,
	// carry the same id.
	var reqID, ansID string
	for _, e := range rec.Segments()[len(rec.Segments())-1] {
		switch {
		case e.Type == recorder.TypeFrame && e.Msg.Method == "item/commandExecution/requestApproval" && e.Msg.Kind.String() == "request":
			reqID = string(e.Msg.ID)
		case e.Type == recorder.TypeFrame && e.Dir.String() == "c2s" && e.Msg.Kind.String() == "response":
			ansID = string(e.Msg.ID)
			if !bytes.Contains(e.Line, []byte(`"decline"`)) {
				t.Errorf("the answer sent to the real server: %s", e.Line)
			}
		}
	}
	if reqID == "" || reqID != ansID {
		t.Fatalf("the real server asked with id %q, the answer went with id %q", reqID, ansID)
	}
}

// TestExtendCatchUpFails: a server that never answers (cat reading into
// /dev/null, which no codex can be made to be), or one that exits at once, cannot
// be caught up: the client's pending request gets an error, Run fails with
// ErrCatchUp naming what was missing, and the recording is left as it was.
func TestExtendCatchUpFails(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command []string
		says    string
	}{
		{"silent", []string{"sh", "-c", "exec cat >/dev/null"}, "did not send the answer to request id 0 (0 of 1), the answer to request id 1 (0 of 1), the answer to request id 2 (0 of 1) within 300ms"},
		{"exits", []string{"true"}, "the real server exited"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join("..", "fixtures", "hermetic", codexbin.Newest, "plain.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "plain.jsonl")
			if err := os.WriteFile(path, orig, 0o600); err != nil {
				t.Fatal(err)
			}
			sc, err := replay.LoadFile(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			var in bytes.Buffer
			for _, c := range sc.Client {
				in.Write(c.Line)
			}
			in.WriteString(`{"id":9,"method":"thread/list","params":{"cursor":"never recorded"}}` + "\n")
			cIn, sOut := io.Pipe()
			done := make(chan error, 1)
			go func() {
				_, err := extend.Run(context.Background(), extend.Options{Path: path, Command: tc.command, CatchUp: 300 * time.Millisecond,
					In: &in, Out: sOut, Getenv: func(string) string { return "" }})
				sOut.Close()
				done <- err
			}()
			out, _ := io.ReadAll(cIn)
			err = <-done
			if !errors.Is(err, extend.ErrCatchUp) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Run: %v, want ErrCatchUp saying %q", err, tc.says)
			}
			last := out[bytes.LastIndexByte(out[:len(out)-1], '\n')+1:]
			if !bytes.HasPrefix(last, []byte(`{"error":{"code":-32603,"message":"extend: catching the real server up failed`)) || !bytes.HasSuffix(last, []byte(`"id":9}`+"\n")) {
				t.Fatalf("the client's last line: %s", last)
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
				t.Fatal("a failed catch-up changed the recording")
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp")); len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}
