//go:build !linux

package proxy

import "os"

func growPipe(*os.File) {}

// LowerPriority does nothing here (see pipe_linux.go).
func LowerPriority() {}
