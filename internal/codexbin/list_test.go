package codexbin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
)

func TestPlatformNamed(t *testing.T) {
	p, err := codexbin.PlatformNamed("linux-x64")
	if err != nil || p.NPM != "linux-x64" {
		t.Fatalf("PlatformNamed(linux-x64) = %v, %v", p, err)
	}
	_, err = codexbin.PlatformNamed("plan9-mips")
	var pe *codexbin.PlatformError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "linux-x64") {
		t.Errorf("PlatformNamed(plan9-mips) = %v; want a PlatformError listing the known ones", err)
	}
}

func TestList(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(codexbin.CacheEnv, cache)
	t.Chdir(t.TempDir()) // outside any clone: CacheDir alone
	bin := codexbin.BinaryIn(cache, "0.1.0")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	found, missing, err := codexbin.List()
	if err != nil || len(found) != 1 || found[0] != (codexbin.Binary{Version: "0.1.0", Path: bin}) {
		t.Fatalf("List = %v, %v; want 0.1.0 at %s", found, err, bin)
	}
	if len(missing) != len(codexbin.Versions) {
		t.Errorf("missing = %v; want every pinned version", missing)
	}
	var text, js bytes.Buffer
	if m, err := codexbin.WriteList(&text, false); err != nil || len(m) != len(missing) || text.String() != fmt.Sprintf("%-10s %s\n", "0.1.0", bin) {
		t.Errorf("WriteList text = %q, %v, %v", text.String(), m, err)
	}
	var entries []codexbin.Entry
	if _, err := codexbin.WriteList(&js, true); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &entries); err != nil || len(entries) != 1+len(missing) ||
		entries[0] != (codexbin.Entry{Version: "0.1.0", Path: bin, Installed: true}) || entries[1].Installed || entries[1].Path != "" {
		t.Errorf("WriteList JSON = %s, %v", js.String(), err)
	}
}

func TestVersion(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for codex")
	}
	dir := t.TempDir()
	script := func(name, out string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho '"+out+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if v, err := codexbin.Version(context.Background(), script("codex", "codex-cli 0.171.0")); err != nil || v != "0.171.0" {
		t.Errorf("Version = %q, %v; want 0.171.0", v, err)
	}
	if v, err := codexbin.Version(context.Background(), script("mute", "")); err == nil {
		t.Errorf("Version of a silent binary = %q; want an error", v)
	}
}
