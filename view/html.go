package view

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"strings"
	"sync"
	"unsafe"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

//go:embed assets/page.css
var pageCSS string

// The page's script is one function built from three parts that share its scope:
// helpers and the page skeleton, the recording view, the diff view.
var (
	//go:embed assets/common.js
	commonJS string
	//go:embed assets/recording.js
	recordingJS string
	//go:embed assets/diff.js
	diffJS string
)

// pageJS is the page's script, joined when a page is first written.
var pageJS = sync.OnceValue(func() string {
	return "(function () {\n  'use strict';\n" + commonJS + recordingJS + diffJS + "})();\n"
})

// pageData is what the page's script reads from its JSON data block.
type pageData struct {
	Mode     string            `json:"mode"` // "recording" or "diff"
	Title    string            `json:"title"`
	Sessions []sessionData     `json:"sessions"`
	Diff     *diffData         `json:"diff,omitempty"`
	Info     map[string]string `json:"info,omitempty"`
}

// sessionData is one recording: its frames in file order and the blocks (runs of
// frames under one thread/turn heading) they fall into.
type sessionData struct {
	Name    string            `json:"name"`
	Header  recorder.Header   `json:"header"`
	Trailer *recorder.Trailer `json:"trailer"`
	Blocks  []blockData       `json:"blocks"`
	Frames  []frameData       `json:"frames"`
	// stream, when set, yields the frames instead of Frames (WriteHTMLFile).
	stream func(yield func(frameData) bool) error
}

type blockData struct {
	Segment int    `json:"seg"`
	Thread  string `json:"thread,omitempty"`
	Turn    string `json:"turn,omitempty"`
}

// frameData uses short keys: a 10 MB recording has tens of thousands of frames.
type frameData struct {
	Seq      int64   `json:"s"`
	T        float64 `json:"t"` // seconds since start
	Dir      string  `json:"d"` // c2s, s2c, stderr, or "" for an event line
	Kind     string  `json:"k,omitempty"`
	Method   string  `json:"m,omitempty"`
	ID       string  `json:"i,omitempty"`
	Block    int     `json:"b"`
	Summary  string  `json:"u,omitempty"`
	Pair     int64   `json:"p,omitempty"` // seq of the joined request/response
	Latency  float64 `json:"l,omitempty"` // seconds
	Unpaired bool    `json:"x,omitempty"`
	Run      int     `json:"r,omitempty"`  // deltas in the run this frame starts (when > 1)
	InRun    bool    `json:"ir,omitempty"` // a delta continuing a run
	RunText  string  `json:"rt,omitempty"` // the run's joined text
	Notes    []Note  `json:"n,omitempty"`
	JSON     string  `json:"j,omitempty"` // the frame's exact bytes
}

// WriteHTML writes rec as one self-contained HTML page: no network access, no external
// script, style or font. Every piece of recorded content reaches the page as JSON
// data and is put into the document as text, never as markup.
// Secret-shaped values are masked (see Page to reveal them).
func WriteHTML(w io.Writer, rec *recorder.Recording) error { return Page{}.WriteHTML(w, rec) }

func recordingPage(rec *recorder.Recording) pageData {
	s := buildSession(rec)
	title := "codexrec " + rec.Name
	return pageData{Mode: "recording", Title: title, Sessions: []sessionData{s}}
}

func buildSession(rec *recorder.Recording) sessionData {
	s := sessionData{Name: rec.Name, Header: rec.Header, Trailer: rec.Trailer}
	var b Builder
	// Only requests' rows are kept to the end (their answer sets Pair and Latency
	// later); other rows are dropped once their frame is made, and runs of deltas are
	// marked as they end, so a recording of many frames costs one frameData each.
	n := 0
	for i := range rec.Entries {
		switch rec.Entries[i].Type {
		case recorder.TypeFrame, recorder.TypeSegment, recorder.TypeExit:
			n++
		}
	}
	s.Frames = make([]frameData, 0, n)
	var requests []indexedRow
	var index map[int64]int // seq -> index in s.Frames, made at the first note
	var run pageRun
	var cur blockData
	block := -1
	newBlock := func(k blockData) {
		s.Blocks = append(s.Blocks, k)
		cur, block = k, len(s.Blocks)-1
	}
	newBlock(blockData{Segment: 1})
	for i := range rec.Entries {
		e := &rec.Entries[i]
		switch e.Type {
		case recorder.TypeFrame:
			r := b.Frame(e)
			if r.Thread != "" {
				if k := (blockData{Segment: r.Segment, Thread: r.Thread, Turn: r.Turn}); k != cur {
					newBlock(k)
				}
			}
			if index != nil {
				index[r.Seq] = len(s.Frames)
			}
			if r.Kind == wire.KindRequest {
				requests = append(requests, indexedRow{len(s.Frames), r})
			}
			run.add(s.Frames, len(s.Frames), r)
			s.Frames = append(s.Frames, frameOf(r, block))
		case recorder.TypeFinding, recorder.TypeRedaction:
			if index == nil {
				index = make(map[int64]int, len(s.Frames))
				for j := range s.Frames {
					if s.Frames[j].Dir != "" {
						index[s.Frames[j].Seq] = j
					}
				}
			}
			if j, ok := index[e.Seq]; ok {
				s.Frames[j].Notes = append(s.Frames[j].Notes, NoteOf(e))
			}
		case recorder.TypeSegment:
			b.Segment(e.Segment)
			newBlock(blockData{Segment: e.Segment})
			run.end(s.Frames)
			s.Frames = append(s.Frames, frameData{T: e.Time.Seconds(), Block: block,
				Summary: fmt.Sprintf("server process %d started: %s", e.Segment, strings.Join(e.Command, " "))})
		case recorder.TypeExit:
			run.end(s.Frames)
			s.Frames = append(s.Frames, frameData{T: e.Time.Seconds(), Block: block, Summary: exitSummary(e)})
		}
	}
	run.end(s.Frames)
	// Pairs are known only once the answer arrived; copy them now.
	for _, q := range requests {
		s.Frames[q.i].Pair, s.Frames[q.i].Latency = q.r.Pair, q.r.Latency.Seconds()
	}
	return s
}

