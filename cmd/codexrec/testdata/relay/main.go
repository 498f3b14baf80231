// Command relay is the floor for any stdio proxy written in Go: it runs a command and
// copies bytes both ways with nothing else, over blocking pipes as the proxy does.
// BenchmarkRoundTrip measures it next to a bare cat, so that what the recording
// proxy costs is told apart from what any process in the middle costs.
package main

import (
	"io"
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	inR, inW, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	inR.Close()
	outW.Close()
	inW.Fd() // blocking mode, as the proxy's pipes
	outR.Fd()
	go func() {
		io.CopyBuffer(inW, os.Stdin, make([]byte, 64<<10))
		inW.Close()
	}()
	io.CopyBuffer(os.Stdout, outR, make([]byte, 64<<10))
	cmd.Wait()
}
