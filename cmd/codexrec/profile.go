package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the profiles a developer asked for through the environment:
// CODEXREC_CPUPROFILE=FILE (pprof CPU profile) and CODEXREC_TRACE=FILE (execution
// trace, for latency: what a goroutine waited for). They profile the binary as a
// client runs it, under the bench's load, which a Go benchmark cannot. The returned
// func stops them; a profile that cannot start is reported and skipped.
func startProfiles(errOut *os.File) func() {
	var stops []func()
	if path := os.Getenv("CODEXREC_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err != nil {
			fmt.Fprintf(errOut, "codexrec: CODEXREC_CPUPROFILE: %v\n", err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(errOut, "codexrec: CODEXREC_CPUPROFILE: %v\n", err)
			f.Close()
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := os.Getenv("CODEXREC_TRACE"); path != "" {
		if f, err := os.Create(path); err != nil {
			fmt.Fprintf(errOut, "codexrec: CODEXREC_TRACE: %v\n", err)
		} else if err := trace.Start(f); err != nil {
			fmt.Fprintf(errOut, "codexrec: CODEXREC_TRACE: %v\n", err)
			f.Close()
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}
