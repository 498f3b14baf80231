package record

import (
	"bytes"
	"io"
	"os"
	"sync"

	"github.com/codexrec/codexrec/sanitize"
)

// guardFollower runs the leak guard's detecting pass while the session goes: it
// follows the recording's temporary file as the writer fills it, on a goroutine of
// its own (off the forwarding path and off the tap's), and feeds each line to a
// sanitize.GuardFeed. At the end only the bytes written since its last read are left
// to check; a file it found clean is published without a second reading, and any
// other goes through GuardRedact as before.
type guardFollower struct {
	feed *sanitize.GuardFeed
	f    *os.File

	mu        sync.Mutex
	size      int64 // bytes the writer has written so far
	rewritten bool  // the writer cut the file back: what was read may be stale
	ending    bool  // the writer is done: read to size, then stop
	stopped   bool  // the follower ended
	checked   int64 // bytes the follower has checked
	caughtUp  sync.Cond
	wake      chan struct{}

	done  chan struct{}
	clean bool // set before done is closed
}

// followGuard starts following the temporary file tmp with the guard's feed; nil
// when the file cannot be opened (the guard then reads it at the end).
func followGuard(g *sanitize.Sanitizer, tmp string) *guardFollower {
	f, err := os.Open(tmp)
	if err != nil {
		return nil
	}
	gf := &guardFollower{feed: g.NewGuardFeed(), f: f, wake: make(chan struct{}, 1), done: make(chan struct{})}
	gf.caughtUp.L = &gf.mu
	go gf.run()
	return gf
}

// written is the writer's Written hook. It waits while the follower is more than
// MaxLag behind, so that at the end little is left to check.
func (g *guardFollower) written(size int64) {
	g.mu.Lock()
	if size < 0 {
		g.rewritten = true
	} else {
		g.size = size
	}
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
	g.mu.Lock()
	for g.size-g.checked > MaxLag && !g.stopped && !g.rewritten {
		g.caughtUp.Wait()
	}
	g.mu.Unlock()
}

// progress records what the follower has checked and wakes a waiting writer.
func (g *guardFollower) progress(off int64, stopped bool) {
	g.mu.Lock()
	g.checked, g.stopped = off, g.stopped || stopped
	g.mu.Unlock()
	g.caughtUp.Broadcast()
}

// finish waits for the follower to have read everything written and reports
// whether all of it was clean.
func (g *guardFollower) finish() bool {
	g.stop()
	<-g.done
	return g.clean
}

// stop tells the follower the writer is done; it reads what is left and ends.
func (g *guardFollower) stop() {
	g.mu.Lock()
	g.ending = true
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// readChunk is how much the follower reads at a time.
const readChunk = 1 << 20

func (g *guardFollower) run() {
	defer close(g.done)
	defer g.f.Close()
	var off int64 // read so far
	defer func() { g.progress(off, true) }()
	buf := make([]byte, 0, readChunk)
	ok := true
	for ok {
		<-g.wake
		g.mu.Lock()
		size, ending, rewritten := g.size, g.ending, g.rewritten
		g.mu.Unlock()
		if rewritten {
			ok = false
			break
		}
		for off < size {
			if cap(buf)-len(buf) == 0 {
				// A line longer than the buffer: grow it to hold the line.
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := g.f.ReadAt(buf[len(buf):cap(buf)][:min(int64(cap(buf)-len(buf)), size-off)], off)
			off += int64(n)
			buf = buf[:len(buf)+n]
			if err != nil && err != io.EOF || n == 0 {
				ok = false
				break
			}
			rest := buf
			for {
				i := bytes.IndexByte(rest, '\n')
				if i < 0 {
					break
				}
				g.feed.Line(rest[:i+1])
				rest = rest[i+1:]
			}
			buf = buf[:copy(buf, rest)]
			g.progress(off-int64(len(buf)), false)
		}
		if ending {
			if len(buf) > 0 {
				g.feed.Line(buf) // the last line, without its newline
			}
			break
		}
	}
	g.clean = ok && g.feed.Clean()
}
