package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// StartProfiles starts the profiles a developer asked for through the environment,
// each variable named prefix plus: CPUPROFILE=FILE (pprof CPU profile), TRACE=FILE
// (execution trace, for latency: what a goroutine waited for) and MEMPROFILE=FILE
// (every allocation after start-up's package initialisation, written at exit).
// They profile the binary as a client runs it, which a Go benchmark cannot. The
// returned func stops them; a profile that cannot start is reported on errOut and
// skipped.
func StartProfiles(prefix string, errOut io.Writer) func() {
	profiles := []struct {
		env   string
		start func(io.Writer) error
		stop  func()
	}{
		{prefix + "CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile},
		{prefix + "TRACE", trace.Start, trace.Stop},
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
			fmt.Fprintf(errOut, "%s: %v\n", p.env, err)
			continue
		}
		stops = append(stops, func() { p.stop(); f.Close() })
	}
	if env := prefix + "MEMPROFILE"; os.Getenv(env) != "" {
		// Every allocation is sampled: a short run (a start) allocates little.
		runtime.MemProfileRate = 1
		stops = append(stops, func() {
			f, err := os.Create(os.Getenv(env))
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(errOut, "%s: %v\n", env, err)
			}
		})
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}
