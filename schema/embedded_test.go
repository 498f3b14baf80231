package schema_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/codextest"
	"github.com/codexrec/codexrec/schema"
)

func TestEmbeddedVersions(t *testing.T) {
	got := schema.Embedded()
	if fmt.Sprint(got) != fmt.Sprint(codexbin.Versions) {
		t.Errorf("Embedded() = %v, want the pinned versions %v", got, codexbin.Versions)
	}
	for _, tc := range []struct {
		in, want string
		exact    bool
		err      bool
	}{
		{"0.163.0", "0.163.0", true, false},
		{"0.171.0", "0.171.0", true, false},
		{"0.165.2", "0.163.0", false, false},
		{"0.200.0", "0.171.0", false, false},
		{"0.171.0-alpha.1", "0.171.0", true, false},
		{"0.100.0", "", false, true},
		{"banana", "", false, true},
	} {
		v, exact, err := schema.Nearest(tc.in)
		if v != tc.want || exact != tc.exact || (err != nil) != tc.err {
			t.Errorf("Nearest(%q) = %q, %v, %v; want %q, %v, error %v", tc.in, v, exact, err, tc.want, tc.exact, tc.err)
		}
	}
	if _, err := schema.Load("0.165.0"); err == nil {
		t.Error("Load of a version that is not embedded succeeded")
	}
}

// files lists a set's files with their contents.
func files(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		out[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEmbeddedMatchesManifest: each archive holds exactly the files its sha256 list
// names, byte for byte (the list is what reviewers diff when a version changes).
func TestEmbeddedMatchesManifest(t *testing.T) {
	for _, v := range schema.Embedded() {
		set, err := schema.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, exp := range []bool{false, true} {
			mode := map[bool]string{false: schema.Stable, true: schema.Experimental}[exp]
			list, err := os.ReadFile(filepath.Join("versions", v, mode+".sha256"))
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fsm := files(t, set.FS(exp))
			names := make([]string, 0, len(fsm))
			for n := range fsm {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				sum := sha256.Sum256(fsm[n])
				fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
			}
			if b.String() != string(list) {
				t.Errorf("codex %s %s: archive does not match %s.sha256", v, mode, mode)
			}
		}
	}
}

// TestEmbeddedMatchesBinary: the embedded sets are exactly what each pinned binary
// generates today (skipped only when the binary is absent; CI has it).
func TestEmbeddedMatchesBinary(t *testing.T) {
	for _, v := range schema.Embedded() {
		t.Run(v, func(t *testing.T) {
			bin := codextest.Binary(t, v)
			env, _ := codextest.Env(t)
			set, err := schema.Load(v)
			if err != nil {
				t.Fatal(err)
			}
			for _, exp := range []bool{false, true} {
				out := t.TempDir()
				args := []string{"app-server", "generate-json-schema", "--out", out}
				if exp {
					args = append(args, "--experimental")
				}
				cmd := exec.Command(bin, args...)
				cmd.Env = env
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v: %v\n%s", args, err, b)
				}
				gen, emb := files(t, os.DirFS(out)), files(t, set.FS(exp))
				if len(gen) != len(emb) {
					t.Errorf("experimental=%v: binary generates %d files, %d embedded", exp, len(gen), len(emb))
				}
				for n, b := range gen {
					if e, ok := emb[n]; !ok {
						t.Errorf("experimental=%v: %s generated but not embedded", exp, n)
					} else if !bytes.Equal(b, e) {
						t.Errorf("experimental=%v: %s differs (run go generate ./schema)", exp, n)
					}
				}
			}
		})
	}
}
