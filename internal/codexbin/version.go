package codexbin

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Version is the version the codex at path reports (`codex --version` prints
// "codex-cli 0.171.0"); path "" is the codex on PATH.
func Version(ctx context.Context, path string) (string, error) {
	if path == "" {
		p, err := exec.LookPath("codex")
		if err != nil {
			return "", err
		}
		path = p
	}
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		return "", fmt.Errorf("%s --version: no version in %q", path, strings.TrimSpace(string(out)))
	}
	return f[len(f)-1], nil
}
