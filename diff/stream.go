package diff

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime"

	"github.com/codexrec/codexrec/internal/normalize"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// digest identifies a normalised value: equal digests, equal values (SHA-256 of
// an encoding that tells every type apart; a recording cannot forge a collision).
type digest [16]byte

// keyInfo is one alignment key of a recording: its kind and method.
type keyInfo struct {
	kind   wire.Kind
	method string
	key    string
}

// dirScan is what the first pass keeps of one direction's messages: per message
// its key, seq and digest (28 bytes), and the enum-like values seen.
type dirScan struct {
	keys  []int32 // into fileScan.table
	seqs  []int64
	sums  []digest
	enums *enumSet
}

// fileScan is the first pass over one recording.
type fileScan struct {
	name     string
	header   recorder.Header
	stderr   int
	problems []recorder.Problem
	table    []keyInfo
	dirs     [2]dirScan // c2s, s2c
}

func dirIndex(d wire.Direction) int {
	if d == wire.ClientToServer {
		return 0
	}
	return 1
}

// CompareFiles compares the recordings at oldPath and newPath, giving the report
// Compare gives for LoadFiles' sessions, without holding their messages: a first pass
// keeps per message its alignment key, seq and a digest of its normalised value
// (about 30 bytes), and for each direction where aligned messages differ or a
// message has no partner, a second pass reads both files again in step and compares
// those messages one pair at a time. Peak memory is about the largest message of
// each file, not the recordings. It also returns each recording's structural
// problems. A file that changes between the passes is an error.
func CompareFiles(oldPath, newPath string, opts Options) (r *Report, oldProblems, newProblems []recorder.Problem, err error) {
	files := [2]*os.File{}
	for i, p := range []string{oldPath, newPath} {
		src, done, err := recorder.Seekable(p) // read twice: a pipe is copied first
		if err != nil {
			return nil, nil, nil, err
		}
		defer done()
		f, err := os.Open(src)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("recording: %w", err)
		}
		defer f.Close()
		files[i] = f
	}
	// One after the other: a recording of one 100 MB line is read a line at a time.
	old, err := scanFile(files[0], oldPath, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	// Each pass's lines are garbage once it ends: collected before the next reads,
	// a recording of one huge line costs that line once, not once per pass (as
	// view does).
	runtime.GC()
	nw, err := scanFile(files[1], newPath, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	r = &Report{
		Old:            SessionInfo{Name: old.name, CodexVersion: old.header.CodexVersion, Scenario: old.header.Scenario, Stderr: old.stderr},
		New:            SessionInfo{Name: nw.name, CodexVersion: nw.header.CodexVersion, Scenario: nw.header.Scenario, Stderr: nw.stderr},
		MethodsAdded:   []MethodRef{},
		MethodsRemoved: []MethodRef{},
		Groups:         []Group{},
	}
	agg := newAggregator()
	for _, d := range directions {
		if err := compareScanned(r, agg, d, files, old, nw, opts); err != nil {
			return nil, nil, nil, err
		}
	}
	r.Groups = agg.groups()
	r.Same = len(r.Groups) == 0
	return r, old.problems, nw.problems, nil
}

// messageReader reads a recording's messages in file order, normalised as Load does.
type messageReader struct {
	name string
	rd   *recorder.Reader
	n    *normalize.Normalizer
}

func newMessageReader(f *os.File, name string, opts Options) (*messageReader, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("recording %s: %w", name, err)
	}
	n, err := normalize.New(normalize.Options{Ignore: opts.Ignore})
	if err != nil {
		return nil, err
	}
	rd, err := recorder.NewReader(f, name)
	if err != nil {
		return nil, err
	}
	return &messageReader{name: name, rd: rd, n: n}, nil
}

