package sanitize_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/sanitize"
)

// TestConfigNew: a Config becomes a working sanitizer naming the secret variables
// that were set; a setting that cannot be used is a *SettingError, a bad allow
// expression New's error.
func TestConfigNew(t *testing.T) {
	secret := "tok-" + strings.Repeat("Zq9", 12)
	env := map[string]string{"MY_TOKEN": secret}
	c := sanitize.Config{SecretEnvs: []string{"MY_TOKEN"}, Getenv: func(k string) string { return env[k] }}
	z, names, err := c.New()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "MY_TOKEN" {
		t.Errorf("names %q, want [MY_TOKEN]", names)
	}
	leaks, err := z.Scan(strings.NewReader(`{"params":{"text":"` + secret + `"}}` + "\n"))
	if err != nil || len(leaks) == 0 {
		t.Errorf("the secret of MY_TOKEN was not found: %v %v", leaks, err)
	}

	var se *sanitize.SettingError
	missing := filepath.Join(t.TempDir(), "none")
	if _, _, err := (sanitize.Config{SecretFiles: []string{missing}}).New(); !errors.As(err, &se) || se.Setting != "SecretFiles" || se.Value != missing {
		t.Errorf("missing secret file: %v", err)
	}
	if _, _, err := (sanitize.Config{Allow: []string{"("}}).New(); err == nil || errors.As(err, &se) {
		t.Errorf("bad allow expression: %v", err)
	}
}
