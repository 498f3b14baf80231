package proxy

import (
	"os/exec"
	"syscall"
)

// setDeathSignal asks the kernel to send the child SIGTERM when the proxy dies,
// however it dies (SIGKILL included). A Cmd that sets its own SysProcAttr.Pdeathsig
// keeps it.
func setDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if cmd.SysProcAttr.Pdeathsig == 0 {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	}
}
