package view

import (
	"io"
	"unicode/utf8"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
)

// Page says how a page treats recorded values. The zero value masks secret-shaped
// values (the sanitizer's shape rules, as on a terminal): a recording made with
// sanitizing off, or before a rule existed, does not put its secrets in a page.
type Page struct {
	// Reveal embeds recorded values as they are.
	Reveal bool
	// MaxBytes bounds the frames' exact text the page embeds (DefaultMaxBytes when
	// 0); past it frames keep their summary and the page says what it left out.
	MaxBytes int
}

// WriteHTML is WriteHTML with p's options.
func (p Page) WriteHTML(w io.Writer, rec *recorder.Recording) error {
	return writePageData(w, recordingPage(rec), p)
}

// WriteDiffHTML is WriteDiffHTML with p's options.
func (p Page) WriteDiffHTML(w io.Writer, oldRec, newRec *recorder.Recording, oldS, newS *diff.Session, r *diff.Report) error {
	return writePageData(w, diffPage(oldRec, newRec, oldS, newS, r), p)
}

// safeData escapes, as JSON \u escapes of the same value, what a rewritten string may
// carry raw (<, > and &, so no recorded text can close the script element) and what
// encoding/json leaves raw but a terminal or a text view would interpret (C1
// controls, bidi overrides). In JSON all of them stand only inside strings.
func safeData(data []byte) []byte {
	const hex = "0123456789abcdef"
	unsafe := func(r rune) bool {
		return r == '<' || r == '>' || r == '&' || r >= 0x80 && r < 0xa0 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
	}
	first := -1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if unsafe(r) {
			first = i
			break
		}
		i += n
	}
	if first < 0 {
		return data
	}
	b := make([]byte, 0, len(data)+64)
	b = append(b, data[:first]...)
	for i := first; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if unsafe(r) {
			b = append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
		} else {
			b = append(b, data[i:i+n]...)
		}
		i += n
	}
	return b
}
