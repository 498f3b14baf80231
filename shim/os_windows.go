//go:build windows

package shim

import (
	"errors"
	"os"
	"os/exec"
)

const isWindows = true

func exeName(n string) string { return n + ".exe" }

// Exec runs the real codex with this process's stdio and environment and exits
// with its status (Windows has no exec).
func Exec(real string, args []string) error {
	cmd := exec.Command(real, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