// next returns the next message and its direction, io.EOF at the end. stderr
// counts the stderr frames passed.
func (m *messageReader) next(stderr *int) (Message, wire.Direction, error) {
	for {
		e, err := m.rd.Next()
		if err != nil {
			return Message{}, 0, err
		}
		if e.Type != recorder.TypeFrame {
			continue
		}
		if e.Dir == wire.Stderr {
			*stderr++
			continue
		}
		msg := Message{Seq: e.Seq, Kind: e.Msg.Kind, Method: e.Msg.Method}
		if js := e.JSON(); js != nil {
			v, err := m.n.MessageInPlace(js) // the entry's line is ours and never modified
			if err != nil {
				return Message{}, 0, fmt.Errorf("recording %s: frame %d: %w", m.name, e.Seq, err)
			}
			msg.Value = v
		} else {
			msg.Method = e.Msg.Reason
			msg.Value = string(wire.Content(e.Line))
		}
		return msg, e.Dir, nil
	}
}

// scanFile is the first pass over one recording.
func scanFile(f *os.File, name string, opts Options) (*fileScan, error) {
	mr, err := newMessageReader(f, name, opts)
	if err != nil {
		return nil, err
	}
	s := &fileScan{name: name, dirs: [2]dirScan{{enums: newEnumSet()}, {enums: newEnumSet()}}}
	index := map[[2]string]int32{}
	h := newHasher()
	var path []byte
	for {
		m, d, err := mr.next(&s.stderr)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		id := [2]string{m.Kind.String(), m.Method}
		k, ok := index[id]
		if !ok {
			// Cloned: as read, the method lies in the entry's line, which it would
			// keep alive.
			method := string([]byte(m.Method))
			k = int32(len(s.table))
			s.table = append(s.table, keyInfo{kind: m.Kind, method: method, key: id[0] + " " + method})
			index[[2]string{id[0], method}] = k
		}
		ds := &s.dirs[dirIndex(d)]
		ds.keys = append(ds.keys, k)
		ds.seqs = append(ds.seqs, m.Seq)
		ds.sums = append(ds.sums, h.sum(m.Value))
		ki := &s.table[k]
		ds.enums.add(&path, &Message{Seq: m.Seq, Kind: ki.kind, Method: ki.method, Key: ki.key, Value: m.Value})
	}
	s.header = mr.rd.Header()
	s.problems = mr.rd.Problems()
	return s, nil
}

