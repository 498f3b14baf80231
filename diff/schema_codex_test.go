package diff_test

import (
	"encoding/json"
	"io/fs"
	"os/exec"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/schema"
)

func loadEmbedded(t *testing.T, version string) (*schema.Set, *diff.SchemaSet) {
	t.Helper()
	set, err := schema.Load(version)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := diff.LoadSchemaSet(set, false, version)
	if err != nil {
		t.Fatal(err)
	}
	return set, ss
}

// TestSchemaDiffVersions compares the pinned versions' embedded schemas. The methods
// 0.171.0 added were found by reading both sets' union files; the changed types are
// checked against an independent, cruder comparison of the raw definitions.
func TestSchemaDiffVersions(t *testing.T) {
	oldSet, old := loadEmbedded(t, codexbin.Oldest)
	newSet, nw := loadEmbedded(t, codexbin.Newest)
	r := diff.CompareSchemas(old, nw)

	wantAdded := []string{
		"client request account/securitySetup/read",
		"client request feedback/save",
		"client request modelProvider/config/write",
		"client request modelProvider/default/set",
		"client request modelProvider/list",
		"server notification thread/search/partial",
		"server notification thread/section/changed",
	}
	if strings.Join(r.MethodsAdded, "\n") != strings.Join(wantAdded, "\n") {
		t.Errorf("methods added:\n%s\nwant:\n%s", strings.Join(r.MethodsAdded, "\n"), strings.Join(wantAdded, "\n"))
	}
	if len(r.MethodsRemoved) != 0 {
		t.Errorf("methods removed: %v, want none", r.MethodsRemoved)
	}

	// Every type whose definition differs other than in prose and order must be
	// reported as changed, and nothing else.
	rawOld, rawNew := rawTypes(t, oldSet.FS(false)), rawTypes(t, newSet.FS(false))
	var want []string
	for name, o := range rawOld {
		if n, ok := rawNew[name]; ok && o != n && !unionFiles[name] {
			want = append(want, name)
		}
	}
	sort.Strings(want)
	t.Logf("%s → %s: %d types changed, %d added; %d breaking, %d warning, %d info",
		codexbin.Oldest, codexbin.Newest, len(r.TypesChanged), len(r.TypesAdded), r.Breaking, r.Warning, r.Info)
	if strings.Join(r.TypesChanged, " ") != strings.Join(want, " ") {
		t.Errorf("types changed:\n%v\nwant (raw definitions differ):\n%v", r.TypesChanged, want)
	}
	if len(r.TypesChanged) < 10 {
		t.Errorf("only %d types changed between %s and %s: %v", len(r.TypesChanged), codexbin.Oldest, codexbin.Newest, r.TypesChanged)
	}
	// Fields a real 0.171.0 session carries and 0.163.0 did not declare.
	for _, want := range []struct{ subject, rule, path string }{
		{"ThreadItem", "response-field-added", "/startedAtMs"},
		{"ThreadItem", "response-field-added", "/completedAtMs"},
		{"ItemCompletedNotification", "response-field-added", "/contentTokenCount"},
		{"CommandExecutionApprovalKind", "response-enum-value-added", ""},
	} {
		found := false
		for _, c := range r.Changes {
			if c.Subject == want.subject && c.Rule == want.rule && c.Path == want.path {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s %s %s in the report", want.subject, want.rule, want.path)
		}
	}
	if worst, _ := r.Worst(); worst != diff.TierBreaking {
		t.Errorf("worst tier %v: 0.171.0 adds enum values and variants the server sends", worst)
	}

	// A version against itself: nothing.
	if same := diff.CompareSchemas(old, old); len(same.Changes) != 0 {
		t.Errorf("%s against itself: %d changes", codexbin.Oldest, len(same.Changes))
	}
}

var unionFiles = map[string]bool{"ClientRequest": true, "ClientNotification": true, "ServerRequest": true, "ServerNotification": true}

// rawTypes renders every named type of a set as JSON with prose dropped and the
// arrays generation orders at random sorted: a blunt independent notion of "changed".
func rawTypes(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") || strings.HasPrefix(path.Base(p), "codex_app_server_protocol") {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		defs, _ := doc["definitions"].(map[string]any)
		for name, v := range defs {
			if _, ok := out[name]; !ok {
				out[name] = blunt(v)
			}
		}
		delete(doc, "definitions")
		name := strings.TrimSuffix(path.Base(p), ".json")
		if _, ok := out[name]; !ok {
			out[name] = blunt(doc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func blunt(v any) string {
	var clean func(v any, key string) any
	clean = func(v any, key string) any {
		switch v := v.(type) {
		case map[string]any:
			m := map[string]any{}
			for k, e := range v {
				if k == "description" || k == "title" || k == "$schema" {
					continue
				}
				if k == "properties" {
					props := map[string]any{}
					for pk, pv := range e.(map[string]any) {
						props[pk] = clean(pv, "")
					}
					m[k] = props
					continue
				}
				m[k] = clean(e, k)
			}
			return m
		case []any:
			var items []string
			var out []any
			for _, e := range v {
				c := clean(e, "")
				out = append(out, c)
				b, _ := json.Marshal(c)
				items = append(items, string(b))
			}
			switch key {
			case "required", "enum", "anyOf", "oneOf", "type":
				sort.Strings(items)
				return items
			}
			return out
		}
		return v
	}
	b, _ := json.Marshal(clean(v, ""))
	return string(b)
}

// TestSchemaDiffGeneratedFolder compares the embedded newest set with a folder the
// real binary generates now: the same protocol, so no change at all.
func TestSchemaDiffGeneratedFolder(t *testing.T) {
	bin := codextest.Binary(t, codexbin.Newest)
	env, _ := codextest.Env(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "app-server", "generate-json-schema", "--out", dir)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generate-json-schema: %v\n%s", err, out)
	}
	set, err := schema.LoadDir(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	folder, err := diff.LoadSchemaSet(set, false, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, embedded := loadEmbedded(t, codexbin.Newest)
	r := diff.CompareSchemas(embedded, folder)
	if len(r.Changes) != 0 {
		t.Errorf("embedded %s vs freshly generated: %d changes, first %+v", codexbin.Newest, len(r.Changes), r.Changes[0])
	}
	if folder.Types() < 300 {
		t.Errorf("only %d types read from the generated folder", folder.Types())
	}
}

// TestSchemaDiffExperimental compares the experimental sets, which declare methods
// behind experimentalApi: a superset of the stable diff's additions.
func TestSchemaDiffExperimental(t *testing.T) {
	load := func(v string) *diff.SchemaSet {
		set, err := schema.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := diff.LoadSchemaSet(set, true, v)
		if err != nil {
			t.Fatal(err)
		}
		return ss
	}
	exp := diff.CompareSchemas(load(codexbin.Oldest), load(codexbin.Newest))
	_, so := loadEmbedded(t, codexbin.Oldest)
	_, sn := loadEmbedded(t, codexbin.Newest)
	stable := diff.CompareSchemas(so, sn)
	added := map[string]bool{}
	for _, m := range exp.MethodsAdded {
		added[m] = true
	}
	for _, m := range stable.MethodsAdded {
		if !added[m] {
			t.Errorf("%s added in the stable sets but not in the experimental ones", m)
		}
	}
	if len(exp.MethodsAdded) <= len(stable.MethodsAdded) {
		t.Errorf("experimental sets add %d methods, stable %d: want more", len(exp.MethodsAdded), len(stable.MethodsAdded))
	}
}
