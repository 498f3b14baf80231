package main

import (
	"flag"

	"github.com/codexrec/codexrec/wsproxy"
)

// socketFlags are record's WebSocket flags.
type socketFlags struct {
	listen, upstream, urlFile string
	memoryMiB                 int64
	// banner prints codex's own ws:// banner once clients may connect: set when
	// codexrec stands in for codex (the shim), never a flag.
	banner bool
}

func (s *socketFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.listen, "listen", "", "record WebSocket clients connecting to `URL` (ws://HOST:PORT or unix://PATH; port 0 picks one), one recording per connection in -o DIR")
	fs.StringVar(&s.upstream, "upstream", "", "with --listen: relay to the app-server already listening at `URL` (ws:// or unix://) instead of starting COMMAND")
	fs.StringVar(&s.urlFile, "url-file", "", "with --listen: write the bound URL to `FILE` once clients may connect")
	fs.Int64Var(&s.memoryMiB, "memory-budget", wsproxy.DefaultMemoryBudget>>20, "with --listen: `MiB` of messages held in memory across all connections (0: the default); past it, reads wait (back-pressure)")
}

// checkSocket refuses record --listen's flags and arguments that do not go
// together.
func (c *recordConfig) checkSocket(args []string) error {
	if c.out == "" {
		return usagef("-o DIR is required with --listen (one recording per connection)")
	}
	if c.socket.upstream == "" && len(args) == 0 {
		return usagef("--listen needs --upstream URL or a command: codexrec record --listen %s -o DIR -- codex app-server", c.socket.listen)
	}
	if c.socket.upstream != "" && len(args) > 0 {
		return usagef("--upstream and a command exclude each other")
	}
	if l := wsproxy.ListenFlag(args[min(1, len(args)):]); l != "" {
		return usagef("leave --listen %s out of the command: record --listen starts it on a private unix socket", l)
	}
	if _, err := wsproxy.ParseURL(c.socket.listen); err != nil {
		return usagef("--listen: %v", err)
	}
	if c.socket.memoryMiB < 0 {
		return usagef("--memory-budget: %d MiB: want 0 (the default) or more", c.socket.memoryMiB)
	}
	if c.socket.upstream != "" {
		if _, err := wsproxy.ParseURL(c.socket.upstream); err != nil {
			return usagef("--upstream: %v", err)
		}
	}
	return nil
}
