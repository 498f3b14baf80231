package view

import (
	"bufio"
	"encoding/json"
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/codexrec/codexrec/sanitize"
)

// DefaultMaxBytes is how much of the recorded frames' exact text a page embeds by
// default: past it, frames keep their summary line and the page says how many it
// left out.
const DefaultMaxBytes = 256 << 20

// pieceWriter writes a page's data block one piece at a time (the header, each
// block list, each frame), so that a page costs one frame's encoding in memory
// beyond the frames themselves, never a copy of the whole data. Each piece is
// masked (when z is set) and made safe (safeData) on its own.
type pieceWriter struct {
	w     *bufio.Writer
	z     *sanitize.Sanitizer
	err   error
	limit int // bytes of frames' exact text to embed
	text  int // embedded so far
	// omitted counts the frames whose exact text was left out, and their bytes.
	omitted, omittedBytes int
}

func (pw *pieceWriter) raw(s string) {
	if pw.err == nil {
		_, pw.err = pw.w.WriteString(s)
	}
}

func (pw *pieceWriter) value(v any) {
	if pw.err != nil {
		return
	}
	b, err := json.Marshal(v) // escapes <, > and & as \u003c...
	if err != nil {
		pw.err = err
		return
	}
	if pw.z != nil {
		b, _ = pw.z.Frame(b)
	}
	_, pw.err = pw.w.Write(safeData(b))
}

// data writes the page's JSON data block: the same document encoding/json would
// write for data, piece by piece.
func (pw *pieceWriter) data(data pageData) {
	pw.raw(`{"mode":`)
	pw.value(data.Mode)
	pw.raw(`,"title":`)
	pw.value(data.Title)
	pw.raw(`,"sessions":`)
	if data.Sessions == nil {
		pw.raw("null")
	} else {
		pw.raw("[")
		for i := range data.Sessions {
			if i > 0 {
				pw.raw(",")
			}
			pw.session(&data.Sessions[i])
		}
		pw.raw("]")
	}
	if data.Diff != nil {
		pw.raw(`,"diff":`)
		pw.value(data.Diff)
	}
	info := data.Info
	if pw.omitted > 0 {
		info = map[string]string{}
		for k, v := range data.Info {
			info[k] = v
		}
		info["omitted"] = fmt.Sprintf("the exact text of %d frames (%d MB) is left out past the page's %d MB: the recording file holds it",
			pw.omitted, pw.omittedBytes>>20, pw.limit>>20)
	}
	if len(info) > 0 {
		pw.raw(`,"info":`)
		pw.value(info)
	}
	pw.raw("}")
}

func (pw *pieceWriter) session(s *sessionData) {
	pw.raw(`{"name":`)
	pw.value(s.Name)
	pw.raw(`,"header":`)
	pw.value(s.Header)
	pw.raw(`,"trailer":`)
	pw.value(s.Trailer)
	pw.raw(`,"blocks":`)
	pw.value(s.Blocks)
	pw.raw(`,"frames":`)
	if s.stream != nil {
		pw.raw("[")
		i := 0
		err := s.stream(func(f frameData) bool {
			if i > 0 {
				pw.raw(",")
			}
			i++
			pw.limitedFrame(f)
			return pw.err == nil
		})
		if pw.err == nil {
			pw.err = err
		}
		pw.raw("]}")
		return
	}
	if s.Frames == nil {
		pw.raw("null}")
		return
	}
	pw.raw("[")
	for i := range s.Frames {
		if i > 0 {
			pw.raw(",")
		}
		pw.limitedFrame(s.Frames[i])
	}
	pw.raw("]}")
}

// limitedFrame writes f, without its exact text once the page's limit is passed.
func (pw *pieceWriter) limitedFrame(f frameData) {
	if pw.text+len(f.JSON) > pw.limit && f.JSON != "" {
		pw.omitted++
		pw.omittedBytes += len(f.JSON)
		f.JSON = ""
	}
	pw.text += len(f.JSON)
	pw.frame(f)
}

// frame writes f, its two large strings (the run's text, the exact frame) straight
// from where they are to the page: masked, but never encoded into another buffer.
func (pw *pieceWriter) frame(f frameData) {
	rt, j := f.RunText, f.JSON
	f.RunText, f.JSON = "", ""
	b, err := json.Marshal(f)
	if err != nil {
		pw.err = err
		return
	}
	if pw.z != nil {
		b, _ = pw.z.Frame(b)
	}
	if pw.err == nil {
		_, pw.err = pw.w.Write(safeData(b[:len(b)-1])) // without its closing brace
	}
	if rt != "" {
		if pw.z != nil {
			rt = pw.z.Text(rt)
		}
		pw.raw(`,"rt":`)
		pw.str(rt)
	}
	if j != "" {
		if pw.z != nil {
			out, _ := pw.z.Frame(unsafe.Slice(unsafe.StringData(j), len(j))) // read only
			j = bytesString(out)
		}
		pw.raw(`,"j":`)
		pw.str(j)
	}
	pw.raw("}")
}

// str writes s as a JSON string, escaped as safeData escapes (<, >, &, C1 controls,
// bidi overrides, and the line separators) besides what JSON requires; invalid UTF-8
// becomes U+FFFD, as encoding/json writes it.
func (pw *pieceWriter) str(s string) {
	if pw.err != nil {
		return
	}
	const hex = "0123456789abcdef"
	w := pw.w
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
			if !(r == utf8.RuneError && n == 1) && !(r >= 0x80 && r < 0xa0) && !isBidi(r) && r != 0x2028 && r != 0x2029 {
				i += n
				continue
			}
		}
		w.WriteString(s[start:i])
		switch {
		case r == '"':
			w.WriteString(`\"`)
		case r == '\\':
			w.WriteString(`\\`)
		case r == '\n':
			w.WriteString(`\n`)
		case r == '\t':
			w.WriteString(`\t`)
		case r == utf8.RuneError && n == 1:
			w.WriteString(`\ufffd`)
		default:
			w.Write([]byte{'\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15]})
		}
		i += n
		start = i
	}
	w.WriteString(s[start:])
	_, pw.err = w.Write([]byte{'"'})
}

func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
