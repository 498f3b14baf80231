package replay

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Frame is one recorded line: what the client is expected to send, or what the
// server sends back.
type Frame struct {
	Seq  int64          // the frame's seq in the recording
	Time time.Duration  // when it was recorded, since the session started
	Dir  wire.Direction // c2s for expected client frames; s2c or stderr for server frames
	Msg  wire.Message   // classification recorded with it (Method is paired for responses)
	Line []byte         // the exact recorded bytes, with '\n' when the line had one
}

// ClientFrame is a client frame the script expects.
type ClientFrame struct {
	Frame
	// Answers is, for a response or error, the index in Script.Server of the server
	// request it answers; -1 otherwise.
	Answers int
}

// ServerFrame is a frame the server sends (stdout) or wrote to stderr.
type ServerFrame struct {
	Frame
	// After is how many client frames must have been received before this frame is
	// sent: the client frames recorded before it, or for a response, its request and
	// the client frames before that request (so a client that waits for each answer
	// is never kept waiting by frames a pipelining client sent early).
	After int
	// Answers is, for a response or error, the index in Script.Client of the request
	// it answers; -1 otherwise.
	Answers int

	idStart, idEnd int  // where the id's value sits in Line, for responses
	paths          bool // Line holds a path placeholder (paths.go)
}

// Script is one server process lifetime of a recording, indexed for serving.
// Build it with Load or LoadFile; a Script is read-only once built and may be
// served by several Servers at once.
type Script struct {
	Name     string          // the recording's name, for messages
	Header   recorder.Header // with meta entries merged in
	Segment  int             // the segment this script serves, 1-based
	Segments int             // how many segments the recording holds
	Client   []ClientFrame   // expected client frames in recorded order
	Server   []ServerFrame   // server frames (s2c and stderr) in recorded order
	// Problems are the recording's structural problems (recorder.Reader.Problems): a
	// last line cut short, seq out of order.
	Problems []recorder.Problem

	clientOnce sync.Once
	clientKeys []clientKey // built by the first Serve (clientThreads)
	keysOnce   sync.Once
	keys       *threadIndex // built by the first unordered Serve (threads)
}

// LoadFile reads the recording at path and builds the script of one segment
// (1-based; 0 means the first). A segment extended by a later one (a segment entry
// whose Extends names it) is served as that one: Script.Segment says which. The file
// is read whole into one buffer, and every frame's Line is a slice of it: the script
// costs the file once plus its frame index, not one allocation per line besides (nor
// the garbage of reading them, which at a million frames doubled the peak).
func LoadFile(path string, segment int) (*Script, error) {
	data, err := recorder.ReadBytes(path)
	if err != nil {
		return nil, err
	}
	if segment < 0 {
		return nil, fmt.Errorf("replay %s: segment %d: %w", path, segment, ErrNoSegment)
	}
	rd, err := recorder.NewBytesReader(data, path)
	if err != nil {
		return nil, err
	}
	// The frames are sized from the file's lines: grown frame by frame, a million
	// frames leave copies of the slice behind, and the peak depends on when the
	// collector ran.
	client, server := countFrames(data)
	return build(rd, path, segment, client, server, true)
}

// countFrames estimates, for sizing, how many of data's lines hold client frames
// and how many others (at least the server frames): a line is taken for a client
// frame when its first "dir" is c2s, as the recorder writes it.
func countFrames(data []byte) (client, other int) {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if i := bytes.Index(line, []byte(`"dir":"`)); i >= 0 && bytes.HasPrefix(line[i+7:], []byte(`c2s"`)) {
			client++
		} else {
			other++
		}
	}
	return client, other
}

// Load reads a recording from r through the recorder's reader and builds the script
// of one segment (1-based; 0 means the first). name is used in messages.
func Load(r io.Reader, name string, segment int) (*Script, error) {
	if segment < 0 {
		return nil, fmt.Errorf("replay %s: segment %d: %w", name, segment, ErrNoSegment)
	}
	rd, err := recorder.NewReader(r, name)
	if err != nil {
		return nil, err
	}
	return build(rd, name, segment, 0, 0, false)
}

// build indexes the frames of segment read from rd. inMem says rd's lines are
// slices of one buffer the script keeps (NewBytesReader): the strings of a
// classification may then stay where they lie.
func build(rd *recorder.Reader, name string, segment, clientHint, serverHint int, inMem bool) (*Script, error) {
	if segment == 0 {
		segment = 1
	}
	sc := &Script{Name: name, Segment: segment, Client: make([]ClientFrame, 0, clientHint), Server: make([]ServerFrame, 0, serverHint)}
	b := builder{sc: sc,
		pendingC: map[wire.ID][]int{}, pendingS: map[wire.ID][]int{}, inMem: inMem}
	cur, started := 1, false
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		switch e.Type {
		case recorder.TypeSegment:
			switch {
			case e.Segment > 0:
				cur = e.Segment
			case started:
				cur++
			}
			started = true
			if e.Extends > 0 && e.Extends == segment && cur > segment {
				// A lifetime that continues the one served in the client's place
				// (mode extend) is served instead of it: the client saw one session.
				segment = cur
				b = builder{sc: &Script{Name: name, Segment: segment, Client: make([]ClientFrame, 0, clientHint),
					Server: make([]ServerFrame, 0, serverHint)},
					pendingC: map[wire.ID][]int{}, pendingS: map[wire.ID][]int{}, inMem: inMem}
			}
		case recorder.TypeFrame:
			started = true
			if cur == segment {
				if err := b.add(e); err != nil {
					return nil, fmt.Errorf("replay %s: frame %d: %w", name, e.Seq, err)
				}
			}
		}
		b.sc.Segments = max(b.sc.Segments, cur)
	}
	b.sc.Header = rd.Header()
	b.sc.Problems = append(rd.Problems(), b.problems...)
	if segment > b.sc.Segments {
		return nil, fmt.Errorf("replay %s: segment %d (the recording has %d): %w", name, segment, b.sc.Segments, ErrNoSegment)
	}
	return b.sc, nil
}