type indexedRow struct {
	i int
	r *Row
}

func frameOf(r *Row, block int) frameData {
	f := frameData{Seq: r.Seq, T: r.Time.Seconds(), Dir: r.Dir.String(), Method: r.Method,
		ID: string(r.ID), Block: block, Summary: r.Summary, Unpaired: r.Unpaired, Pair: r.Pair,
		Latency: r.Latency.Seconds(), JSON: bytesString(wire.Content(r.Line))}
	if r.Dir != wire.Stderr {
		f.Kind = r.Kind.String()
	}
	return f
}

// pageRun marks runs of consecutive agent text deltas of one item, so the page can
// show a run as one row with the joined text: the run's first frame gets Run and
// RunText, the others InRun.
type pageRun struct {
	start, n int
	item     string
	dir      wire.Direction
	text     string // the text so far at the run's last delta
}

// add notes the row of frame i (the next one).
func (d *pageRun) add(fs []frameData, i int, r *Row) {
	if d.n > 0 && (!r.Delta || r.Item != d.item || r.Dir != d.dir || d.start+d.n != i) {
		d.end(fs)
	}
	if !r.Delta {
		return
	}
	if d.n == 0 {
		d.start, d.item, d.dir = i, r.Item, r.Dir
	}
	d.n++
	d.text = r.Text
}

// end closes the run, if any, marking its frames (all in fs by now).
func (d *pageRun) end(fs []frameData) {
	if d.n > 1 {
		fs[d.start].Run = d.n
		fs[d.start].RunText = d.text
		for k := d.start + 1; k < d.start+d.n; k++ {
			fs[k].InRun = true
		}
	}
	*d = pageRun{}
}

// writePage writes the page around data. The data block is JSON as encoding/json
// writes it, which escapes <, > and & (\u003c...), so no recorded text can close the
// script element; a Content-Security-Policy allows only the page's own script (by
// hash) and no network access at all.
func writePageData(w io.Writer, data pageData, p Page) error {
	pw := &pieceWriter{w: bufio.NewWriterSize(w, 256<<10), limit: p.MaxBytes}
	if pw.limit == 0 {
		pw.limit = DefaultMaxBytes
	}
	if !p.Reveal {
		z, err := sanitize.New(sanitize.Options{})
		if err != nil {
			return fmt.Errorf("view: no sanitizer to mask the page with: %w", err)
		}
		pw.z = z
		data.Title = sanitize.MaskText(data.Title)
	}
	sum := sha256.Sum256([]byte(pageJS()))
	csp := "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" +
		base64.StdEncoding.EncodeToString(sum[:]) + "'"
	pw.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	pw.raw(`<meta http-equiv="Content-Security-Policy" content="` + csp + "\">\n")
	pw.raw(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	pw.raw("<title>" + html.EscapeString(data.Title) + "</title>\n<style>")
	pw.raw(pageCSS)
	pw.raw("</style></head>\n<body>\n<noscript>This page needs JavaScript to show the recording.</noscript>\n")
	pw.raw(`<script id="codexrec-data" type="application/json">`)
	pw.data(data)
	pw.raw("</script>\n<script>")
	pw.raw(pageJS())
	pw.raw("</script>\n</body></html>\n")
	if pw.err == nil {
		pw.err = pw.w.Flush()
	}
	if pw.err != nil {
		return fmt.Errorf("view: %w", pw.err)
	}
	return nil
}

// bytesString is b as a string without a copy: a frame's bytes are never modified
// once read, and a page of a large recording would otherwise hold them twice.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
