// Package ptytest runs a command on a pseudo-terminal for tests, on Linux: it opens
// /dev/ptmx with a few ioctls (no cgo, no dependency), fixes the window size, and
// answers the terminal queries an interactive program waits on (cursor position,
// colours, device attributes). It is not a terminal emulator: its screen follows
// cursor addressing, erasing and scrolling, enough to find text a full-screen program
// drew.
package ptytest
