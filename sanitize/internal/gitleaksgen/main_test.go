package main

import (
	"os"
	"testing"
)

// TestGeneratedUpToDate: the committed rules are what the generator makes of the
// committed gitleaks.toml (run go generate ./sanitize after changing either).
func TestGeneratedUpToDate(t *testing.T) {
	src, err := os.ReadFile("gitleaks.toml")
	if err != nil {
		t.Fatal(err)
	}
	version, err := os.ReadFile("VERSION")
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(string(src), string(version[:len(version)-1]))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../gitleaks_rules.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("sanitize/gitleaks_rules.go is stale: run go generate ./sanitize")
	}
}

func TestParseTOMLErrors(t *testing.T) {
	for _, bad := range []string{"[[rules]]\nid = \"x\"\nregex = '''abc", "[[rules]]\nid = {a=1}\n", "[[rules]]\nid = \"x\"\nid = \"y\"\n", "key\n"} {
		if _, err := parseTOML(bad); err == nil {
			t.Errorf("parseTOML(%q): no error", bad)
		}
	}
	tables, err := parseTOML("title = \"t\"\n[[rules]]\nid = \"a\" # c\nkeywords = [\n  \"k1\",\n  '''k2''',\n]\nentropy = 3.5\n")
	if err != nil || len(tables) != 2 || tables[1].keys["id"] != "a" || len(tables[1].keys["keywords"].([]any)) != 2 || tables[1].keys["entropy"] != 3.5 {
		t.Errorf("parseTOML: %v %+v", err, tables)
	}
}
