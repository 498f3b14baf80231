package proxy

// PoisonReleased makes released read buffers all zeros, so that a frame forwarded or
// tapped after its buffer was handed back shows.
func PoisonReleased(on bool) { poisonReleased = on }
