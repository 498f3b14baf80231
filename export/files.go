package export

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/codexrec/codexrec/internal/mask"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

// WriteFiles writes the recordings at paths in format f to w, byte for byte as
// Write writes them read whole, and calls warn (when not nil) with each recording's
// structural problems once it is read. HAR is written as the recordings are read,
// one message at a time (a first pass learns the header, the trailer and the
// duration the entry starts with): memory holds a message, the recording's notes
// and stderr lines, not the recording. JSON Lines are written likewise (a first pass
// joins requests to their responses and places the notes, see jsonlstream.go). OTLP
// is written likewise in three passes (see otlpwalk.go); a recording whose frames'
// seqs do not increase is read whole.
func WriteFiles(w io.Writer, f Format, paths []string, opts Options, warn func(name string, problems []recorder.Problem)) error {
	if f == JSONL {
		return writeJSONLFiles(bufio.NewWriter(w), paths, opts, warn)
	}
	if f == OTLP {
		return writeOTLPFiles(w, paths, opts, warn)
	}
	if f != HAR {
		var recs []*recorder.Recording
		for _, p := range paths {
			rec, err := recorder.ReadFile(p)
			if err != nil {
				return err
			}
			if warn != nil {
				warn(rec.Name, rec.Problems)
			}
			recs = append(recs, rec)
		}
		return Write(w, f, recs, opts)
	}
	bw := bufio.NewWriter(w)
	doc := harLog{Log: harBody{Version: "1.2", Creator: harCreator{Name: "codexrec", Version: opts.Creator},
		Pages: []any{}, Entries: []harEntry{}}}
	top, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	head, tail, ok := bytes.Cut(top, []byte(`"entries": []`))
	if !ok {
		return fmt.Errorf("export: unexpected HAR layout")
	}
	bw.Write(head)
	bw.WriteString(`"entries": [`)
	for i, p := range paths {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n      ")
		rf, err := openFile(p)
		if err != nil {
			return err
		}
		problems, err := streamHAREntry(bw, rf, opts)
		rf.done()
		if err != nil {
			return err
		}
		if warn != nil {
			warn(p, problems)
		}
	}
	if len(paths) > 0 {
		bw.WriteString("\n    ")
	}
	bw.WriteString("]")
	bw.Write(tail)
	bw.WriteString("\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// harFirstPass is what the entry's head needs before its messages.
type harFirstPass struct {
	header   recorder.Header
	trailer  *recorder.Trailer
	end      time.Duration
	problems []recorder.Problem
}

func harScan(rf recFile) (*harFirstPass, error) {
	rd, done, err := openRecording(rf)
	if err != nil {
		return nil, err
	}
	defer done()
	fp := &harFirstPass{}
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		fp.end = max(fp.end, e.Time)
	}
	fp.header, fp.trailer, fp.problems = rd.Header(), rd.Trailer(), rd.Problems()
	if tr := fp.trailer; tr != nil {
		fp.end = max(fp.end, time.Duration(tr.Duration*float64(time.Second)))
	}
	return fp, nil
}

// streamHAREntry writes the HAR entry of the recording at path (at the depth of
// the log's entries) as harEntry and writeJSON write it, reading the file twice.
func streamHAREntry(w *bufio.Writer, rf recFile, opts Options) ([]recorder.Problem, error) {
	fp, err := harScan(rf)
	if err != nil {
		return nil, err
	}
	m, err := mask.New(opts.Reveal)
	if err != nil {
		return nil, err
	}
	// The session's head, as prepare and harEntry make it, without messages.
	s := &session{rec: &recorder.Recording{Name: rf.name, Header: fp.header, Trailer: fp.trailer}, mask: m,
		name: m.Text(rf.name), command: m.Strings(fp.header.Command), end: fp.end}
	if t, err := time.Parse(time.RFC3339Nano, fp.header.Started); err == nil {
		s.started = t
	}
	e := s.harEntry()
	const indent = "      " // an entry of log.entries
	head, err := json.MarshalIndent(e, indent, "  ")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	pre, _, ok := bytes.Cut(head, []byte("\n"+indent+`  "_webSocketMessages": []`))
	if !ok {
		return nil, fmt.Errorf("export: unexpected HAR entry layout")
	}
	w.Write(pre)
	w.WriteString("\n" + indent + `  "_webSocketMessages": [`)

	// The first pass's lines are garbage by now: collected before the second reads,
	// a recording of one huge line costs that line once, not twice (as view does).
	runtime.GC()
	rd, done, err := openRecording(rf)
	if err != nil {
		return nil, err
	}
	defer done()
	type seqNote struct {
		frame, order int
		note         harSeqNote
	}
	var (
		notes    []seqNote
		stderr   []string
		frames   int
		seqs     []int64 // each frame's seq, in file order
		sorted   = true  // seqs strictly increase (the frame of a seq is found by search)
		bySeq    map[int64]int
		messages int
	)
	frameOf := func(seq int64) (int, bool) {
		if sorted {
			i := sort.Search(len(seqs), func(i int) bool { return seqs[i] >= seq })
			return i, i < len(seqs) && seqs[i] == seq
		}
		i, ok := bySeq[seq]
		return i, ok
	}
	for en, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		switch en.Type {
		case recorder.TypeFrame:
			if sorted && len(seqs) > 0 && en.Seq <= seqs[len(seqs)-1] {
				sorted = false
				bySeq = make(map[int64]int, len(seqs))
				for i, q := range seqs {
					bySeq[q] = i // the last frame of a seq, as prepare's map keeps
				}
			}
			seqs = append(seqs, en.Seq)
			if !sorted {
				bySeq[en.Seq] = frames
			}
			frames++
			c := m.Frame(&en)
			if en.Dir == wire.Stderr {
				stderr = append(stderr, string(c))
				continue
			}
			msg := harWSMessage{Type: "send", Opcode: 1}
			if en.Dir == wire.ServerToClient {
				msg.Type = "receive"
			}
			if en.Msg.Kind == wire.KindRaw && !utf8.Valid(c) {
				msg.Opcode, msg.Data = 2, base64.StdEncoding.EncodeToString(c)
			} else {
				msg.Data = bytesView(c)
			}
			msg.Time = float64(s.at(en.Time).UnixMicro()) / 1e6
			if messages > 0 {
				w.WriteString(",")
			}
			messages++
			w.WriteString("\n" + indent + "    ")
			if err := writeHARMessage(w, &msg, indent+"    "); err != nil {
				return nil, err
			}
		case recorder.TypeFinding, recorder.TypeRedaction:
			if i, ok := frameOf(en.Seq); ok {
				n := view.NoteOf(&en)
				n.Reason, n.Detail = m.Text(n.Reason), m.Text(n.Detail)
				notes = append(notes, seqNote{i, len(notes), harSeqNote{Seq: en.Seq, Type: string(n.Type), Rule: n.Rule,
					Pointer: n.Pointer, Reason: n.Reason, Detail: n.Detail}})
			}
		}
	}
	if messages > 0 {
		w.WriteString("\n" + indent + "  ")
	}
	w.WriteString("],\n" + indent + `  "_codexrec": `)
	// As harEntry lists them: by frame, then in the order read.
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].frame < notes[j].frame })
	for _, n := range notes {
		e.Codexrec.Notes = append(e.Codexrec.Notes, n.note)
	}
	e.Codexrec.Stderr = stderr
	cx, err := json.MarshalIndent(e.Codexrec, indent+"  ", "  ")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	w.Write(cx)
	w.WriteString("\n" + indent + "}")
	return fp.problems, nil
}

