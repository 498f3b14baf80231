package sanitize

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// GuardFeed runs the leak guard's detecting pass over a recording while it is being
// written: its lines are fed in file order as they reach the file, and each is
// checked as GuardRedact's first pass checks it (the guard's own sanitizer, deltas
// joined per stream and sanitized knowing the next frame, then the scan). Clean says
// whether the whole file was found clean; only a file that is not (or that holds a
// delta longer than 1 MB, which the feed does not copy) needs GuardRedact at the end. It does not change the file; it is not safe for concurrent use.
type GuardFeed struct {
	z, g  *Sanitizer
	found bool
	// scanned says the caller scans every line it feeds (ScanFinds) itself.
	scanned bool
	// held is a delta line waiting for the next frame line (its lookahead), and the
	// lines fed after it until then, in order.
	held [][]byte
}

// NewGuardFeed starts a feed with z's rules and known secrets.
func (z *Sanitizer) NewGuardFeed() *GuardFeed {
	return &GuardFeed{z: z, g: z.guardSanitizer()}
}

// NewGuardFeedScanned is NewGuardFeed for a caller that scans every line it feeds
// with ScanFinds itself (on another goroutine, so that the two passes of the guard
// use two CPUs): the feed runs the guard's sanitizer only, and the file is clean
// when Clean says so and no line's scan found anything.
func (z *Sanitizer) NewGuardFeedScanned() *GuardFeed {
	g := z.guardSanitizer()
	g.leaveHits = true // for ScanFinds (see linehits.go)
	return &GuardFeed{z: z, g: g, scanned: true}
}

// ScanFinds reports whether the guard's scan (its last check) finds anything in
// one line of a recording (with or without its newline). It is safe to call while z
// sanitizes or feeds a GuardFeed on other goroutines.
func (z *Sanitizer) ScanFinds(line []byte) bool {
	return len(z.scanLineTaking(bytes.TrimSuffix(line, []byte("\n")), 0, nil, true)) > 0
}

// Line checks one line of the recording (with or without its newline). The feed
// keeps no reference to line after the call, except a copy of a delta's line and of
// the lines after it until the next frame line arrives.
func (f *GuardFeed) Line(line []byte) {
	if f.found {
		return // GuardRedact will read the file anyway
	}
	content := bytes.TrimSuffix(line, []byte("\n"))
	// What deltaRaw reads of the line serves both its lookahead and its check.
	var d lineDelta
	if len(f.held) > 0 {
		if len(bytes.TrimSpace(content)) > 0 && isFrameLine(content) {
			d = deltaOf(content)
			next := []byte("{}")
			if d.ok {
				next = standIn(d.stream, d.raw, d.b64)
			}
			f.release(next)
		} else {
			f.held = append(f.held, bytes.Clone(line))
			return
		}
	}
	f.checkDelta(line, content, d)
}

// lineDelta is deltaRaw's answer for a line, when known.
type lineDelta struct {
	known, ok, b64 bool
	stream         string
	raw            []byte
}

func deltaOf(content []byte) lineDelta {
	s, raw, b64, ok := deltaRaw(content)
	return lineDelta{known: true, ok: ok, b64: b64, stream: s, raw: raw}
}

// maxFedDelta is the longest delta line the feed copies to check it knowing its
// successor; a longer one leaves the file to GuardRedact, which reads it in place.
const maxFedDelta = 1 << 20

// check runs the guard on one line, holding it instead when it is a delta.
func (f *GuardFeed) check(line, content []byte) {
	f.checkDelta(line, content, lineDelta{})
}

// checkDelta is check with what deltaRaw says of content, when d is known.
func (f *GuardFeed) checkDelta(line, content []byte, d lineDelta) {
	if len(bytes.TrimSpace(content)) == 0 {
		return
	}
	if !d.known {
		d = deltaOf(content)
	}
	// Whether the line is JSON is asked only when it matters (the sanitizer asks
	// only of a line it found something in): the check reads the whole line.
	if d.ok && gjson.ValidBytes(content) {
		if len(line) > maxFedDelta {
			// Not copied to wait for its successor: the file is read at the end, where
			// the successor's start is read from the file (GuardRedact).
			f.found = true
			return
		}
		f.held = append(f.held, bytes.Clone(line))
		return
	}
	_, reds := f.g.frameWith(line, content, func() bool { return gjson.ValidBytes(content) }, nil)
	f.note(content, reds)
}

// release checks the held delta knowing the frame after it (next, as Lookahead
// gives it; nil when none follows), then the lines held after it.
func (f *GuardFeed) release(next []byte) {
	held := f.held
	f.held = nil
	line := held[0]
	content := bytes.TrimSuffix(line, []byte("\n"))
	_, reds := f.g.FrameFollowedBy(line, true, next)
	f.note(content, reds)
	for _, l := range held[1:] {
		if f.found {
			return
		}
		f.check(l, bytes.TrimSuffix(l, []byte("\n")))
	}
}

func (f *GuardFeed) note(content []byte, reds []Redaction) {
	if len(reds) > 0 || !f.scanned && len(f.z.scanLine(content, 0, nil)) > 0 {
		f.found = true
	}
}

// Clean ends the feed: whether nothing the guard detects was fed. A false answer
// means the file must go through GuardRedact.
func (f *GuardFeed) Clean() bool {
	for len(f.held) > 0 && !f.found {
		f.release(nil)
	}
	return !f.found
}
