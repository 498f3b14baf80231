package proxy_test

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/wire"
)

// The bytes of a line reach the other side as they arrive, before its newline does
// (as through a bare relay), and the tap sees the line once, whole, when it ends.
func TestUnfinishedLineForwardedAtOnce(t *testing.T) {
	clientR, clientW := io.Pipe()
	outR, outW := io.Pipe()
	var mu sync.Mutex
	var tapped []string
	p := &proxy.Proxy{Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
		mu.Lock()
		tapped = append(tapped, string(f.Line))
		mu.Unlock()
		return nil
	}}}
	done := make(chan proxy.Result, 1)
	go func() {
		res, err := p.Run(t.Context(), exec.Command("cat"), clientR, outW, io.Discard)
		if err != nil {
			t.Error(err)
		}
		outW.Close()
		done <- res
	}()
	echo := bufio.NewReader(outR)
	head := `{"id":1,"method":"m","params":{"text":"`
	clientW.Write([]byte(head))
	got := make([]byte, len(head))
	read := make(chan error, 1)
	go func() { _, err := io.ReadFull(echo, got); read <- err }()
	select {
	case err := <-read:
		if err != nil || string(got) != head {
			t.Fatalf("echoed %q, %v", got, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the start of a line was held back until its newline")
	}
	mu.Lock()
	n := len(tapped)
	mu.Unlock()
	if n != 0 {
		t.Fatalf("tapped %d frames before the line ended", n)
	}
	tail := `hello"}}` + "\n"
	clientW.Write([]byte(tail))
	clientW.Close()
	rest, _ := io.ReadAll(echo)
	res := <-done
	if string(rest) != tail || res.ExitCode != 0 {
		t.Fatalf("echoed rest %q, result %+v", rest, res)
	}
	want := head + tail
	if len(tapped) != 2 || tapped[0] != want || tapped[1] != want {
		t.Fatalf("tapped %q, want the whole line once each way", tapped)
	}
}

// A line longer than wire.SpoolMin crosses byte for byte both ways and is tapped whole
// each way; with ReuseLines its spooled memory is given back after the tap.
func TestLongLineThroughProxy(t *testing.T) {
	for _, reuse := range []bool{false, true} {
		line := append(append([]byte(`{"method":"m","params":{"text":"`), bytes.Repeat([]byte("0123456789"), wire.SpoolMin/10+4321)...), `"}}`+"\n"...)
		in := append(append([]byte("{\"id\":1,\"method\":\"a\"}\n"), line...), "{\"id\":2,\"method\":\"b\"}\n"...)
		var lens []int
		whole := 0
		p := &proxy.Proxy{ReuseLines: reuse, Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
			lens = append(lens, len(f.Line))
			if bytes.Equal(f.Line, line) {
				whole++
			}
			return nil
		}}}
		var out bytes.Buffer
		res, err := p.Run(t.Context(), exec.Command("cat"), bytes.NewReader(in), &out, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), in) || res.ExitCode != 0 {
			t.Fatalf("reuse %v: client got %d bytes, want %d; %+v", reuse, out.Len(), len(in), res)
		}
		if len(lens) != 6 || whole != 2 {
			t.Fatalf("reuse %v: tapped lines of %v bytes; the long line whole %d times, want 2", reuse, lens, whole)
		}
	}
}

// A full queue wakes the tapper: the write that would wake it may wait on a server
// that is itself blocked writing to the other pump, which waits for room in the
// queue. Here the server is unbuffered (io.Pipe both ways) and echoes each line
// before it reads on, and a line over MaxQueued fills the queue at once.
func TestFullQueueWakesTapper(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		defer outW.Close()
		br := bufio.NewReader(inR)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				outW.Write(line)
			}
			if err != nil {
				return
			}
		}
	}()
	var in bytes.Buffer
	in.WriteString(`{"method":"m","params":{"text":"` + string(bytes.Repeat([]byte("x"), 300<<10)) + `"}}` + "\n")
	for range 5000 {
		in.WriteString(`{"method":"n","params":{}}` + "\n")
	}
	frames := 0
	p := &proxy.Proxy{MaxQueued: 64 << 10, Tap: wire.TapFuncs{OnFrame: func(*wire.Frame) error { frames++; return nil }}}
	done := make(chan proxy.Result, 1)
	var out bytes.Buffer
	go func() { done <- p.Serve(proxy.Server{In: inW, Out: outR}, bytes.NewReader(in.Bytes()), &out) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the session never ended: the tapper was not woken while the queue was full")
	}
	if !bytes.Equal(out.Bytes(), in.Bytes()) || frames != 2*5001 {
		t.Fatalf("echoed %d bytes of %d, tapped %d frames of %d", out.Len(), in.Len(), frames, 2*5001)
	}
}