// writeHARMessage writes msg as json.MarshalIndent does with prefix, without
// building an indented copy of a long message.
func writeHARMessage(w *bufio.Writer, msg *harWSMessage, prefix string) error {
	field := func(name string, v any, last bool) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		w.WriteString("\n" + prefix + "  " + `"` + name + `": `)
		w.Write(b)
		if !last {
			w.WriteString(",")
		}
		return nil
	}
	w.WriteString("{")
	if err := field("type", msg.Type, false); err != nil {
		return err
	}
	if err := field("time", msg.Time, false); err != nil {
		return err
	}
	if err := field("opcode", msg.Opcode, false); err != nil {
		return err
	}
	if len(msg.Data) <= dataChunk {
		if err := field("data", msg.Data, true); err != nil {
			return err
		}
	} else {
		w.WriteString("\n" + prefix + "  " + `"data": "`)
		if err := writeJSONStringContent(w, msg.Data); err != nil {
			return err
		}
		w.WriteString(`"`)
	}
	_, err := w.WriteString("\n" + prefix + "}")
	return err
}

// dataChunk is how much of a long string writeJSONStringContent encodes at a time.
const dataChunk = 64 << 10

// writeJSONStringContent writes s as json.Marshal encodes it, without the quotes,
// a piece at a time, each cut before a byte that starts a rune (the encoder goes
// rune by rune, and an invalid byte alone, so the pieces encode as the whole does).
func writeJSONStringContent(w *bufio.Writer, s string) error {
	for len(s) > 0 {
		n := min(dataChunk, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		b, err := json.Marshal(s[:n])
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		w.Write(b[1 : len(b)-1])
		s = s[n:]
	}
	return nil
}

// bytesView is b as a string without a copy: a masked frame is not modified once
// made, and the string does not outlive the message written from it.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// recFile is a recording the streaming writers read in passes: the file at path,
// named name (a pipe named name is copied to path first: recorder.Seekable).
type recFile struct {
	path, name string
	done       func()
}

// openFile is the recFile of the recording named name; done removes a copy.
func openFile(name string) (recFile, error) {
	path, done, err := recorder.Seekable(name)
	return recFile{path, name, done}, err
}

// openRecording opens the recording rf for one streaming pass; done closes it.
func openRecording(rf recFile) (rd *recorder.Reader, done func() error, err error) {
	f, err := os.Open(rf.path)
	if err != nil {
		return nil, nil, fmt.Errorf("recording: %w", err)
	}
	if rd, err = recorder.NewReader(f, rf.name); err != nil {
		f.Close()
		return nil, nil, err
	}
	return rd, f.Close, nil
}
