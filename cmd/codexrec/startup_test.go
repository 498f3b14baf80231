package main_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// maxInitBytes bounds what one package's initialisation may allocate. Every run
// of codexrec (and every session started through the shim) pays for all of them,
// so rule sets, expressions, schemas and tables are made when first used; the
// largest today are standard library tables of under 20 KB.
const maxInitBytes = 64 << 10

// TestStartupInitsAllocateLittle: no package's initialisation allocates more than
// maxInitBytes, as the Go runtime's own trace of a start (GODEBUG=inittrace=1)
// reports it.
func TestStartupInitsAllocateLittle(t *testing.T) {
	cmd := exec.Command(codexrecBin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("codexrec --version: %v\n%s", err, stderr.Bytes())
	}
	// init github.com/codexrec/codexrec/sanitize @2.1 ms, 0.029 ms clock, 7712 bytes, 153 allocs
	n := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		n++
		if b > maxInitBytes {
			t.Errorf("initialising %s allocates %d bytes (at most %d): make what it builds when first used", f[1], b, maxInitBytes)
		}
	}
	if n < 20 {
		t.Fatalf("read %d package initialisations from the trace, want the program's (tens):\n%s", n, stderr.Bytes())
	}
}
