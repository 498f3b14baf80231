package extend

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// DefaultCatchUp bounds each wait of the catch-up when Options.CatchUp is zero.
const DefaultCatchUp = time.Minute

// settle is how long the real server must have been silent after the catch-up
// before the client's next message goes to it (trailing notifications of what was
// caught up are swallowed, not forwarded), and settleMax the longest that wait.
const (
	settle    = 150 * time.Millisecond
	settleMax = 2 * time.Second
)

// pairer learns the id pairs between what the replay sent and what the live
// server sent, frame by frame of the same key, in order.
type pairer struct {
	m      Map
	done   map[string]int        // frames of each key paired so far
	reqIDs map[wire.ID][]wire.ID // a server request's replayed id -> the live ones, oldest first
}

func (p *pairer) pair(rep, live *frameLog) {
	if p.done == nil {
		p.done, p.reqIDs = map[string]int{}, map[wire.ID][]wire.ID{}
	}
	rep.mu.Lock()
	live.mu.Lock()
	defer rep.mu.Unlock()
	defer live.mu.Unlock()
	for k, ri := range rep.byKey {
		li := live.byKey[k]
		for n := p.done[k]; n < min(len(ri), len(li)); n++ {
			rl, ll := rep.frames[ri[n]].line, live.frames[li[n]].line
			p.m.Learn(rl, ll)
			if k != "" && k[0] == 'q' {
				rid, lid := wire.Classify(rl).ID, wire.Classify(ll).ID
				p.reqIDs[rid] = append(p.reqIDs[rid], lid)
			}
			p.done[k] = n + 1
		}
	}
}

// toLive rewrites a client line for the live server: an answer to a server request
// the replay sent gets the live request's id, and paired ids become live ones.
func (p *pairer) toLive(line []byte) []byte {
	c := wire.Content(line)
	if msg := wire.Classify(c); msg.Kind == wire.KindResponse || msg.Kind == wire.KindError {
		if ids := p.reqIDs[msg.ID]; len(ids) > 0 {
			p.reqIDs[msg.ID] = ids[1:]
			if res := gjson.GetBytes(c, "id"); res.Index > 0 && ids[0] != msg.ID {
				line = slices.Concat(c[:res.Index], []byte(ids[0]), line[res.Index+len(res.Raw):])
			}
		}
	}
	return p.m.ToLive(line)
}

