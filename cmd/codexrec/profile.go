package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the profiles a developer asked for through the environment:
// CODEXREC_CPUPROFILE=FILE (pprof CPU profile), CODEXREC_TRACE=FILE (execution
// trace, for latency: what a goroutine waited for) and CODEXREC_MEMPROFILE=FILE
// (every allocation after start-up's package initialisation, written at exit). They profile the binary as a
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
	if path := os.Getenv("CODEXREC_MEMPROFILE"); path != "" {
		// Every allocation is sampled: a short run (a start) allocates little.
		runtime.MemProfileRate = 1
		stops = append(stops, func() {
			f, err := os.Create(path)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(errOut, "codexrec: CODEXREC_MEMPROFILE: %v\n", err)
			}
		})
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}
