package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/serve"
)

func init() {
	register(&cli.Command{Name: "serve", Args: "[--listen HOST:PORT] [--reveal] [DIR...]", Flags: serveFlags, Run: runServe, Interspersed: true,
		Summary: "a live web inspector of every recording under DIRs (loopback, access token, secrets masked)"})
}

func serveFlags(fs *flag.FlagSet) any {
	o := &serve.RunOptions{}
	fs.StringVar(&o.Addr, "listen", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	fs.BoolVar(&o.AllowRemote, "allow-remote", false, "allow a --listen address that is not loopback (the token is then all that guards the recordings)")
	fs.DurationVar(&o.Poll, "poll", 250*time.Millisecond, "how often to look for new recordings and new frames")
	return o
}

func runServe(cfg any, args []string, std cli.IO) error {
	o := cfg.(*serve.RunOptions)
	o.Dirs, o.Reveal = args, std.Reveal
	o.Ready = func(url string) {
		fmt.Fprintln(cli.Own(std.Out), url)
		fmt.Fprintf(std.Log, "serving %d directories; open the address above (Ctrl-C stops)\n", max(len(args), 1))
	}
	ctx, stop := cli.Interruptible()
	defer stop()
	err := serve.Run(ctx, *o)
	if errors.Is(err, serve.ErrNotLoopback) {
		return cli.Usagef("--listen %s is not a loopback address (add --allow-remote to mean it)", o.Addr)
	}
	return err
}
