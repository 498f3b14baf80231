package publicapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
)

// public are the packages another module may import.
var public = []string{"check", "diff", "fixtures", "fixtures/client", "fixtures/fakemodel", "fixtures/mcpserver",
	"fixtures/scenario", "proxy", "record", "recorder", "replay", "sanitize", "schema", "view", "wire",
	"codexrectest", "config", "dropin", "export", "extend", "serve", "shim", "stale", "upgrade", "validate", "wsproxy", "wsrecord", "wsreplay"}

// TestExternalModule builds a module of its own that requires codexrec through a
// replace directive, as a user's module would before publishing, and runs a program
// that replays a committed capture in-process and records it with the record library.
func TestExternalModule(t *testing.T) {
	root, err := codexbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "client", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := "module example.com/client\n\ngo 1.26\n\nrequire github.com/codexrec/codexrec v0.0.0\n\n" +
		"replace github.com/codexrec/codexrec => " + strconv.Quote(root) + "\n"
	for name, b := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tidy := exec.Command(goBin, "mod", "tidy")
	tidy.Dir = dir
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	run := exec.Command(goBin, "run", ".", filepath.Join(root, "fixtures", "hermetic", "0.171.0", "plain.jsonl"), t.TempDir())
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, "codex 0.171.0, 4 client frames, ") {
		t.Errorf("external program printed %q", got)
	}
}

// TestNoInternalTypesInPublicAPI: no exported declaration of a public package (a
// function's or method's signature, an exported type's definition or exported field,
// an exported variable or constant) names a package under internal/, which another
// module could not import.
func TestNoInternalTypesInPublicAPI(t *testing.T) {
	root, err := codexbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range public {
		dir := filepath.Join(root, p)
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range pkgs {
			for name, f := range pkg.Files {
				internal := map[string]string{} // local name -> import path
				for _, imp := range f.Imports {
					path, _ := strconv.Unquote(imp.Path.Value)
					if !strings.Contains(path, "/internal/") {
						continue
					}
					local := path[strings.LastIndex(path, "/")+1:]
					if imp.Name != nil {
						local = imp.Name.Name
					}
					internal[local] = path
				}
				for _, n := range exportedNodes(f) {
					checked++
					ast.Inspect(n, func(x ast.Node) bool {
						if sel, ok := x.(*ast.SelectorExpr); ok {
							if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] != "" {
								t.Errorf("%s: %s: exported API names %s.%s from %s", p, fset.Position(sel.Pos()), id.Name, sel.Sel.Name, internal[id.Name])
							}
						}
						return true
					})
					_ = name
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked only %d exported declarations: the walk is broken", checked)
	}
}

// exportedNodes are the parts of f another package sees: signatures of exported
// functions and methods (bodies excluded), exported types (unexported fields
// excluded) and exported values' types.
func exportedNodes(f *ast.File) []ast.Node {
	var out []ast.Node
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || receiverExported(d.Recv)) {
				out = append(out, d.Type)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out = append(out, exportedType(s.Type)...)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Type != nil {
							out = append(out, s.Type)
						}
					}
				}
			}
		}
	}
	return out
}

func exportedType(e ast.Expr) []ast.Node {
	st, ok := e.(*ast.StructType)
	if !ok {
		return []ast.Node{e}
	}
	var out []ast.Node
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			out = append(out, f.Type) // embedded: promoted
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				out = append(out, f.Type)
				break
			}
		}
	}
	return out
}

func receiverExported(r *ast.FieldList) bool {
	if len(r.List) == 0 {
		return false
	}
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
