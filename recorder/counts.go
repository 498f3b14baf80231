package recorder

import "maps"

// Counts are the frames written per direction ("c2s", "s2c", "stderr") and the
// findings written so far: what the trailer says once the recording is closed.
func (w *Writer) Counts() (frames map[string]int64, findings int64) {
	return maps.Clone(w.frames), w.findings
}
