package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/codexrec/codexrec/sanitize"
)

// guardFollower runs the leak guard's detecting pass while the session goes: it
// follows the recording's temporary file as the writer fills it, on a goroutine of
// its own (off the forwarding path and off the tap's), and feeds each line to a
// sanitize.GuardFeed. At the end only the bytes written since its last read are left
// to check; a file it found clean is published without a second reading, and any
// other goes through GuardRedact as before.
//
// With trust set (the session's sanitizer is the guard's: the same rules, secrets
// and placeholders), a frame entry's message, which that sanitizer wrote, is not
// checked again: what the guard's detectors find in the sanitizer's output is
// nothing (sanitize's FuzzGuardAfterSanitize and FuzzScan hold it), and checking it
// cost a second and third pass of the detectors over every byte of the session.
// The exception is a known secret where no walk of the message's strings sees it,
// across two strings or outside them (a number): the session looks for those in
// each message as it writes it (Session.scanTrusted, sanitize's
// FindsAcrossStrings, nothing to do unless a secret's value could show there), and
// one found distrusts the file (distrust), which then goes through GuardRedact.
//
// Without a sanitizer in the session, each frame is written as it crossed and the
// guard's own detectors look at it beside (Session.watch, on the stage's goroutine,
// with the delta lookahead a sanitizer has), changing nothing: a frame they leave as
// it was is what the guard's sanitizer would have written, so the follower trusts it
// as above, and the first frame they would change distrusts the file. This is one
// pass of the detectors over each message instead of the feed's and the scan's over
// each line of the file (a 99 MB bulk session with --no-sanitize: 0.98 to 0.77
// CPU-seconds, the bench server included).
//
// The rest of the entry (its method, id and reason, copied beside the message) and
// every other entry (header, findings, redactions, meta) are checked as before, and
// so is a frame kept as raw text or base64 (not a JSON message).
//
// The guard's two passes over each line, its sanitizer's and its scan, run on two
// goroutines: the follower feeds each line to the first and hands the lines it fed,
// a read's worth at a time, to a scanner goroutine for the second.
type guardFollower struct {
	g     *sanitize.Sanitizer
	feed  *sanitize.GuardFeed
	f     *os.File
	trust bool
	// distrusted is set when the session found a known secret in a trusted
	// message (Session.scanTrusted): the file is not clean.
	distrusted atomic.Bool
	env        []byte // the follower's scratch for a frame entry's envelope

	batch     []byte      // the lines fed since the last hand-over, for the scanner
	scan      chan []byte // batches for the scanner
	free      chan []byte // batches the scanner is done with
	scanFound chan bool   // the scanner's verdict, once scan is closed

	mu        sync.Mutex
	size      int64 // bytes the writer has written so far
	rewritten bool  // the writer cut the file back: what was read may be stale
	ending    bool  // the writer is done: read to size, then stop
	stopped   bool  // the follower ended
	checked   int64 // bytes the follower has checked
	read      int64 // bytes the follower has read (written by its goroutine only)
	caughtUp  sync.Cond
	wake      chan struct{}

	done  chan struct{}
	clean bool // set before done is closed
}

