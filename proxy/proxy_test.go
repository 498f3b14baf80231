package proxy_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/wire"
)

// TestMain doubles as a slow cat for the tests that need a child reading in small
// bites (PROXY_TEST_SLOWCAT=1): writes to it block, which is when buffer ownership
// matters.
func TestMain(m *testing.M) {
	if os.Getenv("PROXY_TEST_SLOWCAT") == "1" {
		buf := make([]byte, 4096)
		for i := 0; ; i++ {
			n, err := os.Stdin.Read(buf)
			os.Stdout.Write(buf[:n])
			if err != nil {
				os.Exit(0)
			}
			if i%64 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}
	os.Exit(m.Run())
}

func slowCat() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROXY_TEST_SLOWCAT=1")
	return cmd
}

// lines is n JSON-RPC requests, one per line.
func lines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":%d,"method":"m","params":{"i":%d}}`+"\n", i, i)
	}
	return b.String()
}

// A tap slower than the traffic, behind a queue of one, must slow forwarding down
// and still see every frame, in order, with the client getting every byte.
func TestBackPressureLosesNothing(t *testing.T) {
	in := lines(300)
	var mu sync.Mutex
	var seen []*wire.Frame
	p := &proxy.Proxy{QueueSize: 1, Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
		time.Sleep(200 * time.Microsecond)
		mu.Lock()
		seen = append(seen, f)
		mu.Unlock()
		return nil
	}}}
	var out bytes.Buffer
	res, err := p.Run(t.Context(), exec.Command("cat"), strings.NewReader(in), &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != in {
		t.Fatalf("client got %d bytes, want %d", out.Len(), len(in))
	}
	if !res.ClientEOF || res.ExitCode != 0 || res.TapErr != nil {
		t.Errorf("result %+v", res)
	}
	var c2s, s2c bytes.Buffer
	for i, f := range seen {
		if f.Seq != int64(i+1) {
			t.Fatalf("frame %d has seq %d", i, f.Seq)
		}
		switch f.Dir {
		case wire.ClientToServer:
			c2s.Write(f.Line)
		case wire.ServerToClient:
			s2c.Write(f.Line)
			if f.Msg.Kind != wire.KindResponse && f.Msg.Kind != wire.KindRequest {
				t.Fatalf("frame %d kind %v", f.Seq, f.Msg.Kind)
			}
		}
	}
	if c2s.String() != in || s2c.String() != in {
		t.Fatalf("tap saw %d c2s and %d s2c bytes, want %d each", c2s.Len(), s2c.Len(), len(in))
	}
}

// A tap still catching up when the server exits (a loaded machine, a queue of one)
// is waited for however long it takes in all, as long as it moves: the drain
// timeout is for a pipe nobody writes to any more, not for the tap. Here the tap
// needs far longer than DrainTimeout for the session and must still see every frame.
func TestSlowTapOutlastsDrainTimeout(t *testing.T) {
	// 200 lines of 4 KB fit in the server's pipe: cat writes them all and exits at
	// once, and the tap (a queue of one, 5 ms a server frame) still has about a
	// second of work then, four times the drain timeout, while one frame's wait stays
	// far under it even on a loaded machine.
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, `{"id":%d,"method":"m","params":{"pad":"%s"}}`+"\n", i, strings.Repeat("x", 4<<10))
	}
	in := b.String()
	var mu sync.Mutex
	var s2c bytes.Buffer
	p := &proxy.Proxy{QueueSize: 1, DrainTimeout: 250 * time.Millisecond, Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
		if f.Dir == wire.ServerToClient {
			time.Sleep(5 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		if f.Dir == wire.ServerToClient {
			s2c.Write(f.Line)
		}
		return nil
	}}}
	var out bytes.Buffer
	res, err := p.Run(t.Context(), exec.Command("cat"), strings.NewReader(in), &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != in {
		t.Fatalf("client got %d bytes, want %d", out.Len(), len(in))
	}
	if s2c.String() != in {
		t.Fatalf("tap saw %d of %d server bytes: frames lost at the drain timeout (result %+v)", s2c.Len(), len(in), res)
	}
}

// With ReuseLines the proxy recycles read buffers once a frame is tapped and
// forwarded: lines of every size, some longer than a read buffer, must still reach
// the client and the tap byte for byte (the tap copies, as ReuseLines asks). The
// child reads slowly, so writes block while the tap is long done with their bytes.
func TestReuseLinesKeepsEveryByte(t *testing.T) {
	var in strings.Builder
	for i := range 600 {
		size := 10 + (i*7919)%2000
		if i%50 == 49 {
			size = 100_000 + i*700 // up to 520 KB: past the 256 KB read buffer
		}
		fmt.Fprintf(&in, `{"method":"m","params":{"i":%d,"pad":"%s"}}`+"\n", i, strings.Repeat(string(rune('a'+i%26)), size))
	}
	proxy.PoisonReleased(true)
	defer proxy.PoisonReleased(false)
	for round := range 3 {
		reuseRound(t, round, in.String())
	}
}

