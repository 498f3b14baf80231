package codexrectest_test

import (
	"debug/elf"
	"os"
	"testing"

	"github.com/codexrec/codexrec/codexrectest"
)

// TestBinaryStatic: the codexrec the helper builds is static (no program
// interpreter to load it), so every session a suite starts skips the dynamic
// loader.
func TestBinaryStatic(t *testing.T) {
	if os.Getenv("CODEXREC_BIN") != "" {
		t.Skip("CODEXREC_BIN names a binary built elsewhere")
	}
	f, err := elf.Open(codexrectest.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("the built codexrec asks for a dynamic loader (PT_INTERP): it was built with cgo")
		}
	}
}
