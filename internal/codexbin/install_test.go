package codexbin_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/codexbin/npmtest"
)

func host(t *testing.T) codexbin.Platform {
	t.Helper()
	p, err := codexbin.HostPlatform()
	if err != nil {
		t.Skip(err)
	}
	return p
}

// entries returns nothing but what is left in dir, recursively, as slash paths.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if p != dir {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	return out
}

func TestInstallFromRegistry(t *testing.T) {
	p := host(t)
	tmp := t.TempDir()
	script := "#!/bin/sh\necho codex-cli 9.1.0\n"
	reg := npmtest.Serve(t, npmtest.Package{Version: "9.1.0-" + p.NPM,
		Tarball: npmtest.Tarball(t, tmp, npmtest.CodexEntries(p.Triple, "9.1.0-"+p.NPM, "", script)...)})
	cache := filepath.Join(tmp, "cache")
	var progress bytes.Buffer
	inst, err := codexbin.Install(context.Background(), "9.1.0", codexbin.Options{Registry: reg.URL, Cache: cache, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(cache, "9.1.0", "package", "vendor", p.Triple, "bin", "codex")
	if inst.Path != want || !inst.Downloaded || !strings.HasPrefix(inst.Integrity, "sha512-") {
		t.Fatalf("installation = %+v, want the binary at %s, downloaded", inst, want)
	}
	out, err := exec.Command(inst.Path, "--version").Output()
	if err != nil || string(out) != "codex-cli 9.1.0\n" {
		t.Fatalf("the installed binary says %q, %v", out, err)
	}
	if !strings.Contains(progress.String(), "downloading @openai/codex@9.1.0-"+p.NPM+": ") || !strings.HasSuffix(progress.String(), "(100%)\n") {
		t.Errorf("progress line = %q", progress.String())
	}
	// Nothing but the version's folder stays in the cache.
	if got := entries(t, cache); got[0] != "9.1.0" || slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, ".install") || strings.HasSuffix(s, ".tgz") }) {
		t.Errorf("cache holds %q", got)
	}
	// A second install finds it and downloads nothing.
	again, err := codexbin.Install(context.Background(), "9.1.0", codexbin.Options{Registry: reg.URL, Cache: cache})
	if err != nil || again.Downloaded || again.Path != want || reg.Downloads.Load() != 1 {
		t.Fatalf("second install = %+v, %v (%d downloads)", again, err, reg.Downloads.Load())
	}
	if vs, err := codexbin.Installed(cache); err != nil || !slices.Equal(vs, []string{"9.1.0"}) {
		t.Errorf("Installed = %q, %v", vs, err)
	}
	t.Setenv(codexbin.CacheEnv, cache)
	if got, err := codexbin.Find("9.1.0"); err != nil || got != want {
		t.Errorf("Find = %q, %v", got, err)
	}
	// InstallAll prints each path; nothing downloaded, nothing logged.
	var paths, log bytes.Buffer
	if err := codexbin.InstallAll(context.Background(), []string{"9.1.0"}, codexbin.Options{Registry: reg.URL, Cache: cache}, &paths, &log); err != nil || paths.String() != want+"\n" || log.Len() != 0 {
		t.Errorf("InstallAll = %v, printed %q, logged %q", err, paths.String(), log.String())
	}
	paths.Reset()
	err = codexbin.InstallAll(context.Background(), []string{"9.1.0", "9.9.9"}, codexbin.Options{Registry: reg.URL, Cache: cache}, &paths, &log)
	if err == nil || paths.String() != want+"\n" {
		t.Errorf("InstallAll of a missing version = %v, printed %q", err, paths.String())
	}
}

// TestInstallAllLogs: a download is logged with its size and integrity.
func TestInstallAllLogs(t *testing.T) {
	p := host(t)
	tmp := t.TempDir()
	reg := npmtest.Serve(t, npmtest.Package{Version: "9.2.0-" + p.NPM,
		Tarball: npmtest.Tarball(t, tmp, npmtest.CodexEntries(p.Triple, "9.2.0-"+p.NPM, "", "#!/bin/sh\n")...)})
	var paths, log bytes.Buffer
	if err := codexbin.InstallAll(context.Background(), []string{"9.2.0"}, codexbin.Options{Registry: reg.URL, Cache: filepath.Join(tmp, "c")}, &paths, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(log.String(), "installed codex 9.2.0 (") || !strings.Contains(log.String(), "MB, sha512-") || !strings.HasSuffix(paths.String(), "/codex\n") {
		t.Errorf("logged %q, printed %q", log.String(), paths.String())
	}
}

// A package that does not match the registry's integrity, or that holds no binary
// or unsafe entries, is refused, and the cache is left as it was: empty.
func TestInstallRefusesAndLeavesNothing(t *testing.T) {
	p := host(t)
	tmp := t.TempDir()
	good := npmtest.Tarball(t, tmp, npmtest.CodexEntries(p.Triple, "x", "", "#!/bin/sh\n")...)
	other := npmtest.Tarball(t, tmp, npmtest.CodexEntries(p.Triple, "y", "", "#!/bin/sh\necho tampered\n")...)
	cases := []struct {
		name string
		pkg  npmtest.Package
		want string
	}{
		{"integrity mismatch", npmtest.Package{Tarball: good, Integrity: npmtest.Integrity(t, other)}, "integrity mismatch"},
		{"no sha512", npmtest.Package{Tarball: good, Integrity: "sha1-AAAA"}, "has no sha512 hash"},
		{"no binary", npmtest.Package{Tarball: npmtest.Tarball(t, tmp, npmtest.Entry{Name: "package/package.json", Body: "{}"})}, "no binary at package/vendor/" + p.Triple + "/bin/codex"},
		{"dot-dot entry", npmtest.Package{Tarball: npmtest.Tarball(t, tmp, npmtest.Entry{Name: "package/../../evil", Body: "x"})}, "outside the package"},
		{"absolute entry", npmtest.Package{Tarball: npmtest.Tarball(t, tmp, npmtest.Entry{Name: "/tmp/evil", Body: "x"})}, "outside the package"},
		{"link up", npmtest.Package{Tarball: npmtest.Tarball(t, tmp, npmtest.Entry{Name: "package/l", Link: "../.."})}, "outside the package"},
		{"corrupt gzip", npmtest.Package{Tarball: writeFile(t, tmp, "not a gzip stream")}, "unpacking: gzip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.pkg.Version = "9.2.0-" + p.NPM
			reg := npmtest.Serve(t, c.pkg)
			cache := filepath.Join(t.TempDir(), "cache")
			_, err := codexbin.Install(context.Background(), "9.2.0", codexbin.Options{Registry: reg.URL, Cache: cache})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if c.name == "integrity mismatch" && !errors.Is(err, codexbin.ErrIntegrity) {
				t.Errorf("err = %v, not ErrIntegrity", err)
			}
			if left := entries(t, cache); len(left) > 0 {
				t.Errorf("the cache holds %q after a refused install", left)
			}
		})
	}
}

