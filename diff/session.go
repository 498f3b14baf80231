// Package diff tells what changed between two recordings of app-server sessions, and
// between two versions of the protocol's JSON Schemas. Recordings are normalised
// (internal/normalize), aligned per direction by message kind and method, and compared
// structurally; schema sets are canonicalised and compared type by type, each change
// classified by how it affects a client. It reports; it does not decide exit codes.
package diff

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codexrec/codexrec/internal/normalize"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Options configure a recording diff. The zero value uses the built-in normalisation.
type Options struct {
	// Ignore lists extra JSON pointer patterns (wildcards "*" and "**") whose values are
	// left out of the comparison, e.g. "/params/item/durationMs".
	Ignore []string
}

// Message is one normalised JSON-RPC message of a session.
type Message struct {
	Seq    int64 // the frame's seq in its recording
	Kind   wire.Kind
	Method string
	// Value is the normalised message (see normalize.Normalizer.Message); for a raw
	// frame (not a JSON object), the line's text.
	Value any
	// Key is what alignment matches on: the kind and the method (for a raw frame, why
	// it is raw), e.g. "notification item/started".
	Key string
}

// keys interns alignment keys so messages of one method share one string.
type keys map[[2]string]string

func (k keys) of(kind wire.Kind, method string) string {
	id := [2]string{kind.String(), method}
	if s, ok := k[id]; ok {
		return s
	}
	s := id[0] + " " + method
	k[id] = s
	return s
}

// strs interns strings.
type strs map[string]string

func (m strs) of(s string) string {
	if v, ok := m[s]; ok {
		return v
	}
	s = strings.Clone(s)
	m[s] = s
	return s
}

// Session is a recording loaded for diffing: its messages per direction, normalised
// in file order with one Normalizer so id symbols are numbered across the session.
type Session struct {
	Name   string
	Header recorder.Header
	C2S    []Message
	S2C    []Message
	// Stderr counts stderr lines; they are logs with timestamps and are not compared.
	Stderr int
	// Problems are the recording's structural problems (a torn last line, ...).
	Problems []recorder.Problem
}

// Messages returns the messages of direction d.
func (s *Session) Messages(d wire.Direction) []Message {
	if d == wire.ClientToServer {
		return s.C2S
	}
	return s.S2C
}

// Load reads and normalises the recording in r; name is used in errors and the report.
func Load(r io.Reader, name string, opts Options) (*Session, error) {
	n, err := normalize.New(normalize.Options{Ignore: opts.Ignore})
	if err != nil {
		return nil, err
	}
	rd, err := recorder.NewReader(r, name)
	if err != nil {
		return nil, err
	}
	s := &Session{Name: name}
	interned := keys{}
	methods := strs{}
	for e, err := range rd.Entries() {
		if err != nil {
			return nil, err
		}
		if e.Type != recorder.TypeFrame {
			continue
		}
		if e.Dir == wire.Stderr {
			s.Stderr++
			continue
		}
		// The method is interned: as read, it lies in the entry's line, which it
		// would keep alive for the whole diff.
		m := Message{Seq: e.Seq, Kind: e.Msg.Kind, Method: methods.of(e.Msg.Method)}
		if js := e.JSON(); js != nil {
			v, err := n.MessageInPlace(js) // the entry's line is ours and never modified
			if err != nil {
				return nil, fmt.Errorf("recording %s: frame %d: %w", name, e.Seq, err)
			}
			m.Value = v
		} else {
			m.Method = e.Msg.Reason
			m.Value = string(wire.Content(e.Line))
		}
		m.Key = interned.of(m.Kind, m.Method)
		if e.Dir == wire.ClientToServer {
			s.C2S = append(s.C2S, m)
		} else {
			s.S2C = append(s.S2C, m)
		}
	}
	s.Header = rd.Header()
	s.Problems = rd.Problems()
	return s, nil
}

// LoadFile is Load for the recording at path.
func LoadFile(path string, opts Options) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	defer f.Close()
	return Load(f, path, opts)
}

// LoadFiles loads two recordings concurrently (each has its own normaliser, so
// nothing is shared), as a diff of OLD and NEW needs.
func LoadFiles(oldPath, newPath string, opts Options) (old, new *Session, err error) {
	var newErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		new, newErr = LoadFile(newPath, opts)
	}()
	old, err = LoadFile(oldPath, opts)
	<-done
	if err != nil {
		return nil, nil, err
	}
	if newErr != nil {
		return nil, nil, newErr
	}
	return old, new, nil
}
