package diff

import "github.com/codexrec/codexrec/wire"

// Report is the outcome of comparing two sessions.
type Report struct {
	Old  SessionInfo `json:"old"`
	New  SessionInfo `json:"new"`
	Same bool        `json:"same"` // equal after normalisation
	// Directions summarises each direction (c2s, then s2c).
	Directions []DirSummary `json:"directions"`
	// MethodsAdded and MethodsRemoved list the message kinds and methods (requests,
	// notifications, responses of a method) only one session has.
	MethodsAdded   []MethodRef `json:"methodsAdded"`
	MethodsRemoved []MethodRef `json:"methodsRemoved"`
	// Groups hold the changes, one group per direction, kind and method.
	Groups []Group `json:"groups"`
}

// SessionInfo names one side of a diff.
type SessionInfo struct {
	Name         string `json:"name"`
	CodexVersion string `json:"codexVersion,omitempty"`
	Scenario     string `json:"scenario,omitempty"`
	Stderr       int    `json:"stderrLines"` // counted, not compared
}

// DirSummary counts one direction's messages.
type DirSummary struct {
	Dir     string `json:"dir"`
	Old     int    `json:"old"`
	New     int    `json:"new"`
	Aligned int    `json:"aligned"`
	Changed int    `json:"changed"` // aligned pairs that differ
	Added   int    `json:"added"`   // messages only NEW has
	Removed int    `json:"removed"` // messages only OLD has
	Moved   int    `json:"moved"`   // equal messages at another place in the sequence
}

// MethodRef is a message kind and method in one direction.
type MethodRef struct {
	Dir    string `json:"dir"`
	Kind   string `json:"kind"`
	Method string `json:"method"`
	Count  int    `json:"count"` // messages of it in the session that has it
}

// Group is the changes of one direction, kind and method.
type Group struct {
	Dir     string   `json:"dir"`
	Kind    string   `json:"kind"`
	Method  string   `json:"method"`
	Changes []Change `json:"changes"`
}

// Change is one difference, aggregated over every aligned pair where it occurs.
type Change struct {
	Change ChangeKind `json:"change"`
	// Pointer locates the difference in the message (RFC 6901, with array indices
	// shown as "*" and "#" entering a string that holds JSON); empty for messages.
	Pointer string `json:"pointer,omitempty"`
	// Old and New are the first occurrence's values as normalised JSON, shortened.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Count is how many times the change occurred; OldSeq and NewSeq are the frame
	// seqs of its first occurrence (0 when that side has none).
	Count  int   `json:"count"`
	OldSeq int64 `json:"oldSeq,omitempty"`
	NewSeq int64 `json:"newSeq,omitempty"`
}

// valueMax bounds rendered old and new values.
const valueMax = 120

var directions = []wire.Direction{wire.ClientToServer, wire.ServerToClient}

// Compare compares two loaded sessions.
func Compare(old, new *Session) *Report {
	r := &Report{
		Old:            info(old),
		New:            info(new),
		MethodsAdded:   []MethodRef{},
		MethodsRemoved: []MethodRef{},
		Groups:         []Group{},
	}
	agg := newAggregator()
	for _, d := range directions {
		compareDirection(r, agg, d, old.Messages(d), new.Messages(d))
	}
	r.Groups = agg.groups()
	r.Same = len(r.Groups) == 0
	return r
}

func info(s *Session) SessionInfo {
	return SessionInfo{Name: s.Name, CodexVersion: s.Header.CodexVersion, Scenario: s.Header.Scenario, Stderr: s.Stderr}
}

func compareDirection(r *Report, agg *aggregator, d wire.Direction, a, b []Message) {
	dir := d.String()
	sum := DirSummary{Dir: dir, Old: len(a), New: len(b)}
	eachStep(a, b, stepVisitor(agg, dir, &sum))
	r.Directions = append(r.Directions, sum)
	methodsOnlyIn(&r.MethodsRemoved, dir, a, b)
	methodsOnlyIn(&r.MethodsAdded, dir, b, a)
	compareEnums(agg, dir, a, b)
}

// stepVisitor counts each step of direction dir in sum and adds its changes to agg.
func stepVisitor(agg *aggregator, dir string, sum *DirSummary) func(*Step) {
	return func(s *Step) {
		switch {
		case s.Old == nil:
			if s.Moved != nil {
				return // counted, once, on the OLD side
			}
			sum.Added++
			agg.add(dir, s.New, Change{Change: MessageAdded, New: render(s.New.Value, valueMax), NewSeq: s.New.Seq})
		case s.New == nil:
			if s.Moved != nil {
				sum.Moved++
				agg.add(dir, s.Old, Change{Change: MessageMoved, OldSeq: s.Old.Seq, NewSeq: s.Moved.Seq})
				return
			}
			sum.Removed++
			agg.add(dir, s.Old, Change{Change: MessageRemoved, Old: render(s.Old.Value, valueMax), OldSeq: s.Old.Seq})
		default:
			sum.Aligned++
			if len(s.Changes) > 0 {
				sum.Changed++
			}
			for _, c := range s.Changes {
				agg.add(dir, s.Old, c)
			}
		}
	}
}

// methodsOnlyIn appends the kinds and methods of have that other lacks, in order of
// first appearance.
func methodsOnlyIn(out *[]MethodRef, dir string, have, other []Message) {
	seen := map[string]bool{}
	for i := range other {
		seen[other[i].Key] = true
	}
	idx := map[string]int{}
	for i := range have {
		m := &have[i]
		k := m.Key
		if seen[k] {
			continue
		}
		if j, ok := idx[k]; ok {
			(*out)[j].Count++
			continue
		}
		idx[k] = len(*out)
		*out = append(*out, MethodRef{Dir: dir, Kind: m.Kind.String(), Method: m.Method, Count: 1})
	}
}

// OnlyMoves reports whether the sessions differ only in the order of some messages
// (every change is a message-moved): the same after normalisation, had asynchronous
// notifications arrived in the same order.
func (r *Report) OnlyMoves() bool {
	for _, g := range r.Groups {
		for _, c := range g.Changes {
			if c.Change != MessageMoved {
				return false
			}
		}
	}
	return true
}
