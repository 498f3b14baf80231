package schema_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/wire"
)

// session drives a real codex app-server over its stdio and keeps every line that
// crossed, in order, as the proxy would have tapped them.
type session struct {
	t      testing.TB
	stdin  io.WriteCloser
	cmd    *exec.Cmd
	mu     sync.Mutex
	frames []wire.Frame
	lines  chan string
	nextID int
}

func (s *session) add(dir wire.Direction, line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frames = append(s.frames, wire.Frame{Seq: int64(len(s.frames) + 1), Dir: dir, Line: []byte(line)})
}

// send writes one message; the frame is kept before the server can answer it.
func (s *session) send(msg string) {
	s.add(wire.ClientToServer, msg+"\n")
	if _, err := io.WriteString(s.stdin, msg+"\n"); err != nil {
		s.t.Fatalf("writing to codex: %v", err)
	}
}

// request sends method with params and waits for its answer, handling what the server
// asks in between with answer.
func (s *session) request(method, params string, answer func(line string) string) string {
	s.nextID++
	id := fmt.Sprint(s.nextID)
	s.send(fmt.Sprintf(`{"id":%s,"method":%q,"params":%s}`, id, method, params))
	return s.await(func(l string) bool { return gjson.Get(l, "id").Raw == id && !gjson.Get(l, "method").Exists() }, answer)
}

// await reads server lines until pred holds, answering server requests on the way.
func (s *session) await(pred func(string) bool, answer func(string) string) string {
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("codex closed its stdout")
			}
			if gjson.Get(l, "method").Exists() && gjson.Get(l, "id").Exists() && answer != nil {
				s.send(answer(l))
			}
			if pred(l) {
				return l
			}
		case <-timeout:
			s.t.Fatalf("timed out waiting for codex")
		}
	}
}

// fakeModel answers POST /v1/responses with a scripted SSE stream: first a shell tool
// call that needs approval, then a short message. (Fake: the real model is not
// reachable in tests; the app-server itself is real.)
func fakeModel(t testing.TB) string {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(typ, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data) }
		id := fmt.Sprintf("resp_%d", n)
		ev("response.created", `{"type":"response.created","response":{"id":"`+id+`"}}`)
		if n == 1 {
			args := `{\"cmd\":\"echo hi\",\"sandbox_permissions\":\"require_escalated\",\"justification\":\"test\"}`
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"exec_command","arguments":"`+args+`"}}`)
		} else {
			ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"message","role":"assistant","id":"msg_1","content":[]}}`)
			for _, d := range []string{"Hello", " from", " the fake model."} {
				ev("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"`+d+`"}`)
			}
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message","role":"assistant","id":"msg_1","content":[{"type":"output_text","text":"Hello from the fake model.","annotations":[]}]}}`)
		}
		ev("response.completed", `{"type":"response.completed","response":{"id":"`+id+`","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}}}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// realSession runs a whole session with the real codex of version: handshake, a
// thread, a turn with an approved shell command and a streamed reply, some reads.
func realSession(t testing.TB, version string, experimentalAPI bool) []wire.Frame {
	t.Helper()
	bin := codextest.Binary(t, version)
	env, _ := codextest.Env(t)
	cmd := exec.Command(bin, codextest.FakeProviderArgs(fakeModel(t))...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, stdin: stdin, cmd: cmd, lines: make(chan string, 1024)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(s.lines)
		br := bufio.NewReader(stdout)
		for {
			l, err := br.ReadString('\n')
			if l != "" {
				s.add(wire.ServerToClient, l)
				s.lines <- strings.TrimSuffix(l, "\n")
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		stdin.Close()
		go func() {
			for range s.lines {
			}
		}()
		waited := make(chan struct{})
		go func() { cmd.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-waited
		}
		<-done
	}()

	caps := ""
	if experimentalAPI {
		caps = `,"capabilities":{"experimentalApi":true}`
	}
	s.request("initialize", `{"clientInfo":{"name":"codexrec-test","title":"codexrec test","version":"1"}`+caps+`}`, nil)
	s.send(`{"method":"initialized"}`)
	started := s.request("thread/start", fmt.Sprintf(`{"cwd":%q,"approvalPolicy":"on-request","sandbox":"workspace-write"}`, cmd.Dir), nil)
	thread := gjson.Get(started, "result.thread.id").Str
	if thread == "" {
		t.Fatalf("thread/start answered %s", started)
	}
	approve := func(l string) string {
		return fmt.Sprintf(`{"id":%s,"result":{"decision":"accept"}}`, gjson.Get(l, "id").Raw)
	}
	s.request("turn/start", fmt.Sprintf(`{"threadId":%q,"input":[{"type":"text","text":"say hello"}]}`, thread), approve)
	s.await(func(l string) bool { return gjson.Get(l, "method").Str == "turn/completed" }, approve)
	s.request("thread/read", fmt.Sprintf(`{"threadId":%q,"includeTurns":true}`, thread), nil)
	s.request("thread/list", `{}`, nil)
	s.request("model/list", `{}`, nil)
	s.request("config/read", `{}`, nil)
	// A request the server refuses: its error response is checked against the error shape.
	s.request("thread/read", `{"threadId":"00000000-0000-0000-0000-000000000000"}`, nil)
	stdin.Close()
	<-done
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]wire.Frame(nil), s.frames...)
}
