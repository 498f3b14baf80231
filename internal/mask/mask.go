// Package mask hides secret-shaped text in recorded content before a command exports
// it or a page shows it, with the sanitizer's shape, keyword and protocol-field rules
// (no known values, no path maps). It does not escape for any output: callers encode
// for theirs (JSON, HTML text nodes).
package mask

import (
	"encoding/json"
	"fmt"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// Masker masks one recording's frames in file order: a secret split across streamed
// deltas is found only when the deltas come in order. A nil *Masker, or one made
// with reveal, masks nothing. It is safe for concurrent use, but frames masked out of
// order may miss a secret split across deltas.
type Masker struct {
	z *sanitize.Sanitizer
}

// New returns a Masker; reveal turns masking off (the content is passed through).
func New(reveal bool) (*Masker, error) {
	if reveal {
		return nil, nil
	}
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		return nil, fmt.Errorf("mask: %w", err)
	}
	return &Masker{z: z}, nil
}

// Frame is the frame's exact content (without its newline) with secrets masked. A
// JSON frame stays valid JSON with the same structure: only string values change.
func (m *Masker) Frame(e *recorder.Entry) []byte {
	content := wire.Content(e.Line)
	if m == nil || m.z == nil {
		return content
	}
	isJSON := e.Dir != wire.Stderr && e.Msg.Kind.IsJSON()
	out, _ := m.z.FrameClassified(content, isJSON)
	if len(out) == len(content) && (len(out) == 0 || &out[0] == &content[0]) {
		return out // unchanged
	}
	if isJSON && !json.Valid(out) {
		// Never hand on a message that masking broke; the text masked as text is safe.
		return []byte(m.z.Text(string(content)))
	}
	return out
}

// Text is s with secret-shaped text masked.
func (m *Masker) Text(s string) string {
	if m == nil || m.z == nil || s == "" {
		return s
	}
	return m.z.Text(s)
}

// Strings masks each of ss into a new slice.
func (m *Masker) Strings(ss []string) []string {
	if m == nil || m.z == nil || ss == nil {
		return ss
	}
	return m.z.Strings(ss)
}

// Line masks one line of a recording file (a JSON entry whose strings, the embedded
// message's included, are masked in place), so a masked recording is still a
// recording.
func (m *Masker) Line(line []byte) []byte {
	if m == nil || m.z == nil {
		return line
	}
	out, _ := m.z.Frame(line)
	return out
}

// Rewind forgets the delta streams masked so far, so the same frames can be masked
// again from the first, with the same placeholders (a reader that reads a
// recording more than once).
func (m *Masker) Rewind() {
	if m != nil && m.z != nil {
		m.z.ForgetStreams()
	}
}
