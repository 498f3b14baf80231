package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/codexrec/codexrec/internal/mask"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// The JSON Lines export streamed: a first pass learns what a message's line needs
// from later entries (the response that answers a request, the notes that follow a
// frame, the header as meta entries complete it), the second writes each message as
// soon as its last note has been read. Memory holds the pairs and the notes'
// places, a few words each, and the messages waiting for a note (usually none), not
// the recording.

// pairInfo is a request's answer as view.Builder joins it.
type pairInfo struct {
	frame   int // the request's index among the frames, in file order
	seq     int64
	latency time.Duration
}

// seqFrames finds the frame a finding or redaction belongs to: the last frame of
// its seq read before it (as prepare's map keeps). Frames' seqs normally increase,
// so a sorted slice is searched; a map is built only once they do not.
type seqFrames struct {
	seqs   []int64
	sorted bool
	bySeq  map[int64]int
}

func (x *seqFrames) add(seq int64) {
	if len(x.seqs) == 0 {
		x.sorted = true
	}
	if x.sorted && len(x.seqs) > 0 && seq <= x.seqs[len(x.seqs)-1] {
		x.sorted = false
		x.bySeq = make(map[int64]int, len(x.seqs))
		for i, q := range x.seqs {
			x.bySeq[q] = i
		}
	}
	if !x.sorted {
		x.bySeq[seq] = len(x.seqs)
	}
	x.seqs = append(x.seqs, seq)
}

func (x *seqFrames) frame(seq int64) (int, bool) {
	if x.sorted {
		i := sort.Search(len(x.seqs), func(i int) bool { return x.seqs[i] >= seq })
		return i, i < len(x.seqs) && x.seqs[i] == seq
	}
	i, ok := x.bySeq[seq]
	return i, ok
}

// jsonlFirstPass is what the second pass needs to know ahead.
type jsonlFirstPass struct {
	header   recorder.Header
	problems []recorder.Problem
	pairs    []pairInfo  // by frame
	notes    []int       // each finding or redaction's frame (-1: none), in file order
	lastNote map[int]int // frame -> index in notes of its last note
}

func jsonlScan(rf recFile) (*jsonlFirstPass, error) {
	rd, done, err := openRecording(rf)
	if err != nil {
		return nil, err
	}
	defer done()
	type req struct {
		frame int
		t     time.Duration
	}
	fp := &jsonlFirstPass{lastNote: map[int]int{}}
	pending := map[pendingKey]req{}
	var seqs seqFrames
	frames := 0
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		switch e.Type {
		case recorder.TypeFrame:
			i := frames
			frames++
			seqs.add(e.Seq)
			// As view.Builder pairs them.
			if e.Dir == wire.Stderr || !e.Msg.Kind.IsJSON() {
				continue
			}
			switch e.Msg.Kind {
			case wire.KindRequest:
				pending[pendingKey{e.Dir, wire.ID(strings.Clone(string(e.Msg.ID)))}] = req{i, e.Time}
			case wire.KindResponse, wire.KindError:
				k := pendingKey{e.Dir.Opposite(), e.Msg.ID}
				if r, ok := pending[k]; ok {
					delete(pending, k)
					fp.pairs = append(fp.pairs, pairInfo{r.frame, e.Seq, e.Time - r.t})
				}
			}
		case recorder.TypeFinding, recorder.TypeRedaction:
			i, ok := seqs.frame(e.Seq)
			if !ok {
				i = -1
			} else {
				fp.lastNote[i] = len(fp.notes)
			}
			fp.notes = append(fp.notes, i)
		case recorder.TypeSegment:
			clear(pending)
		}
	}
	sort.Slice(fp.pairs, func(i, j int) bool { return fp.pairs[i].frame < fp.pairs[j].frame })
	fp.header, fp.problems = rd.Header(), rd.Problems()
	return fp, nil
}

// pendingKey is a request waiting for its answer: its direction and id.
type pendingKey struct {
	dir wire.Direction
	id  wire.ID
}

