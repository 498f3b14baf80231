package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/codexrec/codexrec/serve"
)

func init() {
	register(&command{
		name:         "serve",
		args:         "[--listen HOST:PORT] [--reveal] [DIR...]",
		summary:      "a live web inspector of every recording under DIRs (loopback, access token, secrets masked)",
		flags:        serveFlags,
		run:          runServe,
		interspersed: true,
	})
}

type serveConfig struct {
	listen      string
	allowRemote bool
	poll        time.Duration
}

func serveFlags(fs *flag.FlagSet) any {
	c := &serveConfig{}
	fs.StringVar(&c.listen, "listen", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "allow a --listen address that is not loopback (the token is then all that guards the recordings)")
	fs.DurationVar(&c.poll, "poll", 250*time.Millisecond, "how often to look for new recordings and new frames")
	return c
}

func runServe(cfg any, args []string, std stdio) error {
	c := cfg.(*serveConfig)
	if !serve.IsLoopback(c.listen) && !c.allowRemote {
		return usagef("--listen %s is not a loopback address (add --allow-remote to mean it)", c.listen)
	}
	srv, err := serve.New(serve.Options{Dirs: args, Reveal: std.reveal, Poll: c.poll})
	if err != nil {
		return usageOrIO(err)
	}
	defer srv.Close()
	l, err := net.Listen("tcp", c.listen)
	if err != nil {
		return usageOrIO(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(own(std.out), "http://%s/?token=%s\n", l.Addr(), srv.Token())
	fmt.Fprintf(std.err, "codexrec serve: serving %d directories; open the address above (Ctrl-C stops)\n", max(len(args), 1))
	return serve.Serve(ctx, l, srv.Handler())
}