// builder indexes frames as they are read.
type builder struct {
	sc *Script
	// Recorded request ids waiting for their answer -> indexes in Client (client
	// requests) or Server (server requests), oldest first: an id used again before
	// its answer is answered in recorded order.
	pendingC map[wire.ID][]int
	pendingS map[wire.ID][]int
	problems []recorder.Problem
	strs     map[string]string // interned methods and reasons
	inMem    bool              // lines are slices of the buffer the script keeps
}

// intern returns the one copy of s the script keeps.
func (b *builder) intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := b.strs[s]; ok {
		return v
	}
	if len(b.strs) >= maxInterned {
		return strings.Clone(s)
	}
	if b.strs == nil {
		b.strs = map[string]string{}
	}
	v := strings.Clone(s)
	b.strs[v] = v
	return v
}

// maxInterned bounds the strings a builder interns (a recording can use a new
// method at every frame); past it they are copied.
const maxInterned = 1 << 14

// maxDupProblems bounds the duplicate-id problems one script keeps.
const maxDupProblems = 20

func (b *builder) problem(k recorder.ProblemKind, seq int64, msg string) {
	if len(b.problems) < maxDupProblems {
		b.problems = append(b.problems, recorder.Problem{Kind: k, Seq: seq, Message: msg})
	}
}

// wait records request index i under id, noting an id already waiting.
func (b *builder) wait(pending map[wire.ID][]int, id wire.ID, i int, f Frame, prev func(int) int64) {
	if q := pending[id]; len(q) > 0 {
		b.problem(recorder.ProblemDuplicateID, f.Seq, fmt.Sprintf("frame %d reuses request id %.40s of frame %d, still unanswered: answers are served in recorded order",
			f.Seq, string(id), prev(q[len(q)-1])))
	}
	pending[id] = append(pending[id], i)
}

// answer takes the oldest request waiting under id.
func answer(pending map[wire.ID][]int, id wire.ID) (int, bool) {
	q := pending[id]
	if len(q) == 0 {
		return 0, false
	}
	if len(q) == 1 {
		delete(pending, id)
	} else {
		pending[id] = q[1:]
	}
	return q[0], true
}

func (b *builder) add(e recorder.Entry) error {
	// The strings of the classification lie in the entry's line as read, which
	// they would keep alive beside the message's own copy: a method and a reason
	// are interned, an id copied.
	e.Msg.Method, e.Msg.Reason = b.intern(e.Msg.Method), b.intern(e.Msg.Reason)
	if !b.inMem {
		e.Msg.ID = wire.ID(strings.Clone(string(e.Msg.ID)))
	}
	f := Frame{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Msg: e.Msg, Line: e.Line}
	sc := b.sc
	switch e.Dir {
	case wire.ClientToServer:
		cf := ClientFrame{Frame: f, Answers: -1}
		switch f.Msg.Kind {
		case wire.KindRequest:
			b.wait(b.pendingC, f.Msg.ID, len(sc.Client), f, func(i int) int64 { return sc.Client[i].Seq })
		case wire.KindResponse, wire.KindError:
			if j, ok := answer(b.pendingS, f.Msg.ID); ok {
				cf.Answers = j
			}
		}
		sc.Client = append(sc.Client, cf)
	case wire.ServerToClient, wire.Stderr:
		sf := ServerFrame{Frame: f, After: len(sc.Client), Answers: -1, paths: hasPathPlaceholder(f.Line)}
		if e.Dir == wire.ServerToClient {
			switch f.Msg.Kind {
			case wire.KindRequest:
				b.wait(b.pendingS, f.Msg.ID, len(sc.Server), f, func(i int) int64 { return sc.Server[i].Seq })
			case wire.KindResponse, wire.KindError:
				if start, end, ok := idSpan(f.Line); !ok {
					// Served as recorded, answering nothing: the one frame replay
					// cannot match, not a reason to refuse the recording.
					b.problem(recorder.ProblemUnreadable, f.Seq, fmt.Sprintf("frame %d: a response without a top-level id: served unmatched", f.Seq))
				} else if j, ok := answer(b.pendingC, f.Msg.ID); ok {
					sf.Answers, sf.After = j, j+1
					sf.idStart, sf.idEnd = start, end
				}
			}
		}
		sc.Server = append(sc.Server, sf)
	}
	return nil
}

