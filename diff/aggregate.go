package diff

import (
	"sort"
	"strings"

	"github.com/codexrec/codexrec/internal/normalize"
)

// aggregator merges identical changes (same group, kind and pointer) and counts them.
type aggregator struct {
	byGroup map[string]*Group
	index   map[string]int // group key + change key -> index in the group's Changes
}

func newAggregator() *aggregator {
	return &aggregator{byGroup: map[string]*Group{}, index: map[string]int{}}
}

func (g *aggregator) add(dir string, m *Message, c Change) {
	gk := dir + " " + m.Key
	grp := g.byGroup[gk]
	if grp == nil {
		grp = &Group{Dir: dir, Kind: m.Kind.String(), Method: m.Method}
		g.byGroup[gk] = grp
	}
	ck := gk + "\x00" + string(c.Change) + "\x00" + c.Pointer
	if c.Change == EnumAdded || c.Change == EnumRemoved || c.Change == ItemTypeAdded || c.Change == ItemTypeRemoved {
		ck += "\x00" + c.Old + c.New // each value is its own change
	}
	if c.Count == 0 {
		c.Count = 1
	}
	if i, ok := g.index[ck]; ok {
		grp.Changes[i].Count += c.Count
		return
	}
	g.index[ck] = len(grp.Changes)
	grp.Changes = append(grp.Changes, c)
}

// changeOrder puts whole-message changes first, then enum findings, then fields.
var changeOrder = map[ChangeKind]int{
	MessageRemoved: 0, MessageAdded: 1, MessageMoved: 1,
	ItemTypeRemoved: 2, ItemTypeAdded: 3, EnumRemoved: 4, EnumAdded: 5,
	Removed: 6, Added: 7, TypeChanged: 8, ValueChanged: 9,
}

// groups returns the groups ordered by direction (c2s first), method and kind, their
// changes by kind, pointer and value, so reports are stable.
func (g *aggregator) groups() []Group {
	out := make([]Group, 0, len(g.byGroup))
	for _, grp := range g.byGroup {
		sort.SliceStable(grp.Changes, func(i, j int) bool {
			a, b := grp.Changes[i], grp.Changes[j]
			if changeOrder[a.Change] != changeOrder[b.Change] {
				return changeOrder[a.Change] < changeOrder[b.Change]
			}
			if a.Pointer != b.Pointer {
				return a.Pointer < b.Pointer
			}
			return a.Old+a.New < b.Old+b.New
		})
		out = append(out, *grp)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Dir != b.Dir {
			return a.Dir < b.Dir // "c2s" < "s2c"
		}
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		return strings.Compare(a.Kind, b.Kind) < 0
	})
	return out
}

// moves pairs messages the alignment left unmatched on both sides that are equal
// after normalisation: the same message, sent at another point in the session (an
// asynchronous notification racing the others).
type moves struct{ from, to map[int]int } // old index -> new index, and back

func findMoves(steps []pair, a, b []Message) moves {
	mv := moves{from: map[int]int{}, to: map[int]int{}}
	byKey := map[string][]int{} // unmatched new messages by key, in order
	for _, p := range steps {
		if p.old < 0 {
			k := b[p.new].Key
			byKey[k] = append(byKey[k], p.new)
		}
	}
	if len(byKey) == 0 {
		return mv
	}
	for _, p := range steps {
		if p.new >= 0 {
			continue
		}
		cands := byKey[a[p.old].Key]
		for ci, j := range cands {
			if normalize.Equal(a[p.old].Value, b[j].Value) {
				mv.from[p.old], mv.to[j] = j, p.old
				byKey[a[p.old].Key] = append(cands[:ci:ci], cands[ci+1:]...)
				break
			}
		}
	}
	return mv
}

// compareEnums reports enum-like values seen on one side only, for pointers both
// sides have.
func compareEnums(agg *aggregator, dir string, a, b []Message) {
	var path []byte
	ea, eb := newEnumSet(), newEnumSet()
	for i := range a {
		ea.add(&path, &a[i])
	}
	for i := range b {
		eb.add(&path, &b[i])
	}
	reportEnums(agg, dir, ea, eb)
}

// enumLoc is where enum-like values are seen: a message key and a pointer.
type enumLoc struct{ key, ptr string }

// enumSeen is one enum-like value at one place: how often, and its first message.
type enumSeen struct {
	count int
	seq   int64
	msg   *Message // without its Value
}

// enumSet collects one side's enum-like values.
type enumSet struct {
	vals map[enumLoc]map[string]*enumSeen
	ptrs map[enumLoc]bool
}

func newEnumSet() *enumSet {
	return &enumSet{vals: map[enumLoc]map[string]*enumSeen{}, ptrs: map[enumLoc]bool{}}
}

// add collects m's enum-like values (path is a scratch buffer). It keeps a copy
// of m without its value, and copies of the strings it keeps.
func (e *enumSet) add(path *[]byte, m *Message) {
	var head *Message
	collectEnums(path, m.Value, func(ptr, v string) {
		l := enumLoc{m.Key, ptr}
		e.ptrs[l] = true
		set := e.vals[l]
		if set == nil {
			set = map[string]*enumSeen{}
			e.vals[l] = set
		}
		if s := set[v]; s != nil {
			s.count++
			return
		}
		if head == nil {
			head = &Message{Seq: m.Seq, Kind: m.Kind, Method: m.Method, Key: m.Key}
		}
		set[string([]byte(v))] = &enumSeen{1, m.Seq, head}
	})
}

// reportEnums reports the values of va and vb seen on one side only, for pointers
// both sides have.
func reportEnums(agg *aggregator, dir string, ea, eb *enumSet) {
	va, pa, vb, pb := ea.vals, ea.ptrs, eb.vals, eb.ptrs
	for l, set := range vb {
		if !pa[l] {
			continue
		}
		for v, s := range set {
			if _, ok := va[l][v]; !ok {
				kind := EnumAdded
				if isItemType(l.ptr) {
					kind = ItemTypeAdded
				}
				agg.add(dir, s.msg, Change{Change: kind, Pointer: l.ptr, New: render(v, valueMax), NewSeq: s.seq, Count: s.count})
			}
		}
	}
	for l, set := range va {
		if !pb[l] {
			continue
		}
		for v, s := range set {
			if _, ok := vb[l][v]; !ok {
				kind := EnumRemoved
				if isItemType(l.ptr) {
					kind = ItemTypeRemoved
				}
				agg.add(dir, s.msg, Change{Change: kind, Pointer: l.ptr, Old: render(v, valueMax), OldSeq: s.seq, Count: s.count})
			}
		}
	}
}
