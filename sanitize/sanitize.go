// Package sanitize removes secrets and machine paths from app-server traffic before it
// is recorded, and guards finished recordings against anything secret-shaped. It
// rewrites a frame's raw bytes in place of each secret (one walk to find the spans,
// one rewrite, no re-encoding of the message); it does not decide what to record.
package sanitize

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// Options configure a Sanitizer. The zero value applies the shape and protocol-field
// rules with a random placeholder key and no known secrets or path maps.
type Options struct {
	// Secrets are known secret values, removed wherever they occur in any encoding.
	Secrets []Secret
	// Maps replace path prefixes with stable placeholders, longest From first.
	Maps []Map
	// Salt keys the placeholders. The same secret gets the same placeholder in every
	// recording made with the same salt; without one, placeholders are stable within
	// one Sanitizer only.
	Salt string
	// Allow holds regular expressions matched against a value a shape rule flagged: a
	// match means the value is a known false positive and stays.
	Allow []string
}

// Map replaces From, a path prefix, with To, a placeholder such as "<cwd>".
type Map struct{ From, To string }

// Redaction is one secret replaced in a frame.
type Redaction struct {
	Rule        string // which rule found it, e.g. "openai-key"
	Pointer     string // RFC 6901 pointer into the message; "" for a text line
	Placeholder string // what replaced it, e.g. "<redacted:openai-key:3f9a1c>"

	preview string // Mask of the value, for the guard's report
}

// Sanitizer rewrites frames. It is safe for concurrent use.
type Sanitizer struct {
	key     []byte
	salted  bool
	secrets []Secret
	// needles[i] are the encodings of secrets[i] the sanitizer searches for; guards[i]
	// add the forms only the guard looks for (hashes).
	needles, guards [][][]byte
	// acrossForms are the forms of the secrets (needles and guards) that can show
	// in a JSON text where no walk of its strings sees them (FindsAcrossStrings).
	acrossForms [][]byte
	// edges[i] are the forms of secrets[i] whose pieces are looked for at the edges
	// of streamed deltas (see edgeSpans).
	edges [][][]byte
	maps  []Map
	allow []*regexp.Regexp
	// sanPre and guardPre are the prefilters of the sanitizer and of the guard.
	sanPre, guardPre prefilter
	// They are built when first needed (prefilter); a guard's sanitizer takes them
	// from preFrom, which builds them once for all its guards.
	sanPreOnce, guardPreOnce sync.Once
	preFrom                  *Sanitizer
	// gitleaks: gitleaks' rules run besides the project's own.
	gitleaks bool
	// pres holds the automaton of z's prefilters and of its guard's sanitizer's,
	// built once when first needed (see sharedPrefilter).
	presOnce sync.Once
	pres     *prefilters

	// macs pools the placeholder HMACs (keyed by key).
	macs sync.Pool
	// runs remembers the latest expression runs (see reCache), verdicts what was
	// decided of their matches.
	runs     reCache
	verdicts verdicts

	mu sync.Mutex
	// secretQuestions maps a pending requestUserInput request's id to the ids of its
	// questions marked isSecret, whose answers the client's response carries.
	secretQuestions map[string]map[string]bool
	// openEdges maps a delta stream whose last delta ended inside a secret-shaped token
	// to the token's rule (see shapeEdges).
	openEdges map[string]string
	// streams holds the context of each delta stream (see stream.go).
	streams map[string]streamState
	// hits are the automaton's hits over long lines a guard feed checked, left for
	// the guard's scan (see linehits.go); leaveHits says this sanitizer (a feed's)
	// leaves them.
	hits      lineHits
	leaveHits bool
	// textPEM counts down the lines of the text stream (stderr, lines that are not
	// JSON) still inside a private key block; 0 when none is open (see textStream).
	textPEM atomic.Int32
	// textFrames: this sanitizer reads a recording, whose stderr and raw lines are
	// frames with the text in "raw" (the guard's).
	textFrames bool
}

// New checks opts and compiles a Sanitizer.
func New(opts Options) (*Sanitizer, error) { return newSanitizer(opts, true) }