func reuseRound(t *testing.T, round int, in string) {
	var c2s, s2c bytes.Buffer
	p := &proxy.Proxy{ReuseLines: true, Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
		switch f.Dir {
		case wire.ClientToServer:
			c2s.Write(f.Line)
		case wire.ServerToClient:
			s2c.Write(f.Line)
		}
		if f.Msg.Kind != wire.KindNotification {
			return fmt.Errorf("frame %d: kind %v", f.Seq, f.Msg.Kind)
		}
		return nil
	}}}
	var out bytes.Buffer
	res, err := p.Run(t.Context(), slowCat(), strings.NewReader(in), &out, io.Discard)
	if err != nil || res.TapErr != nil {
		t.Fatal(round, err, res.TapErr)
	}
	if out.String() != in || c2s.String() != in || s2c.String() != in {
		t.Fatalf("round %d: client got %d bytes (%d NUL), tap %d c2s and %d s2c, want %d each", round,
			out.Len(), bytes.Count(out.Bytes(), []byte{0}), c2s.Len(), s2c.Len(), len(in))
	}
}

// A 64 MiB line crosses whole: no length limit but memory, on the wire and in the tap.
func TestHugeLine(t *testing.T) {
	line := `{"method":"m","params":{"pad":"` + strings.Repeat("0123456789abcdef", 4<<20) + `"}}` + "\n"
	var tapped []int
	p := &proxy.Proxy{ReuseLines: true, Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
		if f.Dir == wire.ServerToClient && f.Msg.Kind != wire.KindNotification {
			return fmt.Errorf("frame %d: kind %v (%s)", f.Seq, f.Msg.Kind, f.Msg.Reason)
		}
		tapped = append(tapped, len(f.Line))
		return nil
	}}}
	var out bytes.Buffer
	res, err := p.Run(t.Context(), exec.Command("cat"), strings.NewReader(line), &out, io.Discard)
	if err != nil || res.TapErr != nil {
		t.Fatal(err, res.TapErr)
	}
	if out.String() != line || len(tapped) != 2 || tapped[0] != len(line) || tapped[1] != len(line) {
		t.Fatalf("client got %d bytes, tap saw lines of %v bytes, want %d each", out.Len(), tapped, len(line))
	}
}

// A stuck tap (a disk that stalls) must not hold forwarding up while the queue has
// room: every line makes the round trip through cat while the tap is still blocked on
// the first frame.
func TestStuckTapDoesNotStallForwarding(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	p := &proxy.Proxy{Tap: wire.TapFuncs{OnFrame: func(*wire.Frame) error {
		once.Do(func() { <-release })
		return nil
	}}}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(t.Context(), exec.Command("cat"), inR, outW, io.Discard)
		outW.Close()
		done <- err
	}()
	echoed := make(chan string, 100)
	go func() {
		r := wire.NewReader(outR)
		for {
			line, err := r.ReadLine()
			if err != nil {
				close(echoed)
				return
			}
			echoed <- string(line)
		}
	}()
	for i := range 20 {
		line := fmt.Sprintf(`{"id":%d,"method":"m"}`+"\n", i)
		go io.WriteString(inW, line) // blocks while nothing reads the client
		select {
		case got := <-echoed:
			if got != line {
				t.Fatalf("echo %d = %q, want %q", i, got, line)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("line %d not forwarded while the tap was stuck", i)
		}
	}
	close(release)
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A failing tap stops being called, but forwarding goes on untouched.
func TestTapErrorDoesNotTouchTheWire(t *testing.T) {
	in := lines(50)
	boom := errors.New("disk full")
	calls := 0
	p := &proxy.Proxy{Tap: wire.TapFuncs{OnFrame: func(*wire.Frame) error { calls++; return boom }}}
	var out bytes.Buffer
	res, err := p.Run(t.Context(), exec.Command("cat"), strings.NewReader(in), &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != in {
		t.Fatal("forwarding changed after a tap error")
	}
	if !errors.Is(res.TapErr, boom) || calls != 1 {
		t.Errorf("TapErr %v after %d calls, want the first error after 1 call", res.TapErr, calls)
	}
}

// Responses are paired with the request of the other direction, even when the
// server's own request ids overlap the client's.
func TestPairingAcrossDirections(t *testing.T) {
	// sh prints a server request with id 0 and answers the client's id 0.
	script := `read line; printf '%s\n' '{"id":0,"method":"item/tool/call"}' '{"id":0,"result":{}}'; read answer`
	in := `{"id":0,"method":"initialize"}` + "\n" + `{"id":0,"result":{"ok":true}}` + "\n"
	var frames []wire.Frame
	p := &proxy.Proxy{Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error { frames = append(frames, *f); return nil }}}
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, in[:strings.IndexByte(in, '\n')+1])
		time.Sleep(100 * time.Millisecond) // let the server request go out first
		io.WriteString(pw, in[strings.IndexByte(in, '\n')+1:])
		pw.Close()
	}()
	if _, err := p.Run(t.Context(), exec.Command("sh", "-c", script), pr, io.Discard, os.Stderr); err != nil {
		t.Fatal(err)
	}
	want := []string{"c2s request initialize", "s2c request item/tool/call", "s2c response initialize", "c2s response item/tool/call"}
	if len(frames) != len(want) {
		t.Fatalf("got %d frames", len(frames))
	}
	for i, f := range frames {
		if got := f.Dir.String() + " " + f.Msg.Kind.String() + " " + f.Msg.Method; got != want[i] || f.Msg.Unpaired {
			t.Errorf("frame %d = %s (unpaired %v), want %s", i+1, got, f.Msg.Unpaired, want[i])
		}
	}
}

