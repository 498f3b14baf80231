package proxy_test

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/wire"
)

// brokenClient takes n bytes, then fails as a closed pipe does.
type brokenClient struct{ n int }

func (c *brokenClient) Write(p []byte) (int, error) {
	if len(p) <= c.n {
		c.n -= len(p)
		return len(p), nil
	}
	return 0, syscall.EPIPE
}

// When the client stops reading, every frame is still read from the server and
// tapped, but those that never reached the client are marked undelivered, and the
// result says which was the last one delivered.
func TestUndeliveredFramesAreMarked(t *testing.T) {
	in := lines(200)
	var s2c []wire.Frame
	p := &proxy.Proxy{Tap: func(f *wire.Frame) error {
		if f.Dir == wire.ServerToClient {
			s2c = append(s2c, *f)
		}
		return nil
	}}
	pr, pw := io.Pipe()
	go func() {
		// One line at a time, so the client's failure falls between reads.
		for _, l := range strings.SplitAfter(in, "\n") {
			io.WriteString(pw, l)
		}
		pw.Close()
	}()
	res, err := p.Run(exec.Command("cat"), pr, &brokenClient{n: 1000}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.ClientErr, syscall.EPIPE) {
		t.Fatalf("ClientErr %v", res.ClientErr)
	}
	if len(s2c) != 200 {
		t.Fatalf("tapped %d s2c frames, want all 200 (the server is drained)", len(s2c))
	}
	var sent int
	var lastOK int64
	var lost int64
	for i, f := range s2c {
		if f.Undelivered {
			lost++
			continue
		}
		if lost > 0 {
			t.Fatalf("frame %d delivered after an undelivered one", i)
		}
		sent += len(f.Line)
		lastOK = f.Seq
	}
	if sent > 1000 || lost == 0 || lost != res.Undelivered || lastOK != res.LastDelivered {
		t.Errorf("delivered %d bytes up to seq %d, %d undelivered; result %+v", sent, lastOK, lost, res)
	}
}
