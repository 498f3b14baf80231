package sanitize_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/fixtures/fakemodel"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

// realSession is the traffic of one session with the real codex app-server.
type realSession struct {
	lines     []string // c2s, s2c and stderr lines, in arrival order per stream
	codexHome string
	workspace string
	env       []string
}

// runRealSession drives the real binary through a turn in which the model (the
// fakemodel package, on loopback) runs a command printing hashes, UUIDs and
// timestamps, then asks for thread, model, config and skills lists: the kind of
// high-entropy traffic the rules must not flag.
func runRealSession(t testing.TB, version string) realSession {
	t.Helper()
	bin := codextest.Binary(t, version)
	env, home := codextest.Env(t)
	work := t.TempDir()
	model, err := fakemodel.Start([]fakemodel.Response{
		{Output: []fakemodel.Item{{Type: "function_call", Name: "exec_command",
			Arguments: json.RawMessage(`{"cmd":"echo hello; echo abc | sha256sum; echo abc | sha1sum; cat /proc/sys/kernel/random/uuid; date -u +%s%N; date -u --iso-8601=ns; head -c 24 /dev/urandom | base64","sandbox_permissions":"require_escalated","justification":"Print some ids"}`)}}},
		{Expect: []string{"hello"}, Output: []fakemodel.Item{{Type: "message", Text: "The command printed a greeting, two hashes, a UUID and timestamps."}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	cmd := exec.Command(bin, codextest.FakeProviderArgs(model.URL())...)
	cmd.Env, cmd.Dir = env, work
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	var mu sync.Mutex
	s := realSession{codexHome: home, workspace: work, env: env}
	add := func(l string) { mu.Lock(); s.lines = append(s.lines, l); mu.Unlock() }
	send := func(l string) { add(l); io.WriteString(stdin, l+"\n") }
	got := make(chan string, 1024)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			add(sc.Text())
		}
	}()
	go func() {
		defer wg.Done()
		defer close(got)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			add(sc.Text())
			got <- sc.Text()
		}
	}()
	waitFor := func(what string, pred func(string) bool) string {
		t.Helper()
		timeout := time.After(60 * time.Second)
		for {
			select {
			case l, ok := <-got:
				if !ok {
					t.Fatalf("%s: codex %s closed its stdout", what, version)
				}
				m := gjson.Parse(l)
				if m.Get("method").Exists() && m.Get("id").Exists() {
					send(`{"id":` + m.Get("id").Raw + `,"result":{"decision":"accept"}}`)
				}
				if pred(l) {
					return l
				}
			case <-timeout:
				t.Fatalf("%s: timed out (codex %s)", what, version)
			}
		}
	}
	byID := func(id string) func(string) bool {
		return func(l string) bool { return gjson.Get(l, "id").Raw == id && !gjson.Get(l, "method").Exists() }
	}
	send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"codexrec-sanitize-test","title":"t","version":"1"}}}`)
	waitFor("initialize", byID("1"))
	send(`{"method":"initialized"}`)
	send(`{"id":2,"method":"thread/start","params":{"cwd":` + q(work) + `,"approvalPolicy":"on-request","sandbox":"workspace-write"}}`)
	thread := gjson.Get(waitFor("thread/start", byID("2")), "result.thread.id").Str
	send(`{"id":3,"method":"turn/start","params":{"threadId":"` + thread + `","input":[{"type":"text","text":"Print some ids.","text_elements":[]}]}}`)
	waitFor("turn/completed", func(l string) bool { return gjson.Get(l, "method").Str == "turn/completed" })
	for i, m := range []string{"thread/list", "model/list", "config/read", "skills/list", "thread/read"} {
		params := "{}"
		if m == "thread/read" {
			params = `{"threadId":"` + thread + `","includeTurns":true}`
		}
		send(fmt.Sprintf(`{"id":%d,"method":%q,"params":%s}`, 10+i, m, params))
		waitFor(m, byID(fmt.Sprint(10+i)))
	}
	stdin.Close()
	wg.Wait()
	cmd.Wait()
	if err := model.Err(); err != nil {
		t.Fatalf("fake model: %v", err)
	}
	return s
}

// TestNoFalsePositivesOnRealTraffic runs real sessions of both pinned versions (and
// scans the committed hermetic fixtures when they exist): thread, turn and item ids
// (UUIDv7), hashes, timestamps and base64 output must give no redaction (path maps
// aside) and no guard finding.
func TestNoFalsePositivesOnRealTraffic(t *testing.T) {
	for _, v := range codexbin.Versions {
		t.Run(v, func(t *testing.T) {
			s := runRealSession(t, v)
			getenv := func(k string) string {
				for _, kv := range s.env {
					if strings.HasPrefix(kv, k+"=") {
						return kv[len(k)+1:]
					}
				}
				return ""
			}
			z, err := sanitize.New(sanitize.Options{Maps: sanitize.DefaultMaps(s.workspace, getenv)})
			if err != nil {
				t.Fatal(err)
			}
			var bytesN int
			for _, l := range s.lines {
				bytesN += len(l)
				if _, reds := z.Frame([]byte(l)); len(reds) > 0 {
					t.Errorf("false positive %v in %.300s", reds, l)
				}
			}
			if err := writeRecording(t, s.lines, z.Guard); err != nil {
				t.Errorf("the guard refused real traffic: %v", err)
			}
			joined := strings.Join(s.lines, "\n")
			// The command's output (sha256 of "abc\n") proves the high-entropy text was there.
			// It arrives in output deltas or, when the command ends before codex streams it
			// (seen with 0.163.0 in one run of several), only in the item's aggregatedOutput.
			for _, want := range []string{`"aggregatedOutput"`, "turn/completed", "thread/started", "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb"} {
				if !strings.Contains(joined, want) {
					t.Errorf("the session has no %s: it did not exercise what it should", want)
				}
			}
			t.Logf("codex %s: %d lines, %d bytes, no findings", v, len(s.lines), bytesN)
		})
	}
	t.Run("fixtures", func(t *testing.T) {
		root, err := codexbin.ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		// Every committed recording under fixtures/ (hermetic captures, WebSocket ones
		// in ws/, any other).
		var files []string
		filepath.WalkDir(filepath.Join(root, "fixtures"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
		if len(files) == 0 {
			t.Fatal("no fixtures/hermetic recordings (committed; make fixtures writes them)")
		}
		z, _ := sanitize.New(sanitize.Options{})
		frames := 0
		for _, f := range files {
			if err := z.Guard(f); err != nil {
				t.Errorf("%s: %v", f, err)
			}
			rec, err := recorder.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range rec.Frames() {
				frames++
				if out, reds := z.Frame(e.Line); len(reds) > 0 || string(out) != string(e.Line) {
					t.Errorf("%s seq %d: false positive %v", f, e.Seq, reds)
				}
			}
		}
		t.Logf("%d fixture recordings, %d frames, no findings", len(files), frames)
	})
}

func TestMain(m *testing.M) {
	// The fixture MCP server and codex may inherit real keys from a developer's shell;
	// nothing in these tests needs them.
	for _, k := range sanitize.DefaultSecretEnvs() {
		os.Unsetenv(k)
	}
	os.Exit(m.Run())
}
