//go:build !linux

package proxy

import "os/exec"

// setDeathSignal does nothing where the kernel has no parent-death signal: a server
// outliving a killed proxy sees the end of its stdin instead.
func setDeathSignal(*exec.Cmd) {}
