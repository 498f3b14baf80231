package recorder

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/wire"
)

// ProblemKind names a structural problem of a recording.
type ProblemKind string

const (
	ProblemTruncated      ProblemKind = "truncated"        // the last line was cut mid-entry
	ProblemSeqOrder       ProblemKind = "seq-order"        // a frame's seq does not increase
	ProblemTrailerNotLast ProblemKind = "trailer-not-last" // entries (or a second trailer) follow the trailer
	ProblemHeaders        ProblemKind = "duplicate-header" // a header line after the first line
	ProblemCounts         ProblemKind = "trailer-counts"   // the trailer's counts disagree with the entries
	ProblemTooDeep        ProblemKind = "too-deep"         // a message nests deeper than codexrec parses: read as raw text
	ProblemUnreadable     ProblemKind = "unreadable-line"  // a whole line that is not an entry: skipped
	ProblemDuplicateID    ProblemKind = "duplicate-id"     // a request id used again while an earlier request with it is unanswered
)

// Problem is something wrong with a recording's structure that does not keep it
// from being read: the entries around it are served as they are. check reports
// problems as findings; other commands print a one-line warning (Reader.Warning).
type Problem struct {
	Kind    ProblemKind
	Line    int   // 1-based line of the file
	Seq     int64 // the frame concerned, if any
	Message string
}

func (p Problem) String() string {
	if p.Line == 0 { // found past the reader (replay's script), about a frame
		return fmt.Sprintf("%s: %s", p.Kind, p.Message)
	}
	return fmt.Sprintf("line %d: %s: %s", p.Line, p.Kind, p.Message)
}

// Unreadable is how many whole lines were skipped because they are not entries
// (each also a ProblemUnreadable while fewer than 100 problems are kept).
func (r *Reader) Unreadable() int { return r.unreadable }

// maxProblems bounds what a hostile file can make a reader keep.
const maxProblems = 100

func (r *Reader) problem(k ProblemKind, seq int64, msg string) {
	if len(r.problems) < maxProblems {
		r.problems = append(r.problems, Problem{Kind: k, Line: r.lineNo, Seq: seq, Message: msg})
	}
}

// atEOF checks the trailer's counts against what was read, once.
func (r *Reader) atEOF() {
	if r.trailers != 1 || r.afterEnd || r.truncated {
		return
	}
	r.trailers++ // checked
	t := r.trailer
	var diffs []string
	for _, d := range []wire.Direction{wire.ClientToServer, wire.ServerToClient, wire.Stderr} {
		said, stated := t.Frames[d.String()] // a hand-written trailer may leave counts out
		if got := r.seen.frames[d]; stated && got != said {
			diffs = append(diffs, fmt.Sprintf("%d %s frames, the file holds %d", said, d, got))
		}
	}
	if r.seen.findings != t.Findings {
		diffs = append(diffs, fmt.Sprintf("%d findings, the file holds %d", t.Findings, r.seen.findings))
	}
	if t.Segments != 0 && r.seen.segments != t.Segments {
		diffs = append(diffs, fmt.Sprintf("%d segments, the file holds %d", t.Segments, r.seen.segments))
	}
	if r.seen.undelivered != t.Undelivered {
		diffs = append(diffs, fmt.Sprintf("%d undelivered frames, the file marks %d", t.Undelivered, r.seen.undelivered))
	}
	if len(diffs) > 0 {
		r.problem(ProblemCounts, 0, "the trailer counts "+strings.Join(diffs, "; "))
	}
}

// Problems are the structural problems found so far (all of them once Next has
// returned io.EOF), at most 100.
func (r *Reader) Problems() []Problem { return r.problems }

// Truncated reports whether the recording's last line was cut short.
func (r *Reader) Truncated() bool { return r.truncated }

// Warning is a one-line summary of Problems for a command's stderr, or "" when
// there are none.
func (r *Reader) Warning() string { return Warning(r.name, r.problems) }

// Warning is a one-line summary of a recording's problems, or "" when there are none.
func Warning(name string, ps []Problem) string {
	if len(ps) == 0 {
		return ""
	}
	s := fmt.Sprintf("warning: recording %s: %s", name, ps[0])
	if ps[0].Kind == ProblemTruncated {
		s += " (the entries before it are read)"
	}
	if len(ps) > 1 {
		s += fmt.Sprintf(" (and %d more problems)", len(ps)-1)
	}
	return s
}

// maxSeq is the largest seq a recording may hold: every integer up to it is exact
// in a float64, as other JSON tools read it.
const maxSeq = 1<<53 - 1

// maxTime bounds "t" far below what a time.Duration holds (292 years).
const maxTime = 100 * 365 * 24 * time.Hour

func parseSeq(v gjson.Result) (int64, error) {
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	if v.Type != gjson.Number || err != nil || n < 0 || n > maxSeq {
		return 0, fmt.Errorf("seq %.40s is not an integer from 0 to 2^53-1", v.Raw)
	}
	return n, nil
}

func parseTime(v gjson.Result) (time.Duration, error) {
	f := v.Num
	if v.Type != gjson.Number || math.IsNaN(f) || f < 0 || f > maxTime.Seconds() {
		return 0, fmt.Errorf("t %.40s is not a time from 0 to 100 years in seconds", v.Raw)
	}
	return time.Duration(f * float64(time.Second)), nil
}
