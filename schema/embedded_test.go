package schema_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/schema"
)

// served are the Codex versions the npm registry serves from the pinned oldest on
// (there is no 0.170.x): every one is embedded.
var served = []string{"0.163.0", "0.164.0", "0.165.0", "0.166.0", "0.167.2", "0.168.0", "0.169.0", "0.171.0"}

func TestEmbeddedVersions(t *testing.T) {
	got := schema.Embedded()
	if fmt.Sprint(got) != fmt.Sprint(served) {
		t.Errorf("Embedded() = %v, want every served version %v", got, served)
	}
	for _, p := range codexbin.Versions {
		if _, err := schema.Load(p); err != nil {
			t.Errorf("pinned version %s: %v", p, err)
		}
	}
	for _, tc := range []struct {
		in, want string
		exact    bool
		err      bool
	}{
		{"0.163.0", "0.163.0", true, false},
		{"0.171.0", "0.171.0", true, false},
		{"0.165.0", "0.165.0", true, false},
		{"0.165.2", "0.165.0", false, false},
		{"0.170.1", "0.169.0", false, false},
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
	if _, err := schema.Load("0.170.0"); err == nil {
		t.Error("Load of a version that is not embedded succeeded")
	}
}

// TestEmbeddedStoreDedupes: a file identical in several versions is stored once, so
// the object store holds fewer files than the sets list together; files that changed
// are mostly deltas (TestEmbeddedMatchesManifest and TestEmbeddedMatchesBinary check
// that every one reads back byte for byte).
func TestEmbeddedStoreDedupes(t *testing.T) {
	zr, err := zip.OpenReader(filepath.Join("versions", "objects.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	stored := map[string]bool{}
	deltas := 0
	for _, f := range zr.File {
		sum, isDelta := strings.CutSuffix(f.Name, ".d")
		if stored[sum] {
			t.Errorf("%s stored twice", sum)
		}
		stored[sum] = true
		if isDelta {
			deltas++
		}
	}
	if deltas == 0 {
		t.Error("no object is stored as a delta of another release's")
	}
	listed, distinct := 0, map[string]bool{}
	for _, v := range schema.Embedded() {
		for _, mode := range []string{schema.Stable, schema.Experimental} {
			for _, line := range listLines(t, v, mode) {
				sum, _, _ := strings.Cut(line, "  ")
				listed++
				distinct[sum] = true
				if !stored[sum] {
					t.Errorf("codex %s %s: %s not in the store", v, mode, line)
				}
			}
		}
	}
	if len(stored) != len(distinct) {
		t.Errorf("store holds %d objects, the lists name %d distinct ones", len(stored), len(distinct))
	}
	if len(distinct)*2 > listed {
		t.Errorf("%d listed files, %d distinct: expected most files shared between versions", listed, len(distinct))
	}
	t.Logf("%d listed files stored as %d objects, %d of them deltas", listed, len(distinct), deltas)
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
			// CI installs only the pinned versions; the others are checked where they
			// are installed (scripts/install-codex.sh VERSION).
			if !slices.Contains(codexbin.Versions, v) {
				if _, err := codexbin.Find(v); err != nil {
					t.Skip(err)
				}
			}
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

// TestEmbeddedFS: a set read from the object store behaves as an fs.FS should
// (directories, ReadDir, Stat, file contents) for every embedded version.
func TestEmbeddedFS(t *testing.T) {
	for _, v := range schema.Embedded() {
		set, err := schema.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := fstest.TestFS(set.FS(true), "ClientRequest.json", "v2/TurnStartParams.json", "v1/InitializeResponse.json"); err != nil {
			t.Errorf("codex %s: %v", v, err)
		}
	}
}

// TestNewestStoredWithoutOlderReleases: every file of the newest release (the one a
// session of unknown version is checked against) is stored whole or as a delta of
// another file of that release, so loading it decodes nothing of an older release
// (stored the other way round, 0.171.0 decoded a chain through every release before
// it: 35 ms against 13 ms).
func TestNewestStoredWithoutOlderReleases(t *testing.T) {
	zr, err := zip.OpenReader(filepath.Join("versions", "objects.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	bases := map[string]string{} // a delta's object to its base
	for _, f := range zr.File {
		sum, isDelta := strings.CutSuffix(f.Name, ".d")
		if !isDelta {
			continue
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, len("base ")+64)
		_, err = io.ReadFull(r, head)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		bases[sum] = strings.TrimPrefix(string(head), "base ")
	}
	embedded := schema.Embedded()
	newest := embedded[len(embedded)-1]
	own := map[string]bool{}
	for _, mode := range []string{schema.Stable, schema.Experimental} {
		for _, line := range listLines(t, newest, mode) {
			sum, _, _ := strings.Cut(line, "  ")
			own[sum] = true
		}
	}
	for sum := range own {
		for s, depth := sum, 0; ; depth++ {
			base, ok := bases[s]
			if !ok {
				break
			}
			if !own[base] || depth > 1 {
				t.Errorf("codex %s: object %s is stored through %s, not a file of that release", newest, sum, base)
				break
			}
			s = base
		}
	}
}

// TestEmbeddedFilesAreJSON: every file of every embedded set is JSON, which the
// package relies on to parse them without checking each time a session loads them.
func TestEmbeddedFilesAreJSON(t *testing.T) {
	for _, v := range schema.Embedded() {
		set, err := schema.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, experimental := range []bool{false, true} {
			for p, b := range files(t, set.FS(experimental)) {
				if !json.Valid(b) {
					t.Errorf("codex %s: %s is not JSON", v, p)
				}
			}
		}
	}
}

// listLines are the "SUM  PATH" lines of a set's sha256 list.
func listLines(t *testing.T, version, mode string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("versions", version, mode+".sha256"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
