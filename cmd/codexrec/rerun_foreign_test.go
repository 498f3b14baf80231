package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
)

// indieModel is a Responses API server written for this test, on purpose unlike
// fixtures/fakemodel: other id styles (hex item ids, opaque call ids), other usage
// numbers per response, rate-limit headers, and the extra events the real API sends
// (response.in_progress, content parts, *.done). It stands for "any model server" a
// user's recording was made against: the real API cannot be used in a test.
type indieModel struct {
	mu   sync.Mutex
	n    int
	errs []string
}

func (m *indieModel) fail(format string, a ...any) {
	m.mu.Lock()
	m.errs = append(m.errs, fmt.Sprintf(format, a...))
	m.mu.Unlock()
}

func (m *indieModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/responses" {
		m.fail("unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, "not here", http.StatusNotFound)
		return
	}
	m.mu.Lock()
	m.n++
	n := m.n
	m.mu.Unlock()
	respID := fmt.Sprintf("resp_0c%02d9fa51e7d3b64", n)
	item := func(kind string, i int) string { return fmt.Sprintf("%s_68f%02d%02dab4e2c9d0", kind, n, i) }
	var events [][2]any // event type, data
	add := func(typ string, data map[string]any) {
		data["type"] = typ
		events = append(events, [2]any{typ, data})
	}
	var output []any
	message := func(i int, text, phase string) {
		id := item("msg", i)
		added := map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
		if phase != "" {
			added["phase"] = phase
		}
		add("response.output_item.added", map[string]any{"output_index": i, "item": added})
		add("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for k := 0; k < len(text); k += 7 {
			add("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": text[k:min(k+7, len(text))]})
		}
		add("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": text})
		part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
		add("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part})
		done := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
		if phase != "" {
			done["phase"] = phase
		}
		add("response.output_item.done", map[string]any{"output_index": i, "item": done})
		output = append(output, done)
	}
	add("response.created", map[string]any{"response": map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": "gpt-indie", "output": []any{}}})
	add("response.in_progress", map[string]any{"response": map[string]any{"id": respID, "object": "response", "status": "in_progress"}})
	switch n {
	case 1: // turn 1: reasoning in two summary parts, then a message
		id := item("rs", 0)
		parts := [][]string{{"Considering ", "how to ", "greet."}, {"A short ", "reply will do."}}
		add("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
		var summary []any
		for si, deltas := range parts {
			text := strings.Join(deltas, "")
			add("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": 0, "summary_index": si, "part": map[string]any{"type": "summary_text", "text": ""}})
			for _, d := range deltas {
				add("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": 0, "summary_index": si, "delta": d})
			}
			add("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": 0, "summary_index": si, "text": text})
			add("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": 0, "summary_index": si, "part": map[string]any{"type": "summary_text", "text": text}})
			summary = append(summary, map[string]any{"type": "summary_text", "text": text})
		}
		done := map[string]any{"id": id, "type": "reasoning", "summary": summary}
		add("response.output_item.done", map[string]any{"output_index": 0, "item": done})
		output = append(output, done)
		message(1, "Greetings from an independent model server, which numbers nothing like the fake one.", "")
	case 2: // turn 2: an escalated command
		if !strings.Contains(string(body), "Run a command.") {
			m.fail("request 2 does not carry the second turn's text")
		}
		// The sleep makes the output arrive after Codex's first wait, so that it is
		// streamed as an outputDelta every time (see docs/capture.md, approval-accept).
		args, _ := json.Marshal(map[string]any{"cmd": "sleep 1; echo indie", "login": false, "sandbox_permissions": "require_escalated", "justification": "to print a word"})
		call := map[string]any{"id": item("fc", 0), "type": "function_call", "status": "completed", "call_id": fmt.Sprintf("call_Zq%dW8kPpT3", n), "name": "exec_command", "arguments": string(args)}
		add("response.output_item.added", map[string]any{"output_index": 0, "item": call})
		add("response.function_call_arguments.done", map[string]any{"item_id": item("fc", 0), "output_index": 0, "arguments": string(args)})
		add("response.output_item.done", map[string]any{"output_index": 0, "item": call})
		output = append(output, call)
	case 3: // the command's output comes back
		if !strings.Contains(string(body), "function_call_output") || !strings.Contains(string(body), "call_Zq2W8kPpT3") {
			m.fail("request 3 does not carry the command's output")
		}
		message(0, "The command printed indie.", "final_answer")
	default:
		m.fail("unscripted request %d", n)
		http.Error(w, "unscripted", http.StatusBadRequest)
		return
	}
	in, cached, out, reasoning := int64(2000+37*n), int64(1024), int64(61+5*n), int64(13*n)
	add("response.completed", map[string]any{"response": map[string]any{"id": respID, "object": "response", "status": "completed", "model": "gpt-indie", "output": output,
		"usage": map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": cached},
			"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": reasoning}, "total_tokens": in + out}}})

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("x-request-id", fmt.Sprintf("req_%d7c1", n))
	h.Set("x-codex-primary-used-percent", fmt.Sprintf("%.1f", 12.5+float64(n)))
	h.Set("x-codex-primary-window-minutes", "300")
	h.Set("x-codex-primary-reset-at", fmt.Sprint(1796000000+60*n))
	h.Set("x-codex-secondary-used-percent", "41")
	h.Set("x-codex-secondary-window-minutes", "10080")
	h.Set("x-codex-credits-has-credits", "true")
	h.Set("x-codex-credits-unlimited", "false")
	h.Set("x-codex-credits-balance", "17.25")
	w.WriteHeader(http.StatusOK)
	for _, ev := range events {
		data, _ := json.Marshal(ev[1])
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev[0], data)
		w.(http.Flusher).Flush()
	}
}

