package view

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Overview is what a recording holds, in a few lines: its header, frame counts,
// methods and the agent's replies (codexrec summary).
type Overview struct {
	File         string            `json:"file"`
	CodexVersion string            `json:"codexVersion,omitempty"`
	Scenario     string            `json:"scenario,omitempty"`
	Frames       map[string]int    `json:"frames"` // by direction: c2s, s2c, stderr
	Findings     int               `json:"findings"`
	Trailer      *recorder.Trailer `json:"trailer"` // nil when the recording was cut short
	Methods      []MethodCount     `json:"methods"`
	Replies      []string          `json:"replies"`
}

// MethodCount is how often a method was sent in one direction as one kind.
type MethodCount struct {
	Dir    string `json:"dir"`
	Kind   string `json:"kind"`
	Method string `json:"method"`
	Count  int    `json:"count"`
}

// NewOverview reads rec, found at file, into an Overview.
func NewOverview(file string, rec *recorder.Recording) *Overview {
	b := newOverviewBuilder(file, rec.Header)
	for i := range rec.Entries {
		b.add(&rec.Entries[i])
	}
	return b.finish(rec.Trailer)
}

// ReadOverview streams the recording at path into an Overview, one entry at a
// time: memory holds the entry being read and the agent's replies, not the file.
// The returned Reader says what was unreadable (Warning).
func ReadOverview(path string) (*Overview, *recorder.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, path)
	if err != nil {
		return nil, nil, err
	}
	b := newOverviewBuilder(path, rd.Header())
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, rd, err
		}
		b.add(&e)
	}
	// Fields learned during the session come in meta entries: the header as read
	// to the end has them.
	h := rd.Header()
	b.o.CodexVersion, b.o.Scenario = h.CodexVersion, h.Scenario
	return b.finish(rd.Trailer()), rd, nil
}

type overviewBuilder struct {
	o       *Overview
	methods map[string]*MethodCount
	delta   strings.Builder
	// first is the reply's first delta, a view into its line, until a second comes.
	first   string
	pending bool
}

func newOverviewBuilder(file string, h recorder.Header) *overviewBuilder {
	o := &Overview{File: file, CodexVersion: h.CodexVersion, Scenario: h.Scenario,
		Frames: map[string]int{}, Methods: []MethodCount{}, Replies: []string{}}
	for _, d := range []wire.Direction{wire.ClientToServer, wire.ServerToClient, wire.Stderr} {
		o.Frames[d.String()] = 0
	}
	return &overviewBuilder{o: o, methods: map[string]*MethodCount{}}
}

func (b *overviewBuilder) add(e *recorder.Entry) {
	o := b.o
	switch e.Type {
	case recorder.TypeFinding:
		o.Findings++
	case recorder.TypeFrame:
		o.Frames[e.Dir.String()]++
		if e.Dir == wire.Stderr {
			return
		}
		if e.Msg.Method != "" {
			k := e.Dir.String() + " " + e.Msg.Kind.String() + " " + e.Msg.Method
			if b.methods[k] == nil {
				b.methods[k] = &MethodCount{Dir: e.Dir.String(), Kind: e.Msg.Kind.String(), Method: e.Msg.Method}
			}
			b.methods[k].Count++
		}
		switch e.Msg.Method {
		case "item/agentMessage/delta":
			// gjson on a view of the line (never modified once read): a reply of
			// one delta stays where it lies, a longer one is copied once, into delta.
			d := gjson.Get(bytesView(e.JSON()), "params.delta").Str
			switch {
			case b.delta.Len() == 0 && !b.pending:
				b.first, b.pending = d, true
			default:
				if b.pending {
					b.delta.WriteString(b.first)
					b.first, b.pending = "", false
				}
				b.delta.WriteString(d)
			}
		case "item/completed":
			item := gjson.GetBytes(e.JSON(), "params.item")
			if item.Get("type").Str == "agentMessage" {
				o.Replies = append(o.Replies, item.Get("text").Str)
				b.delta.Reset()
				b.first, b.pending = "", false
			}
		}
	}
}

func (b *overviewBuilder) finish(t *recorder.Trailer) *Overview {
	o := b.o
	o.Trailer = t
	switch {
	case b.pending && b.first != "":
		o.Replies = append(o.Replies, b.first)
	case b.delta.Len() > 0:
		o.Replies = append(o.Replies, b.delta.String())
	}
	keys := make([]string, 0, len(b.methods))
	for k := range b.methods {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o.Methods = append(o.Methods, *b.methods[k])
	}
	return o
}

// WriteText writes the overview as aligned lines.
func (o *Overview) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "recording  %s\n", o.File)
	fmt.Fprintf(&b, "codex      %s\n", dash(o.CodexVersion))
	if o.Scenario != "" {
		fmt.Fprintf(&b, "scenario   %s\n", o.Scenario)
	}
	fmt.Fprintf(&b, "frames     c2s %d, s2c %d, stderr %d\n", o.Frames["c2s"], o.Frames["s2c"], o.Frames["stderr"])
	if o.Findings > 0 {
		fmt.Fprintf(&b, "findings   %d\n", o.Findings)
	}
	if t := o.Trailer; t != nil {
		fmt.Fprintf(&b, "ended      %s, exit code %d, %.2fs\n", t.Ended, t.ExitCode, t.Duration)
	} else {
		fmt.Fprintf(&b, "ended      (no trailer: the recording was cut short)\n")
	}
	fmt.Fprintln(&b, "methods")
	for _, m := range o.Methods {
		fmt.Fprintf(&b, "  %4d  %s %s %s\n", m.Count, m.Dir, m.Kind, m.Method)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	// Replies are written one at a time, a long one quoted a piece at a time:
	// an answer of 100 MB is not copied whole.
	for _, r := range o.Replies {
		if err := writeQuoted(w, "agent      ", r); err != nil {
			return err
		}
	}
	return nil
}

// quoteChunk is how much of a string writeQuoted quotes at a time.
const quoteChunk = 64 << 10

// writeQuoted writes prefix, s as strconv.Quote quotes it, and a newline, quoting
// s in pieces cut before a byte that starts a rune (Quote escapes rune by rune, and
// an invalid byte alone, so the pieces quote as the whole does).
func writeQuoted(w io.Writer, prefix, s string) error {
	if len(s) <= quoteChunk {
		q := strconv.AppendQuote([]byte(prefix), s)
		_, err := w.Write(append(q, '\n'))
		return err
	}
	var buf, q []byte
	buf = append(append(buf, prefix...), '"')
	for len(s) > 0 {
		n := min(quoteChunk, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		q = strconv.AppendQuote(q[:0], s[:n])
		buf = append(buf, q[1:len(q)-1]...)
		s = s[n:]
		if len(s) == 0 {
			buf = append(buf, '"', '\n')
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	return nil
}

// WriteJSON writes the overview as one indented JSON document.
func (o *Overview) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(o)
}

// bytesView is b as a string without a copy, for gjson: an entry's line is never
// modified once read.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
