//go:build unix

package main

import (
	"os"
	"syscall"
)

func killSelf(sig syscall.Signal) { syscall.Kill(os.Getpid(), sig) }