// newSanitizer is New, with gitleaks' rules or with the project's own alone (to
// measure what the larger rule set costs).
func newSanitizer(opts Options, gitleaks bool) (*Sanitizer, error) {
	z := &Sanitizer{gitleaks: gitleaks, salted: opts.Salt != "", secretQuestions: map[string]map[string]bool{}, openEdges: map[string]string{}, streams: map[string]streamState{}}
	if z.salted {
		z.key = []byte("codexrec-sanitize-v1:" + opts.Salt)
	} else {
		z.key = make([]byte, 32)
		if _, err := rand.Read(z.key); err != nil {
			return nil, fmt.Errorf("sanitize: placeholder key: %w", err)
		}
	}
	seen := map[string]bool{}
	for _, s := range opts.Secrets {
		if len(s.Value) < MinSecretLen {
			return nil, fmt.Errorf("sanitize: secret %s is %d characters long, shorter than %d: it would match ordinary text", s.Name, len(s.Value), MinSecretLen)
		}
		if seen[s.Value] {
			continue
		}
		seen[s.Value] = true
		z.secrets = append(z.secrets, s)
		var plain, guard [][]byte
		forms := encodings(s.Value, true)
		// The SHA-256 hex forms are redacted like the others: the guard checks them,
		// so a recording must not hold them either.
		for _, v := range forms {
			plain = append(plain, []byte(v))
		}
		// Longest first, so the widest encoding claims a span before its parts.
		sort.Slice(plain, func(i, j int) bool { return len(plain[i]) > len(plain[j]) })
		z.needles = append(z.needles, plain)
		z.guards = append(z.guards, guard)
		for _, n := range append(plain[:len(plain):len(plain)], guard...) {
			if acrossStrings(n) {
				z.acrossForms = append(z.acrossForms, n)
			}
		}
		var edge [][]byte
		for _, form := range []string{"plain", "json", "json-serde", "url-query"} {
			if v, ok := forms[form]; ok && !slices.ContainsFunc(edge, func(e []byte) bool { return string(e) == v }) {
				edge = append(edge, []byte(v))
			}
		}
		z.edges = append(z.edges, edge)
	}
	for _, m := range opts.Maps {
		if err := checkMap(m); err != nil {
			return nil, err
		}
		// Raw JSON strings are searched as they are: a path with characters JSON
		// escapes is also searched for escaped.
		for _, from := range []string{m.From, string(jsonx.AppendContent(nil, m.From))} {
			if !slices.ContainsFunc(z.maps, func(o Map) bool { return o.From == from }) {
				z.maps = append(z.maps, Map{From: from, To: m.To})
			}
		}
	}
	sort.SliceStable(z.maps, func(i, j int) bool { return len(z.maps[i].From) > len(z.maps[j].From) })
	for _, a := range opts.Allow {
		re, err := regexp.Compile(a)
		if err != nil {
			return nil, fmt.Errorf("sanitize: allow %q: %w", a, err)
		}
		z.allow = append(z.allow, re)
	}
	return z, nil
}

func checkMap(m Map) error {
	switch {
	case len(m.From) < 2:
		return fmt.Errorf("sanitize: map %q=%q: the path must be at least 2 characters", m.From, m.To)
	case m.To == "":
		return fmt.Errorf("sanitize: map %q: empty placeholder", m.From)
	case strings.ContainsAny(m.To, "\"\\") || strings.IndexFunc(m.To, func(r rune) bool { return r < 0x20 }) >= 0:
		return fmt.Errorf("sanitize: map %q=%q: the placeholder may not hold quotes, backslashes or control characters", m.From, m.To)
	case strings.Contains(m.To, m.From):
		return fmt.Errorf("sanitize: map %q=%q: the placeholder contains the path", m.From, m.To)
	}
	return nil
}

// MapNames are the placeholders of the path maps, for the recording's header.
func (z *Sanitizer) MapNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range z.maps {
		if !seen[m.To] {
			seen[m.To] = true
			names = append(names, m.To)
		}
	}
	sort.Strings(names)
	return names
}

// Salted reports whether placeholders are keyed by a salt (stable across recordings).
func (z *Sanitizer) Salted() bool { return z.salted }

// placeholder names what was removed, keyed so it cannot confirm a guessed secret.
func (z *Sanitizer) placeholder(rule string, value []byte) string {
	mac, _ := z.macs.Get().(hash.Hash)
	if mac == nil {
		mac = hmac.New(sha256.New, z.key)
	}
	mac.Reset()
	mac.Write(value)
	var buf [sha256.Size]byte
	sum := mac.Sum(buf[:0])
	z.macs.Put(mac)
	var tag [6]byte
	hex.Encode(tag[:], sum[:3])
	return "<redacted:" + rule + ":" + string(tag[:]) + ">"
}