func writeFile(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "corrupt.tgz")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInstallErrors(t *testing.T) {
	p := host(t)
	reg := npmtest.Serve(t)
	cache := filepath.Join(t.TempDir(), "cache")
	_, err := codexbin.Install(context.Background(), "9.3.0", codexbin.Options{Registry: reg.URL, Cache: cache})
	if err == nil || !strings.Contains(err.Error(), "@openai/codex@9.3.0-"+p.NPM+": not in the registry") {
		t.Errorf("unknown version: %v", err)
	}
	for _, v := range []string{"", "..", "../x", "1.0/../../x", ".hidden"} {
		if _, err := codexbin.Install(context.Background(), v, codexbin.Options{Registry: reg.URL, Cache: cache}); err == nil || !strings.Contains(err.Error(), "not a version") {
			t.Errorf("version %q: err = %v", v, err)
		}
	}
	if left := entries(t, cache); len(left) > 0 {
		t.Errorf("cache holds %q", left)
	}
}

// Another platform's package lands beside the host's, under its npm version.
func TestInstallOtherPlatform(t *testing.T) {
	tmp := t.TempDir()
	for _, plat := range codexbin.Platforms {
		reg := npmtest.Serve(t, npmtest.Package{Version: "9.4.0-" + plat.NPM,
			Tarball: npmtest.Tarball(t, tmp, npmtest.CodexEntries(plat.Triple, "9.4.0-"+plat.NPM, "", "#!/bin/sh\n")...)})
		cache := filepath.Join(tmp, "cache-"+plat.NPM)
		inst, err := codexbin.Install(context.Background(), "9.4.0", codexbin.Options{Registry: reg.URL, Cache: cache, Platform: &plat})
		if err != nil {
			t.Fatal(err)
		}
		dir := "9.4.0-" + plat.NPM
		if h, _ := codexbin.HostPlatform(); h == plat {
			dir = "9.4.0"
		}
		if want := filepath.Join(cache, dir, "package", "vendor", plat.Triple, "bin", "codex"); inst.Path != want {
			t.Errorf("%s: path %s, want %s", plat.NPM, inst.Path, want)
		}
	}
	if _, err := codexbin.PlatformFor("windows", "amd64"); err == nil {
		t.Error("windows has a platform")
	}
	want := map[string]string{"linux/amd64": "x86_64-unknown-linux-musl", "linux/arm64": "aarch64-unknown-linux-musl",
		"darwin/amd64": "x86_64-apple-darwin", "darwin/arm64": "aarch64-apple-darwin"}
	for k, triple := range want {
		os, arch, _ := strings.Cut(k, "/")
		if p, err := codexbin.PlatformFor(os, arch); err != nil || p.Triple != triple {
			t.Errorf("%s: %+v, %v", k, p, err)
		}
	}
}

// The real registry: the newest pinned version's package, its integrity checked,
// runs and says its version.
func TestInstallFromNPM(t *testing.T) {
	// Like the tests that need a codex binary: run by CI (CODEXREC_REQUIRE_CODEX=1,
	// where the binaries come from this registry anyway) or on request.
	if os.Getenv("CODEXREC_REQUIRE_CODEX") != "1" && os.Getenv("CODEXREC_TEST_REGISTRY") != "1" {
		t.Skip("downloads about 170 MB from registry.npmjs.org: set CODEXREC_TEST_REGISTRY=1 (or CODEXREC_REQUIRE_CODEX=1)")
	}
	if testing.Short() {
		t.Skip("-short: no 170 MB download")
	}
	cache := filepath.Join(t.TempDir(), "cache")
	var progress bytes.Buffer
	inst, err := codexbin.Install(context.Background(), codexbin.Newest, codexbin.Options{Cache: cache, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes, %s; progress %q", inst.Path, inst.Bytes, inst.Integrity, lastLine(progress.String()))
	out, err := exec.Command(inst.Path, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "codex-cli "+codexbin.Newest {
		t.Fatalf("%s --version: %q, %v", inst.Path, out, err)
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\r')+1:]
}
