package sanitize

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRulesCompiledWhenNeeded: a session whose traffic holds no rule's literal
// compiles no rule's expression (building the prefilters, sanitizing a header's
// strings, a clean frame and text, the guard's pass over them), and a text holding
// one compiles that rule's and no other. It runs in a process of its own: the rules
// are the package's, and other tests compile them.
func TestRulesCompiledWhenNeeded(t *testing.T) {
	if os.Getenv("SANITIZE_LAZY_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestRulesCompiledWhenNeeded$", "-test.count", "1")
		cmd.Env = append(os.Environ(), "SANITIZE_LAZY_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	compiled := func() []string {
		var names []string
		for _, r := range shapeRules {
			if r.re != nil && r.re.re != nil {
				names = append(names, r.name)
			}
		}
		for _, r := range gitleaksRules() {
			if r.re != nil {
				names = append(names, r.id)
			}
		}
		return names
	}
	if c := compiled(); len(c) > 0 {
		t.Fatalf("compiled at init: %v", c)
	}
	z, err := New(Options{Secrets: []Secret{{"K", "fake-known-secret-0123456789"}}, Maps: []Map{{"/home/someone", "<home>"}}})
	if err != nil {
		t.Fatal(err)
	}
	z.Strings([]string{"codex", "app-server", "/home/someone/project"})
	z.Frame([]byte(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"test","version":"1.0.0"}}}` + "\n"))
	z.Text("2026-12-02T07:00:00Z  INFO codex_core: ready")
	f := z.NewGuardFeed()
	f.Line([]byte(`{"type":"frame","dir":"s2c","line":{"id":1,"result":{"userAgent":"codex/0.171.0"}}}` + "\n"))
	if !f.Clean() {
		t.Fatal("the guard found something in a clean frame")
	}
	if c := compiled(); len(c) > 0 {
		t.Fatalf("compiled for traffic holding none of their literals: %v", c)
	}
	// A literal's rule compiles (so the check above can see one).
	if got := z.Text("token sk-proj-" + strings.Repeat("aB3", 16)); !strings.Contains(got, "<redacted:") {
		t.Fatalf("an OpenAI key was not redacted: %q", got)
	}
	c := compiled()
	if len(c) == 0 || len(c) > 3 {
		t.Fatalf("compiled after a text holding an OpenAI key: %v (want its rule's, and few)", c)
	}
}
