package wsproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ErrListenFlag says a command already chooses its own transport.
var ErrListenFlag = errors.New("the command chooses its own listen address")

// ListenFlag returns the value of a --listen flag in args ("" when there is none).
func ListenFlag(args []string) string {
	for i, a := range args {
		switch {
		case a == "--":
			return ""
		case a == "--listen" && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--listen="):
			return strings.TrimPrefix(a, "--listen=")
		}
	}
	return ""
}

// IsStdio reports whether a --listen value means stdio (none, or stdio://).
func IsStdio(listen string) bool { return listen == "" || listen == "stdio://" || listen == "stdio" }

// Child is an app-server started on a private unix socket.
type Child struct {
	Addr Addr // unix://DIR/app-server.sock
	Cmd  *exec.Cmd
	dir  string
	done chan struct{}
	err  error
}

// StartChild starts cmd (codex app-server ...) with --listen unix://SOCKET added, the
// socket in a fresh 0700 directory, and waits until it accepts connections (or
// timeout passes, or the child exits). cmd must not have a --listen of its own
// (ErrListenFlag). The child's stderr goes to stderr. Stop ends it and removes the
// directory.
func StartChild(ctx context.Context, cmd *exec.Cmd, stderr io.Writer, timeout time.Duration) (*Child, error) {
	if l := ListenFlag(cmd.Args[1:]); l != "" {
		return nil, fmt.Errorf("%w (%s): leave it out, the socket is chosen for it", ErrListenFlag, l)
	}
	dir, err := os.MkdirTemp("", "codexrec-app-server-")
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "app-server.sock")
	cmd.Args = append(cmd.Args, "--listen", "unix://"+sock)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	c := &Child{Addr: Addr{Scheme: "unix", Path: sock}, Cmd: cmd, dir: dir, done: make(chan struct{})}
	go func() { c.err = cmd.Wait(); close(c.done) }()
	deadline := time.Now().Add(timeout)
	for {
		if nc, err := net.Dial("unix", sock); err == nil {
			nc.Close()
			return c, nil
		}
		select {
		case <-c.done:
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%s exited before listening on %s: %v", cmd.Path, c.Addr, c.err)
		case <-ctx.Done():
			c.Stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.Stop()
			return nil, fmt.Errorf("%s did not listen on %s within %s", cmd.Path, c.Addr, timeout)
		}
	}
}

// Done is closed when the child has exited.
func (c *Child) Done() <-chan struct{} { return c.done }

// Stop sends SIGTERM (SIGKILL after 5s), waits for the exit and removes the socket's
// directory. It returns the child's exit error, nil for a clean exit or SIGTERM.
func (c *Child) Stop() error {
	select {
	case <-c.done:
	default:
		c.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			c.Cmd.Process.Kill()
			<-c.done
		}
	}
	os.RemoveAll(c.dir)
	var ee *exec.ExitError
	if errors.As(c.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM {
			return nil
		}
	}
	return c.err
}

// WithoutListen is args without its --listen flag and value: the command a shim
// hands StartChild (through wsrecord.Start) when codex was asked to listen itself.
func WithoutListen(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--":
			return append(out, args[i:]...)
		case args[i] == "--listen":
			i++
		case strings.HasPrefix(args[i], "--listen="):
		default:
			out = append(out, args[i])
		}
	}
	return out
}
