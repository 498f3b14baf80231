package shim

import (
	"errors"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestParallelRuns: two runs going at the same time (this test process and its
// parent, both alive) that reach the same name are refused rather than recording
// over each other; a run that has ended, or one named by CODEXREC_RUN, is not.
func TestParallelRuns(t *testing.T) {
	self := processKey(t, os.Getpid())
	parent := processKey(t, os.Getppid())
	dir := t.TempDir()
	if _, err := (&Namer{Dir: dir, Run: parent}).Next("initialize"); err != nil {
		t.Fatal(err)
	}
	_, err := (&Namer{Dir: dir, Run: self}).Next("initialize")
	if !errors.Is(err, ErrParallelRuns) {
		t.Fatalf("a second live run reaching 001-initialize: %v, want ErrParallelRuns", err)
	}
	if p, err := (&Namer{Dir: dir, Run: self, Name: "TestOwn"}).Next("initialize"); err != nil {
		t.Errorf("a session with its own name: %v", err)
	} else if want := dir + "/TestOwn.jsonl"; p != want {
		t.Errorf("got %s, want %s", p, want)
	}

	ended := t.TempDir()
	gone := "process:" + strconv.Itoa(os.Getpid()) + ":0" // this pid, another start time
	for _, run := range []string{gone, "run:ci-1", parent} {
		if _, err := (&Namer{Dir: ended, Run: run}).Next("initialize"); err != nil {
			t.Fatal(err)
		}
	}
	// The parent is alive, but named its session more than an hour ago.
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	if _, err := (&Namer{Dir: ended, Run: self, Now: later}).Next("initialize"); err != nil {
		t.Errorf("after an ended run, a named one and one idle for an hour: %v", err)
	}
	if _, err := (&Namer{Dir: ended, Run: "run:ci-2"}).Next("initialize"); err != nil {
		t.Errorf("a run named by CODEXREC_RUN: %v", err)
	}
}

func processKey(t *testing.T, pid int) string {
	t.Helper()
	_, _, start, ok := procStat(pid)
	if !ok {
		t.Skip("no /proc: process start times are not known here")
	}
	return "process:" + strconv.Itoa(pid) + ":" + start
}
