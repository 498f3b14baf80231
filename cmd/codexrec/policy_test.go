package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
)

// TestVersionPolicyAgrees runs record, capture, validate and check on the same
// sessions and compares the schema version each chose: one policy (schema.Choose)
// decides for all of them. Record sees a session's frames live (a server replaying
// the recorded server lines), validate and check read the file; capture makes the
// first session from the real binary.
func TestVersionPolicyAgrees(t *testing.T) {
	dir := t.TempDir()
	captured := filepath.Join(dir, "captured.jsonl")
	bin := codextest.Binary(t, "0.163.0")
	if r := runCodexrec(t, dir, nil, "capture", "--scenario", "plain", "--codex", bin, "-o", captured); r.code != 0 {
		t.Fatalf("capture: exit %d\n%s", r.code, r.stderr)
	}
	capturedSchema := headerOf(t, captured).SchemaVersion

	src, err := os.ReadFile(captured)
	if err != nil {
		t.Fatal(err)
	}
	userAgent := regexp.MustCompile(`("userAgent":"[^"/]*/)0\.163\.0[^"]*"`)
	withAgent := func(b []byte, ua string) []byte {
		if !userAgent.Match(b) {
			t.Fatal("the capture has no initialize response with a 0.163.0 userAgent")
		}
		return userAgent.ReplaceAll(b, []byte(ua))
	}
	noHeaderVersion := func(b []byte) []byte {
		return regexp.MustCompile(`"codexVersion":"[^"]*",?`).ReplaceAll(b, nil)
	}
	cases := []struct {
		name            string
		body            []byte
		explicit        string
		ua, header      string // what the session and its header say, for schema.Choose
		live            bool   // record can see it (the version is in the frames)
		wantFromCapture bool
	}{
		{name: "captured", body: src, ua: "0.163.0", header: "0.163.0", live: true, wantFromCapture: true},
		{name: "unembedded-user-agent", body: noHeaderVersion(withAgent(src, `${1}0.165.3"`)), ua: "0.165.3", live: true},
		{name: "header-only", body: withAgent(src, `"userAgent":"some-client"`), header: "0.163.0"},
		{name: "nothing", body: noHeaderVersion(withAgent(src, `"userAgent":"some-client"`)), live: true},
		{name: "explicit", body: src, explicit: "0.171.0", ua: "0.163.0", header: "0.163.0", live: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := schema.Choose(tc.explicit, tc.ua, tc.header)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.name+".jsonl")
			if err := os.WriteFile(path, tc.body, 0o600); err != nil {
				t.Fatal(err)
			}
			var flags []string
			if tc.explicit != "" {
				flags = []string{"--codex-version", tc.explicit}
			}
			got := map[string]string{
				"validate": validateSchemaVersion(t, dir, path, flags),
				"check":    checkSchemaVersion(t, dir, path, flags),
			}
			if tc.live {
				got["record"] = recordSchemaVersion(t, dir, path, flags)
			}
			if tc.wantFromCapture {
				got["capture"] = capturedSchema
			}
			for cmd, v := range got {
				if v != want.Schema {
					t.Errorf("%s chose schema %q, the policy %q (%s)", cmd, v, want.Schema, want.From)
				}
			}
		})
	}
}

func headerOf(t *testing.T, path string) recorder.Header {
	t.Helper()
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Header
}

func validateSchemaVersion(t *testing.T, dir, path string, flags []string) string {
	t.Helper()
	r := runCodexrec(t, dir, nil, append(append([]string{"validate", "--json", "--fail-on", "never"}, flags...), path)...)
	var doc struct {
		Files []struct{ SchemaVersion string }
	}
	if err := json.Unmarshal(r.stdout, &doc); err != nil || r.code != 0 || len(doc.Files) != 1 {
		t.Fatalf("validate: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	return doc.Files[0].SchemaVersion
}

func checkSchemaVersion(t *testing.T, dir, path string, flags []string) string {
	t.Helper()
	r := runCodexrec(t, dir, nil, append(append([]string{"check", "--json", "--fail-on", "never"}, flags...), path)...)
	var doc struct {
		Recordings []struct{ SchemaVersion string }
	}
	if err := json.Unmarshal(r.stdout, &doc); err != nil || r.code != 0 || len(doc.Recordings) != 1 {
		t.Fatalf("check: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	return doc.Recordings[0].SchemaVersion
}

// recordSchemaVersion records the session live: the server is a shell that reads
// the client's first line (initialize) and then writes the recorded server lines.
func recordSchemaVersion(t *testing.T, dir, path string, flags []string) string {
	t.Helper()
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var client, server bytes.Buffer
	for _, e := range rec.Entries {
		if e.Type != recorder.TypeFrame {
			continue
		}
		switch e.Dir.String() {
		case "c2s":
			client.Write(e.Line)
		case "s2c":
			server.Write(e.Line)
		}
	}
	serverFile := path + ".server"
	if err := os.WriteFile(serverFile, server.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out := path + ".live.jsonl"
	args := append(append([]string{"record", "-o", out, "--force"}, flags...), "--", "sh", "-c", `read -r line; cat "$1"; cat >/dev/null`, "sh", serverFile)
	r := runCodexrec(t, dir, strings.NewReader(client.String()), args...)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	return headerOf(t, out).SchemaVersion
}
