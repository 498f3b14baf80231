// Package codextest gives tests the real codex binaries and a hermetic environment
// to run them in. A missing binary skips the test, unless CODEXREC_REQUIRE_CODEX=1
// (set by make test and CI), where it fails: CI must never pass by skipping.
package codextest

import (
	"os"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
)

// Binary returns the path of codex version, or skips or fails t when it is missing.
func Binary(t testing.TB, version string) string {
	t.Helper()
	p, err := codexbin.Find(version)
	if err != nil {
		Missing(t, "%v", err)
	}
	return p
}

// Missing skips t for something the test needs from outside the repository (a
// Codex binary, a browser), or fails it under CODEXREC_REQUIRE_CODEX=1, where a
// skip would let CI pass without running the test. What the repository itself
// holds (committed fixtures) is never missing: such tests call t.Fatal instead.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CODEXREC_REQUIRE_CODEX") == "1" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// Env is a hermetic environment for codex app-server: a fresh CODEX_HOME under
// t.TempDir, no real API keys, and FAKE_API_KEY for a fake model provider.
func Env(t testing.TB) (env []string, codexHome string) {
	t.Helper()
	codexHome = t.TempDir()
	for _, kv := range os.Environ() {
		switch {
		case hasPrefix(kv, "OPENAI_API_KEY="), hasPrefix(kv, "CODEX_API_KEY="), hasPrefix(kv, "CODEX_HOME="):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "CODEX_HOME="+codexHome, "FAKE_API_KEY=sk-fake-key")
	return env, codexHome
}

// FakeProviderArgs are the app-server arguments that point Codex at a fake model
// listening on baseURL (for example "http://127.0.0.1:PORT/v1").
func FakeProviderArgs(baseURL string) []string {
	return []string{"app-server", "-c", "model_provider=fake", "-c", "model=gpt-fake",
		"-c", `model_providers.fake={name="fake",base_url="` + baseURL + `",env_key="FAKE_API_KEY",wire_api="responses"}`}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
