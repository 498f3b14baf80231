package codexrectest_test

import (
	"go/parser"
	"go/token"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestDepsCoverTheCommand: deps.go names every package of this module the command
// imports, so a user's go mod tidy records every module Binary needs to build it.
func TestDepsCoverTheCommand(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "../cmd/codexrec").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "deps.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		have[p] = true
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/codexrec/codexrec/") && !have[p] {
			t.Errorf("deps.go does not import %s, which cmd/codexrec imports", p)
		}
	}
}