// followGuard starts following the temporary file tmp with the guard's feed; nil
// when the file cannot be opened (the guard then reads it at the end). trust says
// the frames' messages are g's own output (see guardFollower).
func followGuard(g *sanitize.Sanitizer, tmp string, trust bool) *guardFollower {
	f, err := os.Open(tmp)
	if err != nil {
		return nil
	}
	gf := &guardFollower{g: g, feed: g.NewGuardFeedScanned(), f: f, trust: trust, wake: make(chan struct{}, 1), done: make(chan struct{}),
		scan: make(chan []byte, 1), free: make(chan []byte, 2), scanFound: make(chan bool, 1)}
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
	// Unread bytes count, not unchecked ones: a line the writer writes in parts
	// (a long frame) is checked only once its last part is written.
	for g.size-g.read > MaxLag && !g.stopped && !g.rewritten {
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
	return g.clean && !g.distrusted.Load()
}

// distrust says a trusted message holds something the guard's scan finds.
func (g *guardFollower) distrust() { g.distrusted.Store(true) }

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

// readChunk is the most the follower reads at a time.
const readChunk = 1 << 20

// Read reads the file from where the follower is, waiting for the writer while it
// has written nothing more, until the writer is done (io.EOF at the end of what it
// wrote). A file the writer cut back is an error: the guard then reads it whole.
func (g *guardFollower) Read(p []byte) (int, error) {
	g.mu.Lock()
	for g.size <= g.read && !g.ending && !g.rewritten {
		g.mu.Unlock()
		<-g.wake
		g.mu.Lock()
	}
	size, rewritten := g.size, g.rewritten
	g.mu.Unlock()
	if rewritten {
		return 0, errRewritten
	}
	if size <= g.read {
		return 0, io.EOF
	}
	n, err := g.f.ReadAt(p[:min(int64(len(p)), size-g.read, readChunk)], g.read)
	g.mu.Lock()
	g.read += int64(n)
	g.mu.Unlock()
	g.caughtUp.Broadcast()
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

var errRewritten = errors.New("the recording was cut back")

// maxFollowed is the longest line the follower checks: a longer one is left to the
// guard's reading of the whole file at the end, once the session has let go of the
// line, so that the line is never held twice (the pipeline's and the follower's).
const maxFollowed = 1 << 20

// followChunk is the follower's read buffer once the recording grows.
const followChunk = 256 << 10

func (g *guardFollower) run() {
	// At normal priority, as the stage: the writer waits for the follower past
	// MaxLag, and a lowered priority under other processes' load stalled forwarding
	// (turn p99 4.3x the C relay against 2.1x without, same run, load 13).
	defer close(g.done)
	defer g.f.Close()
	var checked int64
	defer func() { g.progress(checked, true) }()
	go g.scanner()
	scanning := true
	defer func() {
		if scanning {
			close(g.scan)
			<-g.scanFound
		}
	}()
	// Small at first, grown once a read fills it: a session that records little
	// never allocates the full buffer.
	buf := make([]byte, 0, 16<<10)
	first := true     // the header
	skipping := false // inside a line longer than maxFollowed
	whole := true     // every line was checked
	for {
		n, err := g.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		full := len(buf) == cap(buf)
		rest := buf
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n') + 1
			if i == 0 {
				break
			}
			line := rest[:i]
			rest = rest[i:]
			if skipping {
				skipping = false
				continue
			}
			if first {
				line, first = withoutRuleNames(line), false
			}
			g.check(line)
		}
		switch {
		case skipping:
			rest = nil
		case len(rest) > maxFollowed:
			// A trusted frame needs only its envelope, which its first bytes hold:
			// the end has nothing of it left to read.
			if !g.checkEnvelope(rest) {
				whole = false
			}
			skipping, rest = true, nil
		case len(rest) == cap(buf):
			buf = append(buf, 0)[:len(buf)] // a line longer than the buffer
		}
		checked += int64(len(buf) - len(rest))
		buf = buf[:copy(buf, rest)]
		if err == io.EOF && len(buf) > 0 && !skipping {
			g.check(buf) // the last line, without its newline
		}
		g.handOver()
		if full && cap(buf) < followChunk {
			buf = append(make([]byte, 0, followChunk), buf...)
		}
		g.progress(checked, false)
		if err == io.EOF {
			clean := whole && g.feed.Clean()
			close(g.scan)
			scanning = false
			g.clean = !<-g.scanFound && clean
			return
		}
		if err != nil {
			return // not clean: the guard reads the file at the end
		}
	}
}

// check feeds one line to the guard: of a trusted frame, its envelope only.
func (g *guardFollower) check(line []byte) {
	if !g.checkEnvelope(line) {
		g.fed(line)
	}
}

// fed feeds line to the guard's sanitizer and keeps it for the scanner.
func (g *guardFollower) fed(line []byte) {
	g.feed.Line(line)
	g.batch = append(g.batch, line...)
	if !bytes.HasSuffix(line, []byte("\n")) {
		g.batch = append(g.batch, '\n')
	}
}

// handOver gives the lines fed since the last time to the scanner (waiting while it
// has one batch waiting already: the follower, and so the writer, then wait for the
// scan as they do for the feed).
func (g *guardFollower) handOver() {
	if len(g.batch) == 0 {
		return
	}
	g.scan <- g.batch
	select {
	case b := <-g.free:
		g.batch = b[:0]
	default:
		g.batch = nil
	}
}

// scanner runs the guard's scan over the batches of lines it is handed and says at
// the end whether it found anything.
func (g *guardFollower) scanner() {
	found := false
	for b := range g.scan {
		for rest := b; len(rest) > 0 && !found; {
			i := bytes.IndexByte(rest, '\n') + 1
			found = g.g.ScanFinds(rest[:i])
			rest = rest[i:]
		}
		if cap(b) <= maxKept {
			select {
			case g.free <- b:
			default:
			}
		}
	}
	g.scanFound <- found
}

// maxKept is the largest batch kept for reuse.
const maxKept = 2 << 20

// checkEnvelope feeds the envelope of a trusted frame entry to the guard and
// reports whether line (or its beginning) was one.
func (g *guardFollower) checkEnvelope(line []byte) bool {
	if !g.trust {
		return false
	}
	env, ok := frameEnvelope(g.env[:0], line)
	if !ok {
		return false
	}
	g.env = env
	g.fed(env)
	return true
}

var (
	framePrefix = []byte(`{"type":"frame",`)
	msgKey      = []byte(`,"msg":`)
	rawKey      = []byte(`,"raw":`)
)

// frameEnvelope appends to dst a frame entry's members other than its message
// ("msg", and "raw", the same message with the whitespace around it), closed into an
// object of their own, and reports whether line is (or begins) a frame entry with a
// message. The recorder writes "raw" and "msg" last, and every member before them is
// a number, a constant or an escaped string, where `,"msg":` cannot occur.
func frameEnvelope(dst, line []byte) ([]byte, bool) {
	if !bytes.HasPrefix(line, framePrefix) {
		return dst, false
	}
	i := bytes.Index(line, msgKey)
	if i < 0 {
		return dst, false
	}
	if j := bytes.Index(line[:i], rawKey); j >= 0 {
		i = j
	}
	return append(append(dst, line[:i]...), '}'), true
}

// ruleNames is how a header made by this program lists the sanitizer's rules.
var ruleNames = sync.OnceValue(func() []byte {
	b, _ := json.Marshal(sanitize.RuleNames())
	return append([]byte(`"sanitize":{"rules":`), b...)
})

// withoutRuleNames returns the header line with the list of the sanitizer's rules
// blanked out when it is exactly this program's list: the program's own constants,
// never what crossed the wire, and each names a keyword of its rule, so checking
// them would only compile every rule's expressions. Anything else in the header (the
// command, the notes, the names of maps and secret variables, a list copied from
// another recording) is checked.
func withoutRuleNames(line []byte) []byte {
	names := ruleNames()
	i := bytes.Index(line, names)
	if i < 0 {
		return line
	}
	out := bytes.Clone(line)
	start := i + len(`"sanitize":{"rules":[`)
	for k := start; k < i+len(names)-1; k++ {
		out[k] = ' '
	}
	return out
}
