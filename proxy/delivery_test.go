package proxy_test

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

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
	p := &proxy.Proxy{Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
		if f.Dir == wire.ServerToClient {
			s2c = append(s2c, *f)
		}
		return nil
	}}}
	pr, pw := io.Pipe()
	go func() {
		// One line at a time, so the client's failure falls between reads.
		for _, l := range strings.SplitAfter(in, "\n") {
			io.WriteString(pw, l)
		}
		pw.Close()
	}()
	res, err := p.Run(t.Context(), exec.Command("cat"), pr, &brokenClient{n: 1000}, io.Discard)
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

// A client that neither reads nor closes: the write to it never completes. Once the
// server has exited and the drain timeout passed, Run returns (no deadlock with the
// tapper waiting for that write), and the frame is tapped as undelivered.
func TestStuckClientEndsWithUndelivered(t *testing.T) {
	var tapped []wire.Frame
	p := &proxy.Proxy{DrainTimeout: 200 * time.Millisecond, Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
		tapped = append(tapped, *f)
		return nil
	}}}
	_, stuck := io.Pipe() // nobody reads: every write blocks
	done := make(chan struct{})
	var res proxy.Result
	var err error
	go func() {
		res, err = p.Run(t.Context(), exec.Command("sh", "-c", `echo '{"method":"hello"}'`), strings.NewReader(""), stuck, io.Discard)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return: the tapper waits for a write that never ends")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.ClientErr, proxy.ErrClientStuck) || res.Undelivered != 1 || res.LastDelivered != 0 {
		t.Errorf("result %+v", res)
	}
	if len(tapped) != 1 || !tapped[0].Undelivered {
		t.Errorf("tapped %+v", tapped)
	}
}
