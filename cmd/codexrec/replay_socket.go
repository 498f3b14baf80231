package main

import "github.com/codexrec/codexrec/wsproxy"

// checkSocket refuses replay --listen's flags that cannot be used.
func (c *replayConfig) checkSocket() error {
	if c.segment != 1 {
		return usagef("--segment: a socket recording holds one connection; --listen serves segment 1")
	}
	if _, err := wsproxy.ParseURL(c.listen); err != nil {
		return usagef("--listen: %v", err)
	}
	if c.memoryMiB < 0 {
		return usagef("--memory-budget: %d MiB: want 0 (the default) or more", c.memoryMiB)
	}
	return nil
}
