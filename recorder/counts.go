package recorder

import "github.com/codexrec/codexrec/wire"

// Counts are the frames written per direction ("c2s", "s2c", "stderr") and the
// findings written so far: what the trailer says once the recording is closed
// (after a write error, the entries that reached the file whole).
func (w *Writer) Counts() (frames map[string]int64, findings int64) {
	c := w.lb.done
	for _, m := range w.lb.marks {
		if m.dir != 0 {
			c.frames[m.dir]++
		} else if m.finding {
			c.findings++
		}
	}
	return map[string]int64{"c2s": c.frames[wire.ClientToServer], "s2c": c.frames[wire.ServerToClient],
		"stderr": c.frames[wire.Stderr]}, c.findings
}
