package proxy_test

import (
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/wire"
)

// TestBurstTappedAtForwardingPriority: the tapper taps at a nice value 5 above the
// process's while forwarding does not wait for it, and at the process's own while a
// pump waits for room in a full queue, until it has caught up: a frame alone is
// tapped low, a burst behind a full queue (at least partly) at the pumps'
// priority, and the frame after it low again. Every frame is tapped once, in order.
func TestBurstTappedAtForwardingPriority(t *testing.T) {
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Skip(err)
	}
	base := 20 - prio // getpriority(2) returns 20-nice on Linux
	if base > 14 {
		t.Skipf("the process runs at nice %d: no room to lower the tapper by 5", base)
	}
	const burst = 30
	var mu sync.Mutex
	var nices []int
	var seqs []int64
	seen := make(chan struct{}, burst+2)
	idle := make(chan struct{}, 1)
	tap := wire.TapFuncs{
		OnFrame: func(f *wire.Frame) error {
			p, _ := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
			mu.Lock()
			nices, seqs = append(nices, 20-p), append(seqs, f.Seq)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond) // slower than the client: the queue fills
			seen <- struct{}{}
			return nil
		},
		OnIdle: func() error {
			select {
			case idle <- struct{}{}:
			default:
			}
			return nil
		},
	}
	p := &proxy.Proxy{QueueSize: 1, Tap: tap}
	in, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(t.Context(), exec.Command("sh", "-c", "cat >/dev/null"), in, io.Discard, io.Discard)
		done <- err
	}()
	line := func(i int) {
		if _, err := fmt.Fprintf(w, `{"id":%d,"method":"m"}`+"\n", i); err != nil {
			t.Error(err)
		}
	}
	// One frame alone: nothing waits for the tapper.
	line(0)
	<-seen
	<-idle
	// A burst: one line per read, far faster than the tap.
	for i := 1; i <= burst; i++ {
		line(i)
	}
	for range burst {
		<-seen
	}
	<-idle // caught up
	line(burst + 1)
	<-seen
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("frames tapped in the order %v", seqs)
		}
	}
	if len(nices) != burst+2 {
		t.Fatalf("%d frames tapped, want %d", len(nices), burst+2)
	}
	atBase := 0
	for _, n := range nices[1 : burst+1] {
		if n == base {
			atBase++
		}
	}
	if nices[0] != base+5 || nices[burst+1] != base+5 || atBase == 0 {
		t.Errorf("nice values of the frames tapped %v: want %d alone, %d for some of the burst, %d after it", nices, base+5, base, base+5)
	}
}