// jsonrpcClient drives an app-server over its stdio, line by line: a client written
// for this test, not the capture's scripted one.
type jsonrpcClient struct {
	t     *testing.T
	in    io.Writer
	lines chan string
	next  int
}

func (c *jsonrpcClient) send(v map[string]any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

func (c *jsonrpcClient) request(method string, params any) gjson.Result {
	c.t.Helper()
	c.next++
	id := c.next
	c.send(map[string]any{"id": id, "method": method, "params": params})
	return c.await(func(m gjson.Result) bool { return !m.Get("method").Exists() && m.Get("id").Int() == int64(id) })
}

// await reads server messages until want matches one, answering approval requests.
func (c *jsonrpcClient) await(want func(gjson.Result) bool) gjson.Result {
	c.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.t.Fatal("the server closed its stdout")
			}
			m := gjson.Parse(l)
			if m.Get("method").Str == "item/commandExecution/requestApproval" {
				c.send(map[string]any{"id": m.Get("id").Value(), "result": map[string]any{"decision": "accept"}})
			}
			if m.Get("error").Exists() {
				c.t.Fatalf("error from the server: %s", l)
			}
			if want(m) {
				return m
			}
		case <-timeout:
			c.t.Fatal("timed out waiting for the server")
		}
	}
}

// TestRerunForeignRecordingIsEqual: a session recorded (with default flags) against
// a model server other than codexrec's fake model, rerun on the same Codex version,
// diffs equal: the rebuilt model script carries the recorded ids, text, usage and
// rate limits.
func TestRerunForeignRecordingIsEqual(t *testing.T) {
	v := codexbin.Newest
	codex := codextest.Binary(t, v)
	model := &indieModel{}
	srv := httptest.NewServer(model)
	defer srv.Close()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o700)
	rec := filepath.Join(dir, "indie.jsonl")
	env, _ := codextest.Env(t)
	cmd := exec.Command(codexrecBin, "record", "-o", rec, "--", codex, "app-server",
		"-c", "model_provider=indie", "-c", "model=gpt-indie",
		"-c", `model_providers.indie={name="Indie",base_url="`+srv.URL+`/api/v1",env_key="FAKE_API_KEY",wire_api="responses"}`)
	cmd.Env = env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	c := &jsonrpcClient{t: t, in: stdin, lines: lines}
	c.request("initialize", map[string]any{"clientInfo": map[string]any{"name": "indie_client", "title": "Indie", "version": "2.1.0"}})
	c.send(map[string]any{"method": "initialized"})
	th := c.request("thread/start", map[string]any{"cwd": work, "approvalPolicy": "on-request", "sandbox": "workspace-write"})
	thread := th.Get("result.thread.id").Str
	for _, text := range []string{"Say hello.", "Run a command."} {
		c.request("turn/start", map[string]any{"threadId": thread, "input": []any{map[string]any{"type": "text", "text": text}}})
		c.await(func(m gjson.Result) bool { return m.Get("method").Str == "turn/completed" })
	}
	stdin.Close()
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	if len(model.errs) > 0 || model.n != 3 {
		t.Fatalf("the independent model server saw %d requests: %q", model.n, model.errs)
	}

	// The recording shows the independent server's values.
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":"msg_68f0101ab4e2c9d0"`, `"id":"rs_68f0100ab4e2c9d0"`, `"id":"call_Zq2W8kPpT3"`,
		`"inputTokens":2037`, `"usedPercent":14`, `"balance":"17.25"`, `"modelProvider":"indie"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the recording lacks %s", want)
		}
	}

	if k := os.Getenv("CODEXREC_KEEP_FOREIGN"); k != "" {
		os.WriteFile(k, b, 0o600)
	}
	out := filepath.Join(dir, "rerun.jsonl")
	r := runCodexrec(t, "", nil, "rerun", "--codex-version", v, "-o", out, rec)
	t.Logf("rerun: exit %d\n%s", r.code, r.stderr)
	if r.code != 0 {
		t.Fatalf("rerun: exit %d", r.code)
	}
	// diff masks times and paths, not these: the rerun's model sent them again.
	rb, _ := os.ReadFile(out)
	for _, want := range []string{`"id":"msg_68f0101ab4e2c9d0"`, `"id":"call_Zq2W8kPpT3"`, `"inputTokens":2111`, `"usedPercent":16`, `"balance":"17.25"`} {
		if !strings.Contains(string(rb), want) {
			t.Errorf("the rerun lacks %s", want)
		}
	}
	d := runCodexrec(t, "", nil, "diff", "--ignore-moves", rec, out)
	if d.code != 0 {
		t.Fatalf("diff --ignore-moves: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}
	t.Logf("diff --ignore-moves: exit 0\n%s", d.stdout)
}