// compareScanned is compareDirection for two scanned recordings: the same steps,
// from the keys and digests, reading the messages again only where a step needs them.
func compareScanned(r *Report, agg *aggregator, d wire.Direction, files [2]*os.File, old, nw *fileScan, opts Options) error {
	dir := d.String()
	a, b := &old.dirs[dirIndex(d)], &nw.dirs[dirIndex(d)]
	// One id space for both recordings' keys.
	ids := map[string]int32{}
	global := func(s *fileScan, keys []int32) []int32 {
		out := make([]int32, len(keys))
		local := make([]int32, len(s.table))
		for i := range local {
			local[i] = -1
		}
		for i, k := range keys {
			if local[k] < 0 {
				g, ok := ids[s.table[k].key]
				if !ok {
					g = int32(len(ids))
					ids[s.table[k].key] = g
				}
				local[k] = g
			}
			out[i] = local[k]
		}
		return out
	}
	ga, gb := global(old, a.keys), global(nw, b.keys)
	pairs := uncross(align(ga, gb), ga, gb, func(i, j int) bool { return a.sums[i] == b.sums[j] })
	moved := findMovesScanned(pairs, ga, gb, a, b)
	ga, gb = nil, nil
	ref := func(s *fileScan, ds *dirScan, i int) *Message {
		ki := &s.table[ds.keys[i]]
		return &Message{Seq: ds.seqs[i], Kind: ki.kind, Method: ki.method, Key: ki.key}
	}
	// Does any step need a message's value?
	need := false
	for _, p := range pairs {
		switch {
		case p.old < 0:
			_, mv := moved.to[p.new]
			need = need || !mv
		case p.new < 0:
			_, mv := moved.from[p.old]
			need = need || !mv
		default:
			need = need || a.sums[p.old] != b.sums[p.new]
		}
		if need {
			break
		}
	}
	sum := DirSummary{Dir: dir, Old: len(a.keys), New: len(b.keys)}
	visit := stepVisitor(agg, dir, &sum)
	var walk *stepWalk
	if need {
		runtime.GC() // see CompareFiles
		ra, err := newMessageReader(files[0], old.name, opts)
		if err != nil {
			return err
		}
		rb, err := newMessageReader(files[1], nw.name, opts)
		if err != nil {
			return err
		}
		walk = &stepWalk{dir: d, sides: [2]walkSide{{mr: ra, fs: old, ds: a}, {mr: rb, fs: nw, ds: b}}}
	}
	var ch changer
	for _, p := range pairs {
		s := Step{}
		switch {
		case p.old < 0:
			if i, ok := moved.to[p.new]; ok {
				s.New, s.Moved = ref(nw, b, p.new), ref(old, a, i)
				break
			}
			m, err := walk.sides[1].at(walk.dir, p.new)
			if err != nil {
				return err
			}
			s.New = m
		case p.new < 0:
			if j, ok := moved.from[p.old]; ok {
				s.Old, s.Moved = ref(old, a, p.old), ref(nw, b, j)
				break
			}
			m, err := walk.sides[0].at(walk.dir, p.old)
			if err != nil {
				return err
			}
			s.Old = m
		default:
			if a.sums[p.old] == b.sums[p.new] {
				s.Old, s.New = ref(old, a, p.old), ref(nw, b, p.new)
				break
			}
			ma, err := walk.sides[0].at(walk.dir, p.old)
			if err != nil {
				return err
			}
			mb, err := walk.sides[1].at(walk.dir, p.new)
			if err != nil {
				return err
			}
			s.Old, s.New = ma, mb
			s.Changes = ch.changes(s.Old, s.New)
		}
		visit(&s)
	}
	r.Directions = append(r.Directions, sum)
	methodsOnlyInScanned(&r.MethodsRemoved, dir, old, a, nw, b)
	methodsOnlyInScanned(&r.MethodsAdded, dir, nw, b, old, a)
	reportEnums(agg, dir, a.enums, b.enums)
	return nil
}

// stepWalk reads both recordings again for one direction's steps.
type stepWalk struct {
	dir   wire.Direction
	sides [2]walkSide
}

// walkSide is one recording's reader in the second pass: next is the index of the
// next message of the direction.
type walkSide struct {
	mr     *messageReader
	fs     *fileScan
	ds     *dirScan
	next   int
	stderr int
}

// at returns message i of direction d, reading on to it (steps ask in order).
func (w *walkSide) at(d wire.Direction, i int) (*Message, error) {
	for {
		m, md, err := w.mr.next(&w.stderr)
		if err == io.EOF {
			return nil, fmt.Errorf("recording %s: %w", w.mr.name, errChanged)
		}
		if err != nil {
			return nil, err
		}
		if md != d {
			continue
		}
		j := w.next
		w.next++
		if j >= len(w.ds.seqs) || m.Seq != w.ds.seqs[j] {
			return nil, fmt.Errorf("recording %s: frame %d: %w", w.mr.name, m.Seq, errChanged)
		}
		if j == i {
			// The method, interned: as read, it lies in the entry's line.
			ki := &w.fs.table[w.ds.keys[j]]
			if m.Kind != ki.kind || m.Method != ki.method {
				return nil, fmt.Errorf("recording %s: frame %d: %w", w.mr.name, m.Seq, errChanged)
			}
			m.Method, m.Key = ki.method, ki.key
			return &m, nil
		}
	}
}

var errChanged = errors.New("the file changed while it was read")

