package view

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// WriteHTMLFile writes the page of the recording at path, as WriteHTML does for the
// recording read whole, but reading the file twice instead of holding it: a first
// pass learns what only later frames tell (answers' pairing, runs of deltas, notes,
// the blocks), the second writes each frame as it is read. Memory is then one entry
// and that knowledge, not the recording and a frame record per line. It returns the
// recording's structural problems (as the first pass found them).
func (p Page) WriteHTMLFile(w io.Writer, path string) ([]recorder.Problem, error) {
	src, done, err := recorder.Seekable(path) // read twice: a pipe is copied first
	if err != nil {
		return nil, err
	}
	defer done()
	plan, header, trailer, problems, err := planFile(src, path)
	if err != nil {
		return nil, err
	}
	s := sessionData{Name: path, Header: header, Trailer: trailer, Blocks: plan.blocks}
	s.stream = func(yield func(frameData) bool) error {
		// The first pass's lines are garbage by now: collected before the second
		// reads, a recording of one huge line costs that line once, not twice.
		runtime.GC()
		f, err := os.Open(src)
		if err != nil {
			return fmt.Errorf("recording: %w", err)
		}
		defer f.Close()
		rd, err := recorder.NewReader(f, path)
		if err != nil {
			return err
		}
		var fw frameWalker
		inRun, stop := -1, false
		for e, err := range rd.Entries() {
			if err != nil {
				return err
			}
			if e.Type == recorder.TypeFinding || e.Type == recorder.TypeRedaction {
				continue
			}
			fw.entry(&e, false, func(i int, f frameData, _ *Row) {
				if stop || i >= plan.frames {
					stop = true // the file grew since the first pass
					return
				}
				if a, ok := plan.pairs[i]; ok {
					f.Pair, f.Latency = a.pair, a.latency
				}
				if r, ok := plan.runs[i]; ok {
					f.Run, f.RunText, inRun = r.n, r.text, i+r.n
				} else if i < inRun {
					f.InRun = true
				}
				f.Notes = plan.notes[i]
				stop = !yield(f)
			}, nil)
			if stop {
				break
			}
		}
		return nil
	}
	data := pageData{Mode: "recording", Title: "codexrec " + path, Sessions: []sessionData{s}}
	return problems, writePageData(w, data, p)
}

// planFile is WriteHTMLFile's first pass, over the file at src, named path.
func planFile(src, path string) (*sessionPlan, recorder.Header, *recorder.Trailer, []recorder.Problem, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, recorder.Header{}, nil, nil, fmt.Errorf("recording: %w", err)
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, path)
	if err != nil {
		return nil, recorder.Header{}, nil, nil, err
	}
	plan := sessionPlan{pairs: map[int]answer{}, runs: map[int]runAt{}}
	var fw frameWalker
	var requests []indexedRow
	var index map[int64]int
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, recorder.Header{}, nil, nil, err
		}
		if e.Type == recorder.TypeFinding || e.Type == recorder.TypeRedaction {
			if index == nil {
				// Made at the first note: a recording without any costs nothing.
				index = map[int64]int{}
				for _, q := range fw.seqs {
					index[q.seq] = q.i
				}
				fw.seqs = nil
			}
			if j, ok := index[e.Seq]; ok {
				if plan.notes == nil {
					plan.notes = map[int][]Note{}
				}
				plan.notes[j] = append(plan.notes[j], NoteOf(&e))
			}
			continue
		}
		fw.entry(&e, index == nil, func(i int, _ frameData, r *Row) {
			if r == nil {
				return
			}
			if index != nil {
				index[r.Seq] = i
			}
			if r.Kind == wire.KindRequest {
				requests = append(requests, indexedRow{i, r})
			}
		}, func(start, n int, text string) { plan.runs[start] = runAt{n, text} })
	}
	fw.endRun()
	for _, q := range requests {
		if q.r.Pair != 0 {
			plan.pairs[q.i] = answer{q.r.Pair, q.r.Latency.Seconds()}
		}
	}
	plan.frames, plan.blocks = fw.i, fw.blocks
	return &plan, rd.Header(), rd.Trailer(), rd.Problems(), nil
}

type sessionPlan struct {
	frames int
	blocks []blockData
	pairs  map[int]answer // a request's frame index -> its answer
	runs   map[int]runAt  // a run's first frame index -> the run
	notes  map[int][]Note
}

type answer struct {
	pair    int64
	latency float64
}

type runAt struct {
	n    int
	text string
}

// frameWalker makes a session's frames from its entries (findings and redactions
// excepted) one at a time, as buildSession does.
type frameWalker struct {
	b      Builder
	cur    blockData
	block  int
	blocks []blockData
	i      int // the index of the next frame
	seqs   []seqAt
	run    pageRun
	onRun  func(start, n int, text string)
}

type seqAt struct {
	seq int64
	i   int
}

// entry makes e's frame, if any, and passes it to emit with its row (nil for a
// segment's or an exit's line). keepSeqs keeps each frame's seq and index.
func (w *frameWalker) entry(e *recorder.Entry, keepSeqs bool, emit func(i int, f frameData, r *Row), onRun func(start, n int, text string)) {
	if w.blocks == nil {
		w.blocks = []blockData{{Segment: 1}}
	}
	w.onRun = onRun
	newBlock := func(k blockData) {
		w.blocks = append(w.blocks, k)
		w.cur, w.block = k, len(w.blocks)-1
	}
	switch e.Type {
	case recorder.TypeFrame:
		r := w.b.Frame(e)
		if r.Thread != "" {
			if k := (blockData{Segment: r.Segment, Thread: r.Thread, Turn: r.Turn}); k != w.cur {
				// Copied: the ids lie in the frame's line, which may be huge.
				k.Thread, k.Turn = strings.Clone(k.Thread), strings.Clone(k.Turn)
				newBlock(k)
			}
		}
		if keepSeqs {
			w.seqs = append(w.seqs, seqAt{r.Seq, w.i})
		}
		if w.run.n > 0 && (!r.Delta || r.Item != w.run.item || r.Dir != w.run.dir || w.run.start+w.run.n != w.i) {
			w.endRun()
		}
		if r.Delta {
			if w.run.n == 0 {
				w.run.start, w.run.item, w.run.dir = w.i, r.Item, r.Dir
			}
			w.run.n++
			w.run.text = r.Text
		}
		emit(w.i, frameOf(r, w.block), r)
		w.i++
	case recorder.TypeSegment:
		w.b.Segment(e.Segment)
		newBlock(blockData{Segment: e.Segment})
		w.endRun()
		emit(w.i, frameData{T: e.Time.Seconds(), Block: w.block,
			Summary: fmt.Sprintf("server process %d started: %s", e.Segment, strings.Join(e.Command, " "))}, nil)
		w.i++
	case recorder.TypeExit:
		w.endRun()
		emit(w.i, frameData{T: e.Time.Seconds(), Block: w.block, Summary: exitSummary(e)}, nil)
		w.i++
	}
}

func (w *frameWalker) endRun() {
	if w.run.n > 1 && w.onRun != nil {
		w.onRun(w.run.start, w.run.n, w.run.text)
	}
	w.run = pageRun{}
}
