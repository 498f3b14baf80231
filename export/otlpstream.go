package export

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/codexrec/codexrec/recorder"
)

// writeOTLPDoc writes the OTLP/JSON document of the resources next yields (nil
// when there are no more) as writeJSON writes otlpTraces, one span at a time: the
// document is never encoded whole into one buffer (a million events made it larger
// than the recording, and growing it copied it again).
func writeOTLPDoc(w io.Writer, next func() (*otlpResourceSpans, error)) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"resourceSpans":[`)
	for n := 0; ; n++ {
		rs, err := next()
		if err != nil {
			return err
		}
		if rs == nil {
			break
		}
		if n > 0 {
			bw.WriteString(",")
		}
		if err := writeResourceSpans(bw, rs); err != nil {
			return err
		}
	}
	bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// writeResourceSpans writes rs as encoding/json encodes it, a span at a time.
func writeResourceSpans(w *bufio.Writer, rs *otlpResourceSpans) error {
	piece := func(prefix string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		w.WriteString(prefix)
		_, err = w.Write(b)
		return err
	}
	if err := piece(`{"resource":`, rs.Resource); err != nil {
		return err
	}
	w.WriteString(`,"scopeSpans":[`)
	for i, ss := range rs.ScopeSpans {
		if i > 0 {
			w.WriteString(",")
		}
		if err := piece(`{"scope":`, ss.Scope); err != nil {
			return err
		}
		w.WriteString(`,"spans":`)
		if ss.Spans == nil {
			w.WriteString("null")
		} else {
			w.WriteString("[")
			for j := range ss.Spans {
				if j > 0 {
					w.WriteString(",")
				}
				if err := writeSpan(w, &ss.Spans[j]); err != nil {
					return err
				}
			}
			w.WriteString("]")
		}
		w.WriteString("}")
	}
	_, err := w.WriteString("]}")
	return err
}

// writeOTLPFiles is WriteFiles for OTLP: each recording is streamed
// (streamOTLPResource), or read whole and made into its spans when its frames' seqs
// do not increase (a recording no recorder writes), one recording at a time.
func writeOTLPFiles(w io.Writer, paths []string, opts Options, warn func(name string, problems []recorder.Problem)) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"resourceSpans":[`)
	for i, p := range paths {
		if i > 0 {
			bw.WriteString(",")
		}
		runtime.GC() // the previous recording's, before this one is read
		rf, err := openFile(p)
		if err != nil {
			return err
		}
		problems, err := streamOTLPResource(bw, rf, opts)
		if errors.Is(err, errSeqOrder) {
			runtime.GC()
			problems, err = wholeOTLPResource(bw, rf, opts)
		}
		rf.done()
		if err != nil {
			return err
		}
		if warn != nil {
			warn(p, problems)
		}
	}
	bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// wholeOTLPResource writes the resource of the recording at path read whole.
func wholeOTLPResource(w *bufio.Writer, rf recFile, opts Options) ([]recorder.Problem, error) {
	rec, err := recorder.ReadFile(rf.path)
	if err != nil {
		return nil, err
	}
	rec.Name = rf.name
	s, err := prepare(rec, opts)
	if err != nil {
		return nil, err
	}
	// The session's messages hold what the spans need: the entries (a few
	// hundred bytes each) can go before the spans are built.
	problems := rec.Problems
	rec.Entries = nil
	rs := s.otlp(opts)
	return problems, writeResourceSpans(w, &rs)
}

// writeSpan writes sp as encoding/json encodes it, an event at a time (a turn of a
// million deltas is one span).
func writeSpan(w *bufio.Writer, sp *otlpSpan) error {
	head := *sp
	head.Events, head.Status = nil, nil
	b, err := json.Marshal(&head)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	w.Write(b[:len(b)-1]) // without its closing brace
	if len(sp.Events) > 0 {
		w.WriteString(`,"events":[`)
		for i := range sp.Events {
			if i > 0 {
				w.WriteString(",")
			}
			b, err := json.Marshal(&sp.Events[i])
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			w.Write(b)
		}
		w.WriteString("]")
	}
	if sp.Status != nil {
		b, err := json.Marshal(sp.Status)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		w.WriteString(`,"status":`)
		w.Write(b)
	}
	_, err = w.WriteString("}")
	return err
}