// findMovesScanned is findMoves on keys (ga, gb: a's and b's in one id space) and
// digests: the first unmatched new message of the same key and an equal value.
func findMovesScanned(steps []pair, ga, gb []int32, a, b *dirScan) moves {
	mv := moves{from: map[int]int{}, to: map[int]int{}}
	type k struct {
		key int32
		sum digest
	}
	byKey := map[k][]int{} // unmatched new messages by key and digest, in order
	for _, p := range steps {
		if p.old < 0 {
			c := k{gb[p.new], b.sums[p.new]}
			byKey[c] = append(byKey[c], p.new)
		}
	}
	if len(byKey) == 0 {
		return mv
	}
	for _, p := range steps {
		if p.new >= 0 {
			continue
		}
		c := k{ga[p.old], a.sums[p.old]}
		if cands := byKey[c]; len(cands) > 0 {
			j := cands[0]
			mv.from[p.old], mv.to[j] = j, p.old
			byKey[c] = cands[1:]
		}
	}
	return mv
}

// methodsOnlyInScanned is methodsOnlyIn on scanned keys.
func methodsOnlyInScanned(out *[]MethodRef, dir string, hs *fileScan, have *dirScan, ots *fileScan, other *dirScan) {
	seen := map[string]bool{}
	for _, k := range uniqueKeys(other.keys, len(ots.table)) {
		seen[ots.table[k].key] = true
	}
	idx := map[int32]int{}
	for _, k := range have.keys {
		ki := &hs.table[k]
		if seen[ki.key] {
			continue
		}
		if j, ok := idx[k]; ok {
			(*out)[j].Count++
			continue
		}
		idx[k] = len(*out)
		*out = append(*out, MethodRef{Dir: dir, Kind: ki.kind.String(), Method: ki.method, Count: 1})
	}
}

// uniqueKeys lists the distinct keys of keys.
func uniqueKeys(keys []int32, n int) []int32 {
	seen := make([]bool, n)
	var out []int32
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// hasher digests normalised values.
type hasher struct {
	h       hash.Hash
	buf     []byte
	unknown uint64
}

func newHasher() *hasher { return &hasher{h: sha256.New()} }

func (h *hasher) sum(v any) digest {
	h.h.Reset()
	h.buf = h.value(h.buf[:0], v)
	h.h.Write(h.buf)
	var d digest
	var full [sha256.Size]byte
	copy(d[:], h.h.Sum(full[:0]))
	return d
}

// flushAt is how much encoding the hasher buffers before writing it to the hash.
const flushAt = 32 << 10

// value appends v's encoding: a tag per type and lengths before contents, so
// different values never encode the same.
func (h *hasher) value(b []byte, v any) []byte {
	if len(b) >= flushAt {
		h.h.Write(b)
		b = b[:0]
	}
	str := func(b []byte, tag byte, s string) []byte {
		b = append(b, tag)
		b = binary.AppendUvarint(b, uint64(len(s)))
		for len(s) > flushAt {
			b = append(b, s[:flushAt]...)
			h.h.Write(b)
			b, s = b[:0], s[flushAt:]
		}
		return append(b, s...)
	}
	switch v := v.(type) {
	case nil:
		return append(b, 'z')
	case bool:
		if v {
			return append(b, 't')
		}
		return append(b, 'f')
	case json.Number:
		return str(b, 'n', string(v))
	case string:
		return str(b, 's', v)
	case normalize.Masked:
		b = str(b, 'm', v.Category)
		return str(b, 'M', v.Type)
	case normalize.Deep:
		return str(b, 'd', string(v))
	case normalize.JSONText:
		return h.value(append(b, 'j'), v.Value)
	case normalize.Object:
		b = append(b, 'o')
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, m := range v {
			b = str(b, 'k', m.Key)
			b = h.value(b, m.Value)
		}
		return b
	case []any:
		b = append(b, 'a')
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, e := range v {
			b = h.value(b, e)
		}
		return b
	}
	// Not a normalised value: Equal takes it for different from everything, itself
	// included.
	h.unknown++
	b = append(b, 'u')
	return binary.AppendUvarint(b, h.unknown)
}
