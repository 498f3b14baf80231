package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the profiles a developer asked for through the environment:
// CODEXREC_CPUPROFILE=FILE (pprof CPU profile) and CODEXREC_TRACE=FILE (execution
// trace, for latency: what a goroutine waited for). They profile the binary as a
// client runs it, under the bench's load, which a Go benchmark cannot. The returned
// func stops them; a profile that cannot start is reported and skipped.
func startProfiles(errOut io.Writer) func() {
	profiles := []struct {
		env   string
		start func(io.Writer) error
		stop  func()
	}{
		{"CODEXREC_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile},
		{"CODEXREC_TRACE", trace.Start, trace.Stop},
	}
	var stops []func()
	for _, p := range profiles {
		path := os.Getenv(p.env)
		if path == "" {
			continue
		}
		f, err := os.Create(path)
		if err == nil {
			if err = p.start(f); err != nil {
				f.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(errOut, "codexrec: %s: %v\n", p.env, err)
			continue
		}
		stops = append(stops, func() { p.stop(); f.Close() })
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}