func TestStartFailure(t *testing.T) {
	p := &proxy.Proxy{}
	_, err := p.Run(t.Context(), exec.Command("/nonexistent/codex"), strings.NewReader(""), io.Discard, io.Discard)
	if !errors.Is(err, proxy.ErrStart) || !strings.Contains(err.Error(), "/nonexistent/codex") {
		t.Fatalf("err = %v, want ErrStart naming the program", err)
	}
}

// TestContextEndsSession: a server that ignores its stdin (the client never closes
// it) gets SIGTERM once the context of Run is done, and Run returns as it exits.
func TestContextEndsSession(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p := &proxy.Proxy{Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
		if f.Dir == wire.ServerToClient {
			cancel() // the child is up and talking
		}
		return nil
	}}}
	clientR, clientW := io.Pipe() // never closed while Run runs
	defer clientW.Close()
	type ran struct {
		res proxy.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := p.Run(ctx, exec.Command("sh", "-c", `echo '{"method":"ready"}'; exec sleep 60`), clientR, io.Discard, io.Discard)
		done <- ran{res, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.res.Signal != syscall.SIGTERM || r.res.KilledBy != "SIGTERM" || r.res.ClientEOF {
			t.Fatalf("result %+v: want the child ended by SIGTERM for the context, the client still open", r.res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run still runs 30s after its context ended")
	}
}

// TestDoneContextStartsNothing: Run with a context already done starts no child.
func TestDoneContextStartsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	dir := t.TempDir()
	var p proxy.Proxy
	cmd := exec.Command("touch", "started")
	cmd.Dir = dir
	_, err := p.Run(ctx, cmd, strings.NewReader(""), io.Discard, io.Discard)
	if !errors.Is(err, proxy.ErrStart) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrStart wrapping context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
		t.Fatal("the child ran")
	}
}

// Example runs a server under the proxy and counts what crossed in each direction.
func Example() {
	counts := map[wire.Direction]int{}
	p := &proxy.Proxy{Tap: wire.TapFuncs{OnFrame: func(f *wire.Frame) error {
		counts[f.Dir]++
		return nil
	}}}
	client := strings.NewReader(`{"id":1,"method":"initialize","params":{}}` + "\n")
	res, err := p.Run(context.Background(), exec.Command("cat"), client, io.Discard, io.Discard)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("exit", res.ExitCode, "client EOF", res.ClientEOF)
	fmt.Println("c2s", counts[wire.ClientToServer], "s2c", counts[wire.ServerToClient])
	// Output:
	// exit 0 client EOF true
	// c2s 1 s2c 1
}

// countTap counts its calls, and whether the last one was Idle.
type countTap struct {
	frames, idles int
	lastIdle      bool
}

func (c *countTap) Frame(*wire.Frame) error { c.frames++; c.lastIdle = false; return nil }
func (c *countTap) Idle() error             { c.idles++; c.lastIdle = true; return nil }

// TestTapIdleAfterFrames: a Tap's Idle runs once it has caught up, so the last call
// of a session is Idle, after every frame.
func TestTapIdleAfterFrames(t *testing.T) {
	tap := &countTap{}
	p := &proxy.Proxy{Tap: tap}
	if _, err := p.Run(t.Context(), exec.Command("cat"), strings.NewReader(lines(50)), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if tap.frames != 100 || tap.idles == 0 || !tap.lastIdle {
		t.Fatalf("%d frames, %d idles, last call Idle %v: want 100 frames, then Idle", tap.frames, tap.idles, tap.lastIdle)
	}
}
