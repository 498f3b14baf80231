// Command faultserver is a stand-in for codex app-server that misbehaves on purpose:
// it echoes its stdin lines to stdout and, as its flags say, dies mid-stream, kills
// itself with a signal, floods stderr or ends on a partial line. The real binary
// cannot be made to do these things on demand, so the proxy's fault tests use this.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	exitAfter := flag.Int("exit-after", -1, "exit after echoing `N` lines")
	code := flag.Int("code", 0, "exit code for -exit-after")
	killAfter := flag.Int("kill-after", -1, "kill itself after echoing `N` lines")
	sig := flag.String("signal", "TERM", "signal for -kill-after: TERM, KILL, INT, HUP")
	stderrBytes := flag.Int("stderr", 0, "write `N` bytes of log lines to stderr first")
	onTerm := flag.Int("on-term", -1, "on SIGTERM/SIGINT/SIGHUP, write a notification and exit with `CODE`")
	partial := flag.String("partial", "", "write `TEXT` without a newline to stdout before exiting at EOF")
	noise := flag.String("noise", "", "write the line `TEXT` to stdout first")
	flag.Parse()

	out := bufio.NewWriter(os.Stdout)
	if *onTerm >= 0 {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		go func() {
			s := <-ch
			// Written straight to the file: the main loop may be blocked on stdin.
			fmt.Fprintf(os.Stdout, "{\"method\":\"faultserver/signal\",\"params\":{\"signal\":%q}}\n", s.String())
			os.Exit(*onTerm)
		}()
	}
	if *stderrBytes > 0 {
		w := bufio.NewWriter(os.Stderr)
		line := "faultserver: " + strings.Repeat("x", 86) + "\n" // 100 bytes
		for n := *stderrBytes; n > 0; n -= len(line) {
			if n < len(line) {
				line = line[:n-1] + "\n"
			}
			w.WriteString(line)
		}
		w.Flush()
	}
	if *noise != "" {
		out.WriteString(*noise + "\n")
		out.Flush()
	}
	in := bufio.NewReader(os.Stdin)
	for n := 0; ; n++ {
		if n == *exitAfter {
			out.Flush()
			os.Exit(*code)
		}
		if n == *killAfter {
			out.Flush()
			killSelf(signalByName(*sig))
			select {}
		}
		line, err := in.ReadString('\n')
		if line != "" {
			out.WriteString(line)
			if in.Buffered() == 0 {
				out.Flush()
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "faultserver:", err)
			os.Exit(1)
		}
	}
	out.WriteString(*partial)
	out.Flush()
}

func signalByName(s string) syscall.Signal {
	switch s {
	case "KILL":
		return syscall.SIGKILL
	case "INT":
		return syscall.SIGINT
	case "HUP":
		return syscall.SIGHUP
	}
	return syscall.SIGTERM
}