// streamJSONL writes the JSON Lines of the recording at path to w (enc encodes to
// it) as WriteJSONL does, reading the file twice.
func streamJSONL(w *bufio.Writer, enc *json.Encoder, rf recFile, opts Options) ([]recorder.Problem, error) {
	fp, err := jsonlScan(rf)
	if err != nil {
		return nil, err
	}
	m, err := mask.New(opts.Reveal)
	if err != nil {
		return nil, err
	}
	s := &session{mask: m, name: m.Text(rf.name)}
	if t, err := time.Parse(time.RFC3339Nano, fp.header.Started); err == nil {
		s.started = t
	}
	runtime.GC() // the first pass's lines, before the second reads (as HAR does)
	rd, done, err := openRecording(rf)
	if err != nil {
		return nil, err
	}
	defer done()
	pairs := fp.pairs
	amend := func(i int, e *recorder.Entry, msg *message) {
		msg.json = e.Dir != wire.Stderr && e.Msg.Kind.IsJSON() && json.Valid(msg.content)
		for len(pairs) > 0 && pairs[0].frame < i {
			pairs = pairs[1:]
		}
		if len(pairs) > 0 && pairs[0].frame == i {
			// Its answer comes later: view.Builder would set these then.
			msg.row.Pair, msg.row.Latency = pairs[0].seq, pairs[0].latency
		}
	}
	err = walkHeld(rd, m, fp.notes, fp.lastNote, amend, func(_ int, msg *message) error {
		if err := encodeLine(w, enc, s.line(msg)); err != nil {
			return fmt.Errorf("export: %s: %w", s.name, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fp.problems, nil
}

// writeJSONLFiles is WriteFiles for JSON Lines.
func writeJSONLFiles(bw *bufio.Writer, paths []string, opts Options, warn func(name string, problems []recorder.Problem)) error {
	enc := json.NewEncoder(bw)
	for _, p := range paths {
		rf, err := openFile(p)
		if err != nil {
			return err
		}
		problems, err := streamJSONL(bw, enc, rf, opts)
		rf.done()
		if err != nil {
			return err
		}
		if warn != nil {
			warn(p, problems)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// encodeLine writes l as enc.Encode does; a long message or text is written from
// where it lies, a piece at a time, not encoded into a copy first (a 100 MB line
// would cost twice its size again).
func encodeLine(w *bufio.Writer, enc *json.Encoder, l Line) error {
	if len(l.Msg)+len(l.Text) <= dataChunk {
		return enc.Encode(l)
	}
	msg, text, notes := l.Msg, l.Text, l.Notes
	l.Msg, l.Text, l.Notes = nil, "", nil
	head, err := json.Marshal(l)
	if err != nil {
		return err
	}
	w.Write(head[:len(head)-1]) // without its closing brace
	if len(msg) > 0 {
		w.WriteString(`,"msg":`)
		writeCompactJSON(w, msg)
	}
	if text != "" {
		w.WriteString(`,"text":"`)
		if err := writeJSONStringContent(w, text); err != nil {
			return err
		}
		w.WriteString(`"`)
	}
	if len(notes) > 0 {
		b, err := json.Marshal(notes)
		if err != nil {
			return err
		}
		w.WriteString(`,"notes":`)
		w.Write(b)
	}
	_, err = w.WriteString("}\n")
	return err
}

// writeCompactJSON writes the valid JSON value src as encoding/json writes a
// json.RawMessage: whitespace outside strings dropped, <, > and & and the line
// separators U+2028 and U+2029 escaped.
func writeCompactJSON(w *bufio.Writer, src []byte) {
	const hex = "0123456789abcdef"
	inString, escaped := false, false
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			w.Write(src[start:i])
			w.Write([]byte{'\\', 'u', '0', '0', hex[c>>4], hex[c&0xF]})
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			w.Write(src[start:i])
			w.Write([]byte{'\\', 'u', '2', '0', '2', hex[src[i+2]&0xF]})
			i += 2
			start = i + 1
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			w.Write(src[start:i])
			start = i + 1
		}
	}
	w.Write(src[start:])
}
