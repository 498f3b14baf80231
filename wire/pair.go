package wire

// Pairer remembers the requests still waiting for an answer, one table per direction,
// because server-initiated request ids start at 0 and overlap the client's.
// The zero value is ready to use; it is not safe for concurrent use.
type Pairer struct {
	pending map[Direction]map[ID]string
}

// Observe records a request sent in dir, or, for a response or error travelling in
// dir, looks up the request it answers and sets m.Method to that request's method.
// A response whose id was never requested (or was already answered) gets m.Unpaired.
func (p *Pairer) Observe(dir Direction, m *Message) {
	switch m.Kind {
	case KindRequest:
		if p.pending == nil {
			p.pending = make(map[Direction]map[ID]string, 2)
		}
		t := p.pending[dir]
		if t == nil {
			t = make(map[ID]string)
			p.pending[dir] = t
		}
		t[m.ID] = m.Method
	case KindResponse, KindError:
		t := p.pending[dir.Opposite()]
		method, ok := t[m.ID]
		if ok {
			delete(t, m.ID)
			m.Method = method
		}
		m.Unpaired = !ok
	}
}

// Pending returns how many requests sent in dir are unanswered.
func (p *Pairer) Pending(dir Direction) int { return len(p.pending[dir]) }

// PendingIDs returns the unanswered requests sent in dir, id to method.
func (p *Pairer) PendingIDs(dir Direction) map[ID]string { return p.pending[dir] }
