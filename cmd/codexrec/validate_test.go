package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// writeRecording writes a recording of hand-made frames ("c2s {...}").
func writeRecording(t *testing.T, path string, lines ...string) {
	t.Helper()
	w, err := recorder.Create(path, recorder.Header{Codexrec: "test"}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var p wire.Pairer
	for i, l := range lines {
		dir, msg, _ := strings.Cut(l, " ")
		d, _ := wire.ParseDirection(dir)
		f := &wire.Frame{Seq: int64(i + 1), Dir: d, Line: []byte(msg + "\n"), Msg: wire.Classify([]byte(msg))}
		p.Observe(d, &f.Msg)
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
}

const initResp163 = `s2c {"id":1,"result":{"userAgent":"t/0.163.0 (Debian 12.0.0; x86_64) x","codexHome":"/h","platformFamily":"unix","platformOs":"linux"}}`

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	writeRecording(t, bad,
		`c2s {"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","title":null,"version":"1"}}}`,
		initResp163,
		`c2s {"id":2,"method":"turn/start","params":{"threadId":5,"input":[]}}`,
		`c2s {"id":3,"method":"thread/read","params":{"threadId":"x","bogus":true}}`,
		`s2c {"id":9,"result":{}}`)
	clean := filepath.Join(dir, "clean.jsonl")
	writeRecording(t, clean,
		`c2s {"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","title":null,"version":"1"}}}`,
		initResp163,
		`c2s {"method":"initialized"}`)

	newer := filepath.Join(dir, "newer.jsonl")
	writeRecording(t, newer,
		`c2s {"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","title":null,"version":"1"}}}`,
		strings.Replace(initResp163, "0.163.0", "0.170.1", 1))

	r := runCodexrec(t, dir, nil, "validate", "bad.jsonl")
	want := "bad.jsonl:3: c2s turn/start invalid /params/threadId: wrong type: got number, want string\n" +
		"bad.jsonl:4: c2s thread/read undeclared-field /params/bogus: not declared by the codex 0.163.0 schema\n" +
		"bad.jsonl:5: s2c - unpaired-response /id: answers id 9, which was never requested by the client (or was already answered)\n" +
		"bad.jsonl: codex 0.163.0, schema 0.163.0: 5 frames, 3 findings (1 invalid, 1 unpaired-response, 1 undeclared-field)\n"
	if r.code != 1 || string(r.stdout) != want {
		t.Errorf("validate bad.jsonl: exit %d, stdout:\n%s\nwant exit 1 and:\n%s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}

	r = runCodexrec(t, dir, nil, "validate", "--jsonl", "bad.jsonl", "clean.jsonl")
	lines := strings.Split(strings.TrimSpace(string(r.stdout)), "\n")
	if r.code != 1 || len(lines) != 3 {
		t.Fatalf("--jsonl: exit %d, %d lines:\n%s", r.code, len(lines), r.stdout)
	}
	var f struct{ File, Rule, Severity, Pointer, Dir, Method, SchemaVersion string }
	if err := json.Unmarshal([]byte(lines[0]), &f); err != nil {
		t.Fatal(err)
	}
	if f.File != "bad.jsonl" || f.Rule != "invalid" || f.Severity != "error" || f.Pointer != "/params/threadId" || f.SchemaVersion != "0.163.0" {
		t.Errorf("--jsonl first finding %+v", f)
	}
	// --json is one document, as in every other command.
	r = runCodexrec(t, dir, nil, "validate", "--json", "bad.jsonl", "clean.jsonl")
	var doc struct {
		Failed bool
		Files  []struct {
			File, SchemaVersion string
			Frames              int
			Findings            []struct{ Rule string }
		}
	}
	if err := json.Unmarshal(r.stdout, &doc); err != nil || r.code != 1 {
		t.Fatalf("--json: exit %d, %v:\n%s", r.code, err, r.stdout)
	}
	if !doc.Failed || len(doc.Files) != 2 || len(doc.Files[0].Findings) != 3 || len(doc.Files[1].Findings) != 0 || doc.Files[0].Frames != 5 {
		t.Errorf("--json document %+v", doc)
	}

	for _, tc := range []struct {
		args []string
		code int
		out  string // in stdout or stderr
	}{
		{[]string{"validate", "clean.jsonl"}, 0, "clean.jsonl: codex 0.163.0, schema 0.163.0: 3 frames, no findings"},
		{[]string{"validate", "--fail-on", "none", "bad.jsonl"}, 0, "3 findings"},
		{[]string{"validate", "--fail-on", "undeclared", "clean.jsonl"}, 0, "no findings"},
		{[]string{"validate", "--codex-version", "0.171.0", "clean.jsonl"}, 0, "schema 0.171.0"},
		{[]string{"validate", "--codex-version", "0.168.3", "clean.jsonl"}, 0, "has no embedded schema; validating against 0.168.0, the nearest older one"},
		{[]string{"validate", "newer.jsonl"}, 0, "newer.jsonl: codex 0.170.1 (initialize userAgent) has no embedded schema; validating against 0.169.0, the nearest older one"},
		{[]string{"validate", "missing.jsonl", "clean.jsonl"}, 2, "missing.jsonl"},
		{[]string{"validate", "--fail-on", "sometimes", "clean.jsonl"}, 2, "want info, warning, error or never"},
		{[]string{"validate", "--codex-version", "banana", "clean.jsonl"}, 2, "not a codex version"},
		{[]string{"validate"}, 2, "want one or more recordings"},
	} {
		r := runCodexrec(t, dir, nil, tc.args...)
		if r.code != tc.code || !strings.Contains(string(r.stdout)+string(r.stderr), tc.out) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s%s", tc.args, r.code, tc.code, tc.out, r.stdout, r.stderr)
		}
	}

	// A file that is not a recording is unreadable input.
	os.WriteFile(filepath.Join(dir, "junk.jsonl"), []byte("hello\n"), 0o600)
	if r := runCodexrec(t, dir, nil, "validate", "junk.jsonl"); r.code != 2 {
		t.Errorf("junk: exit %d, want 2", r.code)
	}
}

// TestValidateSchemaDir: --schema-dir reads a set laid out as generate-json-schema
// writes it (here: the embedded 0.163.0 files written out).
func TestValidateSchemaDir(t *testing.T) {
	dir := t.TempDir()
	set, err := schema.Load("0.163.0")
	if err != nil {
		t.Fatal(err)
	}
	sd := filepath.Join(dir, "schemas")
	err = fs.WalkDir(set.FS(false), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(set.FS(false), p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Join(sd, filepath.Dir(p)), 0o755)
		return os.WriteFile(filepath.Join(sd, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	writeRecording(t, filepath.Join(dir, "r.jsonl"),
		`c2s {"id":1,"method":"turn/start","params":{"input":[]}}`)
	r := runCodexrec(t, dir, nil, "validate", "--schema-dir", "schemas", "r.jsonl")
	if r.code != 1 || !strings.Contains(string(r.stdout), "r.jsonl:1: c2s turn/start invalid /params/threadId: missing required field \"threadId\"") {
		t.Errorf("--schema-dir: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCodexrec(t, dir, nil, "validate", "--schema-dir", "nowhere", "r.jsonl"); r.code != 2 {
		t.Errorf("--schema-dir nowhere: exit %d, want 2", r.code)
	}
}

// recordWithCodex runs `codexrec record ARGS -- codex app-server` on the real binary,
// sends initialize, waits for its answer, then sends more and waits for the answer to
// the last request (id 2).
func recordWithCodex(t *testing.T, version, out string, args []string, more ...string) result {
	t.Helper()
	bin := codextest.Binary(t, version)
	env, _ := codextest.Env(t)
	all := append(append([]string{"record", "-o", out}, args...), "--", bin, "app-server")
	cmd := exec.Command(codexrecBin, all...)
	cmd.Env, cmd.Dir = env, t.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	br := bufio.NewReader(stdout)
	wait := func(id string) {
		t.Helper()
		timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
		defer timer.Stop()
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("waiting for response %s: %v\n%s", id, err, stderr.Bytes())
			}
			if gjson.Get(l, "id").Raw == id && !gjson.Get(l, "method").Exists() {
				return
			}
		}
	}
	io.WriteString(stdin, `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","title":null,"version":"1"}}}`+"\n")
	wait("1")
	for _, m := range more {
		io.WriteString(stdin, m+"\n")
	}
	wait("2")
	stdin.Close()
	io.Copy(io.Discard, br)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{nil, stderr.Bytes(), code}
}

// TestRecordValidates: record checks frames live; --fail-on turns findings into exit
// code 1 after a normal session; findings follow their frame in the recording.
func TestRecordValidates(t *testing.T) {
	v := codexbin.Newest
	dir := t.TempDir()

	clean := filepath.Join(dir, "clean.jsonl")
	r := recordWithCodex(t, v, clean, []string{"--fail-on", "undeclared"},
		`{"method":"initialized"}`, `{"id":2,"method":"thread/start","params":{}}`)
	if r.code != 0 || !strings.Contains(string(r.stderr), "schema "+v+": no findings") {
		t.Errorf("clean session: exit %d\n%s", r.code, r.stderr)
	}
	rec, err := recorder.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.SchemaVersion != v {
		t.Errorf("header schemaVersion %q, want %q", rec.Header.SchemaVersion, v)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	r = recordWithCodex(t, v, bad, []string{"--fail-on", "invalid", "--codex-version", "0.170.1"},
		`{"method":"initialized"}`, `{"id":2,"method":"thread/frobnicate","params":{}}`)
	if r.code != 1 {
		t.Errorf("bad session: exit %d, want 1\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"codex 0.170.1 (explicit) has no embedded schema; validating against 0.169.0, the nearest older one",
		"c2s thread/frobnicate unknown-method /method",
	} {
		if strings.Count(string(r.stderr), want) != 1 {
			t.Errorf("stderr should say once %q:\n%s", want, r.stderr)
		}
	}
	rec, err = recorder.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.SchemaVersion != "0.169.0" || len(rec.Header.Notes) != 1 {
		t.Errorf("header: schemaVersion %q notes %q", rec.Header.SchemaVersion, rec.Header.Notes)
	}
	found := false
	for i, e := range rec.Entries {
		if e.Type == recorder.TypeFinding && e.Rule == "unknown-method" {
			found = true
			prev := rec.Entries[i-1]
			if prev.Type != recorder.TypeFrame || prev.Seq != e.Seq || e.Pointer != "/method" || e.Msg.Method != "thread/frobnicate" {
				t.Errorf("finding %+v does not follow its frame (previous entry %+v)", e, prev)
			}
		}
	}
	if !found {
		t.Error("recording has no unknown-method finding")
	}
	if rec.Trailer == nil || rec.Trailer.Findings == 0 {
		t.Errorf("trailer %+v", rec.Trailer)
	}
	// validate agrees with what record found, against the same version.
	vr := runCodexrec(t, dir, nil, "validate", "--codex-version", "0.163.0", "bad.jsonl")
	if vr.code != 1 || !strings.Contains(string(vr.stdout), "unknown-method /method") {
		t.Errorf("validate bad.jsonl: exit %d\n%s%s", vr.code, vr.stdout, vr.stderr)
	}
}
