// Package termtext is the one layer every command's text passes through on its way
// to a terminal or a log: it escapes the control characters and escape sequences
// recorded content can carry (ANSI, OSC 52 clipboard writes, C1, bidi overrides) and
// masks secret-shaped values with the sanitizer's shape rules. It does not decide
// what a command prints, and it never sits on the wire (a recorder's or replayer's
// stdout).
package termtext

import (
	"bytes"
	"io"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/codexrec/codexrec/sanitize"
)

// Mode says how a Writer treats what passes through it.
type Mode int

const (
	// Mask escapes controls and masks secret-shaped values: the default for text.
	Mask Mode = iota
	// Reveal escapes controls but prints values as they are (--reveal).
	Reveal
	// JSON keeps values as recorded: control characters, C1 and bidi overrides,
	// which can only stand inside JSON strings, become \u escapes of the same value,
	// so the document decodes to the same data and a terminal interprets nothing.
	JSON
)

// maxLine is how much a Writer holds while waiting for a newline; a longer line is
// processed in pieces cut at a space where one is near.
const maxLine = 1 << 20

// Writer is an io.Writer that processes whole lines (see Mode) before handing them
// to the writer beneath. It is safe for concurrent use; Flush writes a last partial
// line.
type Writer struct {
	// Color lets the writer's own SGR colour sequences (ESC [ n;m m with colour and
	// weight parameters only) through in Mask and Reveal modes; set it only when the
	// writer beneath is a terminal that shows colour.
	Color bool

	mu   sync.Mutex
	w    io.Writer
	mode Mode
	buf  []byte
	err  error
}

// New returns a Writer in mode m over w.
func New(w io.Writer, m Mode) *Writer {
	// The sanitizer's rules are built on the first line written in Mask mode, not
	// here: a command that prints nothing builds nothing.
	return &Writer{w: w, mode: m}
}

// Unwrap returns the writer beneath (to ask whether it is a terminal).
func (w *Writer) Unwrap() io.Writer { return w.w }

// Write buffers p and writes every line it completes.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 && len(w.buf) == 0 {
		// Whole lines, processed where they lie: a 100 MB line is not copied into
		// the buffer first.
		w.emit(p[:i+1])
		w.buf = append(w.buf, p[i+1:]...)
	} else {
		w.buf = append(w.buf, p...)
		if i := bytes.LastIndexByte(w.buf, '\n'); i >= 0 {
			w.emit(w.buf[:i+1])
			w.buf = append(w.buf[:0], w.buf[i+1:]...)
		}
	}
	for len(w.buf) > maxLine && w.err == nil {
		cut := cutPoint(w.buf, maxLine)
		w.emit(w.buf[:cut])
		w.buf = append(w.buf[:0], w.buf[cut:]...)
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Flush writes what is buffered without a final newline.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 && w.err == nil {
		w.emit(w.buf)
		w.buf = w.buf[:0]
	}
	return w.err
}

func (w *Writer) emit(b []byte) {
	if w.err != nil {
		return
	}
	// A view of b, not a copy: b is not modified while it is processed, and what
	// is written is not kept.
	s := unsafe.String(unsafe.SliceData(b), len(b))
	var out string
	if w.Color && w.mode != JSON {
		out = w.colored(s)
	} else {
		out = String(s, w.mode)
	}
	_, w.err = io.WriteString(w.w, out)
}

// colored processes s around the SGR sequences it lets through.
func (w *Writer) colored(s string) string {
	var out []byte
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			continue
		}
		n := sgrLen(s[i:])
		if n == 0 {
			continue
		}
		out = append(out, String(s[start:i], w.mode)...)
		out = append(out, s[i:i+n]...)
		i += n - 1
		start = i + 1
	}
	if start == 0 {
		return String(s, w.mode)
	}
	return string(append(out, String(s[start:], w.mode)...))
}

// sgrLen is the length of the harmless SGR sequence s starts with, or 0: ESC [,
// parameters among reset, bold, faint, italic, underline, their resets and the
// foreground colours, then m. Nothing that conceals, blinks or sets a background.
func sgrLen(s string) int {
	if len(s) < 3 || s[1] != '[' {
		return 0
	}
	param := 0
	digits := 0
	for i := 2; i < len(s) && i < 32; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			param = param*10 + int(c-'0')
			digits++
			if digits > 2 {
				return 0
			}
		case c == ';' || c == 'm':
			if !allowedSGR(param) {
				return 0
			}
			if c == 'm' {
				return i + 1
			}
			param, digits = 0, 0
		default:
			return 0
		}
	}
	return 0
}

func allowedSGR(p int) bool {
	switch {
	case p <= 4, p == 22, p == 23, p == 24, p >= 30 && p <= 37, p == 39, p >= 90 && p <= 97:
		return true
	}
	return false
}

// cutPoint is where to split an overlong line: after the last space in its final
// 4 KB before limit, else at a rune boundary at limit.
func cutPoint(b []byte, limit int) int {
	lo := max(limit-4096, 0)
	if i := bytes.LastIndexAny(b[lo:limit], " \t\",;"); i >= 0 {
		return lo + i + 1
	}
	cut := limit
	for cut > lo && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return cut
}

// String is s processed in mode m: what a Writer in mode m writes for it.
func String(s string, m Mode) string {
	switch m {
	case Reveal:
		return sanitize.EscapeTerminal(s)
	case JSON:
		return jsonSafe(s)
	}
	return sanitize.MaskText(s)
}

// jsonSafe writes control characters, DEL, C1 and bidi overrides as \u escapes and
// invalid UTF-8 as \ufffd (what a JSON decoder makes of it anyway).
func jsonSafe(s string) string {
	const hex = "0123456789abcdef"
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if sanitize.UnsafeRune(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if sanitize.UnsafeRune(r, n) {
			if r == utf8.RuneError {
				r = 0xfffd
			}
			b = append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}
