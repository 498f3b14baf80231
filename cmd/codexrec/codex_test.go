package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/codexbin/npmtest"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
)

// runIn runs the built binary in dir with a fresh HOME and registry: no CODEXREC_CACHE,
// no XDG_CACHE_HOME, so the cache is the user cache dir under home.
func runCodexIn(t *testing.T, dir, home, registry string, args ...string) result {
	t.Helper()
	cmd := exec.Command(codexrecBin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_CACHE_HOME", "CODEXREC_CACHE", "CODEXREC_NPM_REGISTRY":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "HOME="+home, "CODEXREC_NPM_REGISTRY="+registry)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running codexrec %v: %v", args, err)
	}
	return result{out.Bytes(), errb.Bytes(), code}
}

// A user without a clone: codex install from the registry into a fresh HOME's cache,
// then capture --codex-version from a directory outside the repository. The registry
// is a local stand-in serving the real codex binary in a package of the registry's
// format (the real registry: TestInstallFromNPM in internal/codexbin).
func TestCodexInstallOutsideTheRepo(t *testing.T) {
	if os.Getenv("HOME") == "" && os.Getenv("XDG_CACHE_HOME") == "" {
		t.Skip("no user cache directory on this platform")
	}
	real := codextest.Binary(t, codexbin.Newest)
	plat, err := codexbin.HostPlatform()
	if err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	v, wrong := codexbin.Newest, codexbin.Oldest
	good := npmtest.Tarball(t, tmp, npmtest.CodexEntries(plat.Triple, v+"-"+plat.NPM, real, "")...)
	tampered := npmtest.Tarball(t, tmp, npmtest.CodexEntries(plat.Triple, wrong+"-"+plat.NPM, "", "#!/bin/sh\necho tampered\n")...)
	reg := npmtest.Serve(t,
		npmtest.Package{Version: v + "-" + plat.NPM, Tarball: good},
		// The registry's integrity is another file's: what arrives is not what it names.
		npmtest.Package{Version: wrong + "-" + plat.NPM, Tarball: tampered, Integrity: npmtest.Integrity(t, good)})

	home, work := filepath.Join(tmp, "home"), filepath.Join(tmp, "work")
	for _, d := range []string{home, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "..", "go.mod")); err == nil {
		t.Fatalf("%s is inside a module", work)
	}
	cache := filepath.Join(home, ".cache", "codexrec", "codex")
	if ucd, err := os.UserCacheDir(); err == nil && !strings.HasPrefix(ucd, os.Getenv("HOME")) {
		t.Skipf("the user cache dir %s is not under HOME on this platform", ucd)
	}
	bin := filepath.Join(cache, v, "package", "vendor", plat.Triple, "bin", "codex")

	r := runCodexIn(t, work, home, reg.URL, "codex", "path", v)
	if r.code != 2 || !strings.Contains(string(r.stderr), "codexrec codex install "+v+" installs it") {
		t.Fatalf("codex path before install: exit %d, stderr %s", r.code, r.stderr)
	}
	r = runCodexIn(t, work, home, reg.URL, "capture", "--scenario", "plain", "--codex-version", v, "-o", "x.jsonl")
	if r.code != 2 || !strings.Contains(string(r.stderr), "codexrec codex install "+v) || !strings.Contains(string(r.stderr), "--install") {
		t.Fatalf("capture before install: exit %d, stderr %s", r.code, r.stderr)
	}

	r = runCodexIn(t, work, home, reg.URL, "codex", "install", v)
	if r.code != 0 || string(r.stdout) != bin+"\n" {
		t.Fatalf("codex install: exit %d, stdout %q, want %q; stderr %s", r.code, r.stdout, bin, r.stderr)
	}
	if !strings.Contains(string(r.stderr), "downloading @openai/codex@"+v+"-"+plat.NPM+": ") || !strings.Contains(string(r.stderr), "installed codex "+v) {
		t.Errorf("codex install: no progress line or summary on stderr: %q", r.stderr)
	}
	r = runCodexIn(t, work, home, reg.URL, "codex", "list")
	if r.code != 0 || !strings.Contains(string(r.stdout), bin) || !strings.Contains(string(r.stderr), "pinned but not installed: "+wrong) {
		t.Errorf("codex list: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCodexIn(t, work, home, reg.URL, "codex", "path", v)
	if r.code != 0 || string(r.stdout) != bin+"\n" {
		t.Errorf("codex path: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}

	r = runCodexIn(t, work, home, reg.URL, "capture", "--scenario", "plain", "--codex-version", v, "-o", "plain.jsonl")
	if r.code != 0 {
		t.Fatalf("capture --codex-version %s from %s: exit %d: %s", v, work, r.code, r.stderr)
	}
	rec, err := recorder.ReadFile(filepath.Join(work, "plain.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.CodexVersion != v || rec.Trailer == nil || rec.Trailer.ExitCode != 0 {
		t.Errorf("the capture's header says codex %q, trailer %+v", rec.Header.CodexVersion, rec.Trailer)
	}
	t.Logf("capture: %s", bytes.TrimSpace(r.stderr))

	// A download that does not match the registry's integrity is refused, and the
	// cache keeps only what it had.
	r = runCodexIn(t, work, home, reg.URL, "codex", "install", wrong)
	if r.code != 2 || !strings.Contains(string(r.stderr), "integrity mismatch") {
		t.Fatalf("tampered install: exit %d, stderr %s", r.code, r.stderr)
	}
	ents, _ := os.ReadDir(cache)
	if len(ents) != 1 || ents[0].Name() != v {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the cache holds %q after a refused install, want only %s", names, v)
	}

	// --install installs on the way, in another fresh HOME.
	home2 := filepath.Join(tmp, "home2")
	os.Mkdir(home2, 0o700)
	r = runCodexIn(t, work, home2, reg.URL, "capture", "--scenario", "plain", "--codex-version", v, "--install", "-o", "plain2.jsonl")
	if r.code != 0 || !strings.Contains(string(r.stderr), "downloading @openai/codex@"+v) {
		t.Fatalf("capture --install: exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(home2, ".cache", "codexrec", "codex", v, "package", "vendor", plat.Triple, "bin", "codex")); err != nil {
		t.Errorf("capture --install left no binary in the cache: %v", err)
	}
}
