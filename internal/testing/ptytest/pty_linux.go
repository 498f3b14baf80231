package ptytest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Term is a command running on a pseudo-terminal.
type Term struct {
	Cmd *exec.Cmd

	rows, cols int
	master     *os.File
	mu         sync.Mutex
	cond       *sync.Cond
	out        []byte // everything the program wrote
	done       bool   // the program's side closed
	exited     chan struct{}
	read0      chan struct{} // closed when the reader has seen the end
	err        error
}

func ioctl(fd, req, arg uintptr) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, req, arg); e != 0 {
		return e
	}
	return nil
}

// open returns a pseudo-terminal's master and its slave, rows x cols.
func open(rows, cols int) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening /dev/ptmx: %w", err)
	}
	var n uint32
	var unlock int32
	if err := ioctl(master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("TIOCGPTN: %w", err)
	}
	if err := ioctl(master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("TIOCSPTLCK: %w", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	ws := struct{ row, col, x, y uint16 }{uint16(rows), uint16(cols), 0, 0}
	if err := ioctl(slave.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); err != nil {
		master.Close()
		slave.Close()
		return nil, nil, fmt.Errorf("TIOCSWINSZ: %w", err)
	}
	return master, slave, nil
}

// Start runs cmd (its Path, Args, Env, Dir set) with a rows x cols terminal as its
// stdin, stdout, stderr and controlling terminal.
func Start(cmd *exec.Cmd, rows, cols int) (*Term, error) {
	master, slave, err := open(rows, cols)
	if err != nil {
		return nil, err
	}
	defer slave.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		master.Close()
		return nil, err
	}
	t := &Term{Cmd: cmd, rows: rows, cols: cols, master: master, exited: make(chan struct{}), read0: make(chan struct{})}
	t.cond = sync.NewCond(&t.mu)
	go t.read()
	go func() {
		t.err = cmd.Wait()
		close(t.exited)
	}()
	return t, nil
}

// Queries a program sends and the answers of a 24-bit colour xterm with a dark
// background, the cursor at the top left.
var answers = []struct {
	q *regexp.Regexp
	a string
}{
	{regexp.MustCompile(`\x1b\[6n`), "\x1b[1;1R"},                                        // cursor position
	{regexp.MustCompile(`\x1b\]10;\?(\x07|\x1b\\)`), "\x1b]10;rgb:cccc/cccc/cccc\x1b\\"}, // foreground
	{regexp.MustCompile(`\x1b\]11;\?(\x07|\x1b\\)`), "\x1b]11;rgb:0000/0000/0000\x1b\\"}, // background
	{regexp.MustCompile(`\x1b\[c`), "\x1b[?62;22c"},                                      // primary device attributes
	{regexp.MustCompile(`\x1b\[\?u`), "\x1b[?0u"},                                        // keyboard enhancement flags
}

func (t *Term) read() {
	buf := make([]byte, 64<<10)
	for {
		n, err := t.master.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			t.mu.Lock()
			from := max(0, len(t.out)-16) // a query split across reads
			t.out = append(t.out, chunk...)
			tail := t.out[from:]
			t.mu.Unlock()
			for _, a := range answers {
				for _, loc := range a.q.FindAllIndex(tail, -1) {
					if from+loc[1] > len(t.out)-n { // ends in the new bytes: not answered yet
						t.master.Write([]byte(a.a))
					}
				}
			}
			t.cond.Broadcast()
		}
		if err != nil {
			t.mu.Lock()
			t.done = true
			t.mu.Unlock()
			t.cond.Broadcast()
			close(t.read0)
			return
		}
	}
}

// Write types b.
func (t *Term) Write(b []byte) (int, error) { return t.master.Write(b) }

// Output is everything the program wrote so far.
func (t *Term) Output() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.out)
}

// Screen is the text on the terminal's screen now, one line per row.
func (t *Term) Screen() string {
	sc := newScreen(t.rows, t.cols)
	sc.feed(t.Output())
	return sc.Text()
}

// WaitText waits up to d until the screen shows s on one row, spaces aside.
func (t *Term) WaitText(s string, d time.Duration) error {
	want := strings.ReplaceAll(s, " ", "")
	deadline := time.Now().Add(d)
	for {
		t.mu.Lock()
		done := t.done
		t.mu.Unlock()
		for _, row := range strings.Split(t.Screen(), "\n") {
			if strings.Contains(strings.ReplaceAll(row, " ", ""), want) {
				return nil
			}
		}
		if done || time.Now().After(deadline) {
			return fmt.Errorf("the terminal never showed %q", s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Wait waits up to d for the program to exit and returns its exit code; after d it
// kills it and says so.
func (t *Term) Wait(d time.Duration) (int, error) {
	select {
	case <-t.exited:
		// What it wrote before exiting is still to be read (EIO ends it once every
		// copy of the terminal is closed).
		select {
		case <-t.read0:
		case <-time.After(time.Second):
		}
	case <-time.After(d):
		t.Cmd.Process.Kill()
		<-t.exited
		t.master.Close()
		return -1, fmt.Errorf("still running after %v: killed", d)
	}
	t.master.Close()
	var ee *exec.ExitError
	if errors.As(t.err, &ee) {
		return ee.ExitCode(), nil
	}
	if t.err != nil {
		return -1, t.err
	}
	return 0, nil
}

var _ io.Writer = (*Term)(nil)