// idSpan finds the byte range of the top-level "id" value in line.
func idSpan(line []byte) (start, end int, ok bool) {
	content := wire.Content(line)
	// As in threadKeyIn: ParseBytes would copy the line.
	gjson.Parse(unsafe.String(unsafe.SliceData(content), len(content))).ForEach(func(k, v gjson.Result) bool {
		if k.Str == "id" {
			start, end, ok = v.Index, v.Index+len(v.Raw), v.Index > 0
			return false
		}
		return true
	})
	return start, end, ok
}

// threadIndex is what unordered serving knows of a script: the thread each frame
// belongs to. It lives beside the frames, not in them, so that a Script stays
// read-only (and safe to read) while servers use it.
type threadIndex struct {
	client []clientKey // by index in Script.Client
	server []serverKey // by index in Script.Server
}

type clientKey struct {
	key    string // thread the frame belongs to ("" when none)
	pos    int    // position among the client frames of the same key
	global int    // client frames of no key recorded before it
}

type serverKey struct {
	key         string
	afterKey    int // client frames of the same key that must have been received
	afterGlobal int // client frames of no key that must have been received
}

// threads assigns every frame the thread it belongs to, for unordered matching:
// frames of one thread keep their recorded order, frames of different threads may
// interleave differently. Responses inherit the key of their request when they have
// none of their own. It is built once, on first use.
func (sc *Script) threads() *threadIndex {
	client := sc.clientThreads()
	sc.keysOnce.Do(func() {
		ix := &threadIndex{client: client, server: make([]serverKey, len(sc.Server))}
		keys := keyInterner{}
		counts := map[string]int{}
		next := 0 // client frames counted into counts so far
		for i := range sc.Server {
			sf, sk := &sc.Server[i], &ix.server[i]
			if sf.Dir == wire.ServerToClient {
				sk.key = keys.intern(threadKeyIn(sf.Line))
			}
			if sf.Answers >= 0 {
				// A response needs its request (checked directly) and what came
				// before the request, in its own thread and outside any thread.
				req := &ix.client[sf.Answers]
				if sk.key == "" {
					sk.key = req.key
				}
				if req.key == sk.key {
					sk.afterKey = req.pos
				}
				sk.afterGlobal = req.global
				continue
			}
			for ; next < sf.After; next++ {
				counts[ix.client[next].key]++
			}
			sk.afterKey, sk.afterGlobal = counts[sk.key], counts[""]
		}
		sc.keys = ix
	})
	return sc.keys
}

// clientThreads is the client half of threads, which ordered serving needs alone
// (floating requests, requests passing those of other threads): the server half
// costs a key per server frame, a million of them in a long recording.
func (sc *Script) clientThreads() []clientKey {
	sc.clientOnce.Do(func() {
		client := make([]clientKey, len(sc.Client))
		// A request that names no thread but is answered with one (thread/start)
		// belongs to the thread it creates.
		answeredBy := map[int]int{}
		for i := range sc.Server {
			if sf := &sc.Server[i]; sf.Answers >= 0 {
				answeredBy[sf.Answers] = i
			}
		}
		keys := keyInterner{}
		perKey := map[string]int{}
		for i := range sc.Client {
			cf, ck := &sc.Client[i], &client[i]
			ck.key = keys.intern(threadKeyIn(cf.Line))
			if ck.key == "" && cf.Answers >= 0 {
				ck.key = keys.intern(threadKeyIn(sc.Server[cf.Answers].Line))
			}
			if r, ok := answeredBy[i]; ok && ck.key == "" {
				ck.key = keys.intern(threadKeyIn(sc.Server[r].Line))
			}
			ck.pos, ck.global = perKey[ck.key], perKey[""]
			perKey[ck.key]++
		}
		sc.clientKeys = client
	})
	return sc.clientKeys
}

// keyInterner keeps one copy of each thread key (a recording has few threads and
// many frames of each), up to maxInterned keys; past it they are copied.
type keyInterner map[string]string

func (in keyInterner) intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(in) < maxInterned {
		in[v] = v
	}
	return v
}

var keyPaths = []string{"params.threadId", "params.thread.id", "result.thread.id", "params.turn.threadId"}

// threadKey is the thread a message is about, or "".
func threadKey(line []byte) string { return strings.Clone(threadKeyIn(line)) }

// threadKeyIn is threadKey as a string that may lie in line (not to be kept
// beyond it): the index keeps one interned copy, not a copy of every line.
func threadKeyIn(line []byte) string {
	content := wire.Content(line)
	if len(content) == 0 || content[0] != '{' {
		return ""
	}
	// gjson's ...Bytes functions copy the whole line to a string first; content is
	// not modified while s is in use.
	s := unsafe.String(unsafe.SliceData(content), len(content))
	for _, p := range keyPaths {
		if r := gjson.Get(s, p); r.Type == gjson.String && r.Str != "" {
			return r.Str
		}
	}
	return ""
}