// extend takes the session over from the replay at h: it starts the real server,
// catches it up, then forwards live and records.
func (r *run) extend(ctx context.Context, h *replay.HandoffError) (Result, error) {
	o := r.o
	res := Result{Extended: true, Segment: r.sc.Segments + 1, Handoff: h.Mismatch}
	hand := h.Mismatch.Line - 1 // 0-based index of the message the recording lacks
	held := map[int]bool{}
	for _, l := range h.Held {
		held[l-1] = true
	}
	var catchUp []int
	for i := range hand {
		if !held[i] {
			catchUp = append(catchUp, i)
		}
	}
	logf(o.Log, "extend: client line %d is not in %s (%s): the real server takes over, caught up with the %d message(s) before it\n",
		h.Mismatch.Line, o.Path, sanitize.MaskText(h.Mismatch.Reason), len(catchUp))

	s := o.Record
	if s == nil {
		s = &record.Session{}
	}
	s.Segment = res.Segment
	lastSeq, origin, err := r.openRecording(s, res.Segment)
	if err != nil {
		return res, fmt.Errorf("extend %s: %w", o.Path, err)
	}
	// The recording is published only once the catch-up succeeded: a server that
	// exits during it (its session then finishes at once) waits for the verdict.
	var failed error
	verdict := make(chan struct{})
	gone := make(chan struct{}) // the server exited: its session is finishing
	toR, toW := io.Pipe()
	var goneOnce sync.Once
	markGone := func() {
		goneOnce.Do(func() {
			close(gone)
			toR.CloseWithError(io.ErrClosedPipe) // nothing reads it any more
		})
	}
	if bp := s.Writer.BeforePublish; true {
		s.Writer.BeforePublish = func(tmp string) error {
			markGone()
			<-verdict
			if failed != nil {
				return failed // the recording stays as it was
			}
			if bp != nil {
				return bp(tmp)
			}
			return nil
		}
	}

	r.mu.Lock()
	r.phase = 1
	r.mu.Unlock()
	fromR, fromW := io.Pipe()
	p := &proxy.Proxy{Seq: lastSeq, Start: origin, Signals: r.live}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		defer markGone()
		res.Server, err = s.Run(ctx, p, r.command(), toR, fromW, orDiscard(o.Stderr))
		fromW.Close()
	}()
	stopCtx := context.AfterFunc(ctx, r.terminate)
	defer stopCtx()

	// What the real server sends: logged during the catch-up, then forwarded.
	liveLog := newFrameLog(io.Discard)
	var pr pairer
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		rd := wire.NewReader(fromR)
		gone := false
		for {
			line, rerr := rd.ReadLine()
			if len(line) > 0 {
				r.mu.Lock()
				ph := r.phase
				r.mu.Unlock()
				if ph < 2 {
					liveLog.add(line)
				} else if !gone {
					if _, werr := o.Out.Write(pr.m.ToClient(line)); werr != nil {
						gone = true
					}
				}
			}
			if rerr != nil {
				return
			}
		}
	}()

	timeout := o.CatchUp
	if timeout <= 0 {
		timeout = DefaultCatchUp
	}
	started := time.Now()
	need := map[string]int{}
	from := 0
	// answers counts the catch-up's requests by answer key: before the live part,
	// every one is waited for, even one a pipelining client did not wait for.
	answers := map[string]int{}
	sync := func(seen int, final bool) error {
		r.replayed.need(need, from, seen)
		from = max(from, seen)
		want := need
		if final {
			want = maps.Clone(need)
			for k, n := range answers {
				want[k] = max(want[k], n)
			}
		}
		if err := liveLog.waitFor(ctx, want, timeout, gone); err != nil {
			return err
		}
		pr.pair(r.replayed, liveLog)
		return nil
	}
	send := func(line []byte) error {
		_, err := toW.Write(pr.toLive(line))
		return err
	}
	catchErr := func() error {
		for _, i := range catchUp {
			line, seen, _ := r.q.get(i)
			if err := sync(seen, false); err != nil {
				return fmt.Errorf("before client line %d: %w", i+1, err)
			}
			if err := send(line); err != nil {
				select {
				case <-gone:
					return fmt.Errorf("client line %d: the real server exited", i+1)
				default:
				}
				return fmt.Errorf("client line %d: %w", i+1, err)
			}
			if m := wire.Classify(wire.Content(line)); m.Kind == wire.KindRequest {
				answers["r:"+string(m.ID)]++
			}
			res.CaughtUp++
		}
		_, seen, _ := r.q.get(hand)
		if err := sync(seen, true); err != nil {
			return fmt.Errorf("before client line %d: %w", hand+1, err)
		}
		liveLog.quiet(ctx, settle, settleMax)
		pr.pair(r.replayed, liveLog)
		return nil
	}()
	if catchErr != nil {
		failed = fmt.Errorf("%w: %w", ErrCatchUp, catchErr)
		close(verdict)
		if line, _, ok := r.q.get(hand); ok {
			if m := wire.Classify(wire.Content(line)); m.Kind == wire.KindRequest {
				o.Out.Write(errorLine(m.ID, "extend: "+failed.Error()))
			}
		}
		toW.Close()
		<-exited
		<-readDone
		res.Extended = false
		return res, fmt.Errorf("extend %s: %w (the recording is unchanged)", o.Path, failed)
	}
	close(verdict)
	res.Mapped = pr.m.Len()
	conflicts := ""
	if n := pr.m.Conflicts; n > 0 {
		conflicts = fmt.Sprintf(", %d conflicting pair(s) left out", n)
	}
	logf(o.Log, "extend: caught up in %v (%d message(s), %d id(s) mapped%s); recording the rest as segment %d of %s\n",
		time.Since(started).Round(time.Millisecond), res.CaughtUp, res.Mapped, conflicts, res.Segment, o.Path)
	r.mu.Lock()
	r.phase = 2
	r.mu.Unlock()

	// Live: the held requests and the first message the recording lacks, then
	// everything else the client sends.
	go func() {
		defer toW.Close()
		for i := range hand {
			if held[i] {
				line, _, _ := r.q.get(i)
				r.q.forget(i)
				if send(line) != nil {
					return
				}
			}
		}
		for i := hand; ; i++ {
			line, _, ok := r.q.get(i)
			if !ok {
				return
			}
			r.q.forget(i)
			if send(line) != nil {
				return
			}
		}
	}()
	<-exited
	<-readDone
	if err != nil {
		return res, fmt.Errorf("extend %s: %w", o.Path, err)
	}
	return res, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
