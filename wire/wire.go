// Package wire is the shared plumbing of codexrec: it splits a byte stream into
// newline-delimited frames and classifies each frame as a JSON-RPC message without
// re-encoding it. It never changes a byte: what it reads is what callers forward.
package wire

import (
	"fmt"
	"time"
)

// Direction says which stream a frame crossed.
type Direction uint8

const (
	ClientToServer Direction = iota + 1 // the client's stdin to the server
	ServerToClient                      // the server's stdout to the client
	Stderr                              // the server's stderr
)

func (d Direction) String() string {
	switch d {
	case ClientToServer:
		return "c2s"
	case ServerToClient:
		return "s2c"
	case Stderr:
		return "stderr"
	}
	return fmt.Sprintf("direction(%d)", uint8(d))
}

// ParseDirection is the inverse of Direction.String.
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "c2s":
		return ClientToServer, nil
	case "s2c":
		return ServerToClient, nil
	case "stderr":
		return Stderr, nil
	}
	return 0, fmt.Errorf("unknown direction %q (want c2s, s2c or stderr)", s)
}

// Opposite is the direction answers to d's requests travel in.
func (d Direction) Opposite() Direction {
	switch d {
	case ClientToServer:
		return ServerToClient
	case ServerToClient:
		return ClientToServer
	}
	return d
}

// Frame is one line that crossed the proxy, as the taps see it.
type Frame struct {
	Seq  int64         // 1-based, in the order frames were read across all streams
	Time time.Duration // since the session started
	Dir  Direction
	// Line holds the exact bytes read, including the trailing '\n' when there was one.
	// A tap may replace Line (sanitizing does) but must never write into it: the
	// proxy may still be forwarding those bytes.
	Line []byte
	Msg  Message
	// Undelivered is set by the proxy on a frame bound for the client that it could
	// not write there (the client stopped reading); it was still read and tapped.
	Undelivered bool
}
