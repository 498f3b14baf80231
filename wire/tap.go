package wire

// Tap sees the frames crossing a proxy, for stdio (proxy.Proxy) and sockets
// (wsproxy.Relay) alike. Its methods are called from one goroutine, in the order the
// frames were read. An error from either stops further calls; forwarding goes on.
type Tap interface {
	// Frame sees one frame, with Seq, Time and pairing filled in.
	Frame(*Frame) error
	// Idle is called whenever the tap has caught up with every frame read so far (and
	// when the session ends): the moment to flush buffered output.
	Idle() error
}

// TapFuncs is a Tap made of two functions, either of which may be nil (then that
// call does nothing).
type TapFuncs struct {
	OnFrame func(*Frame) error
	OnIdle  func() error
}

// Frame calls t.OnFrame.
func (t TapFuncs) Frame(f *Frame) error {
	if t.OnFrame == nil {
		return nil
	}
	return t.OnFrame(f)
}

// Idle calls t.OnIdle.
func (t TapFuncs) Idle() error {
	if t.OnIdle == nil {
		return nil
	}
	return t.OnIdle()
}
