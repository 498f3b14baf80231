package extend

import (
	"io"
	"sync"

	"github.com/codexrec/codexrec/wire"
)

// lineQueue keeps the client's lines as they are read, each with how many lines
// the replay had sent the client by then.
type lineQueue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	lines [][]byte
	seen  []int
	done  bool
}

func newLineQueue() *lineQueue {
	q := &lineQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *lineQueue) read(in io.Reader, replayed *frameLog) {
	rd := wire.NewReader(in)
	for {
		line, err := rd.ReadLine()
		if len(line) > 0 {
			n := replayed.len()
			q.mu.Lock()
			q.lines = append(q.lines, line)
			q.seen = append(q.seen, n)
			q.cond.Broadcast()
			q.mu.Unlock()
		}
		if err != nil {
			q.mu.Lock()
			q.done = true
			q.cond.Broadcast()
			q.mu.Unlock()
			return
		}
	}
}

// get waits for line i (0-based) and returns it with how many replayed lines the
// client had been sent when it came; ok is false once the client's input ended
// before it.
func (q *lineQueue) get(i int) (line []byte, seen int, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.lines) <= i && !q.done {
		q.cond.Wait()
	}
	if len(q.lines) <= i {
		return nil, 0, false
	}
	return q.lines[i], q.seen[i], true
}

// forget drops line i once it was forwarded.
func (q *lineQueue) forget(i int) {
	q.mu.Lock()
	q.lines[i] = nil
	q.mu.Unlock()
}
