package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// ErrNotLoopback is Run's refusal of a listen address that is not loopback-only
// when AllowRemote is not set.
var ErrNotLoopback = errors.New("not a loopback address")

// RunOptions configure Run: a Server's Options and where it listens. The zero value
// serves the current directory on a free loopback port and tells no one its address.
type RunOptions struct {
	Options
	// Addr is the listen address, host:port ("127.0.0.1:0" when empty).
	Addr string
	// AllowRemote accepts an Addr that is not loopback-only (the access token is then
	// all that guards the recordings).
	AllowRemote bool
	// Ready, when set, is called once listening with the page's address, access
	// token included.
	Ready func(url string)
}

// Run serves the inspector until ctx ends: it checks the address (an error
// wrapping ErrNotLoopback), starts a Server on the directories (their errors come
// before listening), listens, calls Ready and serves.
func Run(ctx context.Context, o RunOptions) error {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if !IsLoopback(o.Addr) && !o.AllowRemote {
		return fmt.Errorf("%s is %w", o.Addr, ErrNotLoopback)
	}
	srv, err := New(o.Options)
	if err != nil {
		return err
	}
	defer srv.Close()
	l, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	if o.Ready != nil {
		o.Ready(fmt.Sprintf("http://%s/?token=%s", l.Addr(), srv.Token()))
	}
	return Serve(ctx, l, srv.Handler())
}
