package main_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

type checkReport struct {
	Recordings []struct {
		Findings []struct {
			Rule, Severity, Method, ID, Message string
			Seqs                                []int64
		}
	}
}

func checkJSON(t *testing.T, path string, args ...string) (checkReport, int) {
	t.Helper()
	r := runCodexrec(t, "", nil, append(append([]string{"check", "--json"}, args...), path)...)
	var rep checkReport
	if err := json.Unmarshal(r.stdout, &rep); err != nil || len(rep.Recordings) != 1 {
		t.Fatalf("check --json %s (exit %d): %v\n%s%s", path, r.code, err, r.stdout, r.stderr)
	}
	return rep, r.code
}

// TestCheckRealErrorResponses: the real server answers a request sent before
// initialize and a method it does not have with JSON-RPC errors; check reports each as
// error-response (a warning) with its code and message, paired with its request, and
// the unknown method itself as schema/unknown-method (an error: the client is wrong).
func TestCheckRealErrorResponses(t *testing.T) {
	bin := codextest.Binary(t, codexbin.Newest)
	env, _ := codextest.Env(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "errors.jsonl")
	sess := startSession(t, dir, env, append([]string{"record", "-o", out, "--", bin}, codextest.FakeProviderArgs("http://127.0.0.1:9/v1")...)...)
	for _, call := range []struct{ line, id string }{
		{`{"id":1,"method":"thread/start","params":{}}`, "1"},
		{`{"id":2,"method":"initialize","params":{"clientInfo":{"name":"codexrec-test","title":"t","version":"1"}}}`, "2"},
		{`{"id":3,"method":"thread/no-such-method","params":{}}`, "3"},
	} {
		sess.send(call.line)
		sess.waitResponse(call.id)
	}
	if code := sess.finish(); code != 0 {
		t.Fatalf("record: exit %d; stderr:\n%s", code, sess.stderr)
	}

	rec, err := recorder.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	seqs := map[string][2]int64{} // request id -> request seq, response seq
	for _, e := range rec.Frames() {
		if e.Msg.ID != "" {
			s := seqs[string(e.Msg.ID)]
			if e.Msg.Kind == wire.KindRequest {
				s[0] = e.Seq
			} else {
				s[1] = e.Seq
			}
			seqs[string(e.Msg.ID)] = s
		}
	}
	rep, code := checkJSON(t, out)
	if code != 1 {
		t.Errorf("exit %d, want 1 (schema/unknown-method is an error)", code)
	}
	var got []string
	for _, f := range rep.Recordings[0].Findings {
		switch f.Rule {
		case "error-response":
			got = append(got, f.Rule+" "+f.ID)
			s := seqs[f.ID]
			if f.Severity != "warning" || len(f.Seqs) != 2 || f.Seqs[0] != s[1] || f.Seqs[1] != s[0] || !strings.Contains(f.Message, "error -32600") {
				t.Errorf("finding %+v (request and response frames %v)", f, s)
			}
		case "schema/unknown-method":
			got = append(got, f.Rule)
			if f.Severity != "error" || len(f.Seqs) != 1 || f.Seqs[0] != seqs["3"][0] {
				t.Errorf("finding %+v (request frame %d)", f, seqs["3"][0])
			}
		case "stderr-error":
		default:
			t.Errorf("unexpected finding %+v", f)
		}
	}
	if strings.Join(got, ",") != "error-response 1,schema/unknown-method,error-response 3" {
		t.Errorf("findings %v, want error-response for ids 1 and 3 and schema/unknown-method", got)
	}
}

// TestCheckRealServerExit: the real binary refuses an unknown flag and exits 2; the
// recording of that says so, and check reports server-exit.
func TestCheckRealServerExit(t *testing.T) {
	bin := codextest.Binary(t, codexbin.Newest)
	env, _ := codextest.Env(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "exit.jsonl")
	cmd := exec.Command(codexrecBin, "record", "-o", out, "--", bin, "app-server", "--no-such-flag")
	cmd.Dir, cmd.Env = dir, env
	cmd.Run() // record exits with the server's code
	rep, code := checkJSON(t, out)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	var rules []string
	for _, f := range rep.Recordings[0].Findings {
		if f.Severity == "error" {
			rules = append(rules, f.Rule+": "+f.Message)
		}
	}
	if len(rules) != 1 || !strings.HasPrefix(rules[0], "server-exit: server lifetime 1 exited with code 2") {
		t.Errorf("errors %q, want one server-exit with code 2", rules)
	}
}
