package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/cli"
)

type found struct{ what string }

func (f *found) Error() string { return "found " + f.what }

var errGone = errors.New("gone")

// TestCodes: the first matching row decides the code and what is printed (the
// whole error, or the typed one found in it, with the hint); an error that decides
// already passes through; anything else takes the fallback.
func TestCodes(t *testing.T) {
	codes := cli.Codes{
		{Match: cli.Is(errGone), Code: 4, Hint: " (try harder)"},
		{Match: cli.Found[*found](), Code: 3},
		{Match: cli.As[*found](), Code: 9}, // never reached: the row above matches first
	}
	a := &cli.App{Name: "tool", UsageCode: 2}
	for _, tc := range []struct {
		err    error
		code   int
		stderr string
	}{
		{fmt.Errorf("reading: %w", errGone), 4, "tool x: reading: gone (try harder)\n"},
		{fmt.Errorf("publishing: %w", &found{"a key"}), 3, "tool x: found a key\n"},
		{errors.New("disk full"), 2, "tool x: disk full\n"},
		{cli.ExitWith(1, nil), 1, ""},
		{cli.Usagef("bad"), 2, "tool x: bad (see tool help x)\n"},
	} {
		var b bytes.Buffer
		if code := a.Exit(codes.Exit(tc.err, 2), "x", &b); code != tc.code || b.String() != tc.stderr {
			t.Errorf("%v: exit %d %q, want %d %q", tc.err, code, b.String(), tc.code, tc.stderr)
		}
	}
	if err := codes.Exit(nil, 2); err != nil {
		t.Errorf("nil: %v", err)
	}
	if m := cli.As[*found]()(errGone); m != nil {
		t.Errorf("As matched %v", m)
	}
}

func TestExitError(t *testing.T) {
	inner := errors.New("inner")
	err := fmt.Errorf("ctx: %w", cli.ExitWith(5, inner))
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 5 || !errors.Is(err, inner) {
		t.Fatalf("ExitWith: %#v", ee)
	}
	if !cli.Decided(err) || cli.Decided(inner) || !cli.Decided(cli.Usagef("u")) {
		t.Error("Decided")
	}
	if s := cli.ExitWith(7, nil).Error(); s != "exit 7" {
		t.Errorf("Error() = %q", s)
	}
}

func TestRefuse(t *testing.T) {
	err := cli.Refuse(cli.When(false, "first"), cli.When(true, "second"), cli.When(true, "third"))
	var ue cli.UsageError
	if !errors.As(err, &ue) || ue.Msg != "second" {
		t.Errorf("Refuse = %v, want usage error second", err)
	}
	if err := cli.Refuse(cli.When(false, "x")); err != nil {
		t.Errorf("nothing applies: %v", err)
	}
}

func TestColour(t *testing.T) {
	var b bytes.Buffer // not a terminal
	for mode, want := range map[cli.Colour]bool{"always": true, "never": false, "auto": false} {
		if on, err := mode.On(&b); err != nil || on != want {
			t.Errorf("%s: %v %v", mode, on, err)
		}
	}
	_, err := cli.Colour("pink").On(&b)
	if !errors.As(err, new(cli.UsageError)) || !strings.Contains(err.Error(), `--color "pink": want auto, always or never`) {
		t.Errorf("pink: %v", err)
	}
}

// TestOutput: - is stdout; a file is 0600 and refused when it exists, unless Force.
func TestOutput(t *testing.T) {
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	var out bytes.Buffer
	if err := (cli.Output{Path: "-"}).Write(&out, write("hello")); err != nil || out.String() != "hello" {
		t.Fatalf("stdout: %q %v", out.String(), err)
	}
	p := filepath.Join(t.TempDir(), "f.html")
	if err := (cli.Output{Path: p}).Write(&out, write("one")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	err := (cli.Output{Path: p}).Write(&out, write("two"))
	if err == nil || err.Error() != p+" exists (--force replaces it)" {
		t.Errorf("existing: %v", err)
	}
	if err := (cli.Output{Path: p, Force: true}).Write(&out, write("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" || out.String() != "hello" {
		t.Errorf("forced: %q, stdout %q", b, out.String())
	}
}
