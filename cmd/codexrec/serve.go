package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/codexrec/codexrec/serve"
)

func init() {
	register(&command{name: "serve", args: "[--listen HOST:PORT] [--reveal] [DIR...]", flags: serveFlags, run: runServe, interspersed: true,
		summary: "a live web inspector of every recording under DIRs (loopback, access token, secrets masked)"})
}

func serveFlags(fs *flag.FlagSet) any {
	o := &serve.RunOptions{}
	fs.StringVar(&o.Addr, "listen", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	fs.BoolVar(&o.AllowRemote, "allow-remote", false, "allow a --listen address that is not loopback (the token is then all that guards the recordings)")
	fs.DurationVar(&o.Poll, "poll", 250*time.Millisecond, "how often to look for new recordings and new frames")
	return o
}

func runServe(cfg any, args []string, std stdio) error {
	o := cfg.(*serve.RunOptions)
	o.Dirs, o.Reveal = args, std.reveal
	o.Ready = func(url string) {
		fmt.Fprintln(own(std.out), url)
		fmt.Fprintf(std.err, "codexrec serve: serving %d directories; open the address above (Ctrl-C stops)\n", max(len(args), 1))
	}
	ctx, stop := interruptible()
	defer stop()
	err := serve.Run(ctx, *o)
	if errors.Is(err, serve.ErrNotLoopback) {
		return usagef("--listen %s is not a loopback address (add --allow-remote to mean it)", o.Addr)
	}
	return err
}
