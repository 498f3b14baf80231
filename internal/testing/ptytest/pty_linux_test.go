package ptytest_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/ptytest"
)

// TestScreen: a real shell on the pseudo-terminal moves the cursor, erases and
// scrolls; the screen holds the text where it landed, and the window size is the one
// asked for.
func TestScreen(t *testing.T) {
	script := `printf 'abc\033[2;5Hxyz\033[1;2H\033[K'; printf '\033[4;1Hsize:'; stty size; printf '\033[6;1Hone\r\ntwo\033[6;1H\033[Lnew'; sleep 0.2`
	term, err := ptytest.Start(exec.Command("sh", "-c", script), 10, 40)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := term.Wait(10 * time.Second); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	rows := strings.Split(term.Screen(), "\n")
	for i, want := range map[int]string{0: "a", 1: "    xyz", 3: "size:10 40", 5: "new", 6: "one", 7: "two"} {
		if rows[i] != want {
			t.Errorf("row %d = %q, want %q\nscreen:\n%s", i+1, rows[i], want, term.Screen())
		}
	}
	if err := term.WaitText("x y z", time.Second); err != nil {
		t.Error(err)
	}
	if err := term.WaitText("nothere", 100*time.Millisecond); err == nil {
		t.Error("WaitText found text that is not on the screen")
	}
}

// TestQueries: a program that asks for the cursor position and the background
// colour, and waits for the answers, gets them.
func TestQueries(t *testing.T) {
	script := `stty -icanon -echo; printf '\033[6n'; IFS= read -r -d R a; printf '\033]11;?\033\\'; IFS= read -r -d '\' b; printf 'pos:%s bg:%s\n' "${a#?}" "${b#??}"`
	term, err := ptytest.Start(exec.Command("bash", "-c", script), 10, 60)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := term.Wait(10 * time.Second); code != 0 || err != nil {
		t.Fatalf("exit %d, %v; screen:\n%s", code, err, term.Screen())
	}
	if !strings.Contains(term.Screen(), "pos:[1;1 bg:11;rgb:0000/0000/0000") {
		t.Errorf("screen:\n%s", term.Screen())
	}
}