// isPlaceholder reports whether v is exactly a placeholder, so sanitizing twice
// changes nothing.
func isPlaceholder(v []byte) bool {
	const pre = "<redacted:"
	if len(v) < len(pre)+9 || !bytes.HasPrefix(v, []byte(pre)) || v[len(v)-1] != '>' {
		return false
	}
	body := v[len(pre) : len(v)-1]
	i := bytes.LastIndexByte(body, ':')
	if i < 1 || len(body)-i-1 != 6 {
		return false
	}
	for _, c := range body[i+1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	for _, c := range body[:i] {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Frame sanitizes one line as it crossed the proxy (with or without its newline). A
// JSON line has its strings rewritten in place; anything else is treated as text. out
// is line itself when nothing changed.
func (z *Sanitizer) Frame(line []byte) (out []byte, redactions []Redaction) {
	content := line
	if n := len(content); n > 0 && content[n-1] == '\n' {
		content = content[:n-1]
	}
	return z.frameWith(line, content, func() bool { return gjson.ValidBytes(content) }, nil)
}

// FrameClassified is Frame for a line whose JSON validity is already known (the
// proxy's wire.Classify checked it: isJSON is Kind.IsJSON() for c2s and s2c frames),
// which saves validating it again.
func (z *Sanitizer) FrameClassified(line []byte, isJSON bool) ([]byte, []Redaction) {
	content := line
	if n := len(content); n > 0 && content[n-1] == '\n' {
		content = content[:n-1]
	}
	return z.frameWith(line, content, func() bool { return isJSON }, nil)
}

// frameWith sanitizes a line; la, when not nil, is what follows it in its stream
// (see FrameFollowedBy).
func (z *Sanitizer) frameWith(line, content []byte, isJSON func() bool, la *lookahead) (out []byte, redactions []Redaction) {
	f := z.filterForLine(content, false, z.leaveHits, false)
	// A delta continues its stream: with context kept, or a next delta known, it is
	// searched even when it holds nothing itself.
	delta := func() bool {
		return (la != nil && len(la.next) > 0 || z.streamsOpen()) && f.holdsDelta()
	}
	// (The walk of base64 runs, the dearest, comes last: a delta skips it.)
	if f.empty() && !f.hiddenIn(content, 0, len(content)) && !delta() && z.textPEM.Load() == 0 && !f.percentIn(content, 0, len(content)) && !hasB64Run(content) {
		return line, nil // nothing can match: clean text costs one pass of the prefilter
	}
	var changed []byte
	if isJSON() {
		changed, redactions = z.jsonFrame(content, f, la)
		// A known secret written as a number: no string holds it.
		src := changed
		if src == nil {
			src = content
		}
		if z.FindsAcrossStrings(src) {
			var numbers []byte
			if numbers, redactions = z.secretNumbers(src, 0, "known-secret", redactions); numbers != nil {
				changed = numbers
			}
		}
	} else {
		tf := f.text()
		changed, redactions = z.textLine(content, &tf)
	}
	if changed == nil {
		return line, redactions
	}
	if len(content) < len(line) {
		changed = append(changed, '\n')
	}
	return changed, redactions
}

// Text sanitizes a string that is not a frame (a command line, an error message).
func (z *Sanitizer) Text(s string) string {
	b := []byte(s) // one copy, not one per use: s may be a 100 MB line
	out, _ := z.text(b, z.filterFor(b, false).text())
	if out == nil {
		return s
	}
	return string(out)
}

// Strings sanitizes each of ss (an argv) and returns a new slice.
func (z *Sanitizer) Strings(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = z.Text(s)
	}
	return out
}

// textLine sanitizes a line of the text stream (see textStream); it returns nil
// when nothing changed.
func (z *Sanitizer) textLine(b []byte, f *filter) ([]byte, []Redaction) {
	spans := splitForText(b, z.textStream(b, f, nil))
	if len(spans) == 0 {
		return nil, nil
	}
	var reds []Redaction
	for _, s := range spans {
		if s.rule != "" {
			reds = append(reds, Redaction{Rule: s.rule, Placeholder: s.repl, preview: Mask(b[s.start:s.end])})
		}
	}
	return rewrite(make([]byte, 0, len(b)), b, nil, spans), reds
}

// text sanitizes b as plain text; it returns nil when nothing changed.
func (z *Sanitizer) text(b []byte, f filter) ([]byte, []Redaction) {
	spans := splitForText(b, z.base64Spans(b, z.find(b, &f, nil, false), false, 0))
	if len(spans) == 0 {
		return nil, nil
	}
	var reds []Redaction
	for _, s := range spans {
		if s.rule != "" {
			reds = append(reds, Redaction{Rule: s.rule, Placeholder: s.repl, preview: Mask(b[s.start:s.end])})
		}
	}
	return rewrite(make([]byte, 0, len(b)), b, nil, spans), reds
}
