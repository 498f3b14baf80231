//go:build !windows

package shim

import (
	"os"
	"syscall"
)

const isWindows = false

func exeName(n string) string { return n }

// Exec replaces this process with the real codex: argv, environment, working
// directory, stdio, signals and the exit status are the real binary's own.
func Exec(real string, args []string) error {
	return syscall.Exec(real, append([]string{real}, args...), os.Environ())
}
