// Command maxrss runs a command with this process's stdio and, once it has exited,
// writes its peak resident memory (ru_maxrss, KB) to the file $MAXRSS_OUT. A process
// the benchmark starts directly inherits the benchmark's own peak in ru_maxrss (the
// kernel keeps the peak of the address space it replaced at exec), so BenchmarkHugeLine
// measures through this small process instead.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		os.WriteFile(os.Getenv("MAXRSS_OUT"), fmt.Appendf(nil, "%d\n", ru.Maxrss), 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(1)
	}
}
