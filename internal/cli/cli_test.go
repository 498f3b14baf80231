package cli_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/config"
	"github.com/codexrec/codexrec/internal/cli"
)

const secret = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"

// exitErr is a command's own exit code, as a binary defines it.
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string { return fmt.Sprint(e.err) }
func (e *exitErr) Unwrap() error { return e.err }
func (e *exitErr) ExitCode() int { return e.code }

type echoCfg struct {
	json  bool
	tags  cli.Strings
	level string
}

// newApp is a binary "tool" with an echo command (flags anywhere), a raw one
// (flags first, "--" kept) and a group with one subcommand.
func newApp(settings *cli.Config) *cli.App {
	echo := func(name string) *cli.Command {
		return &cli.Command{
			Name: name, Args: "[--json] [--tag T] WORDS...", Summary: "print the words", Interspersed: true, Config: settings != nil,
			Flags: func(fs *flag.FlagSet) any {
				c := &echoCfg{}
				fs.BoolVar(&c.json, "json", false, "as JSON")
				fs.Var(&c.tags, "tag", "a tag (repeatable)")
				fs.StringVar(&c.level, "level", "info", "a level")
				if settings != nil {
					settings.Apply("echo", fs)
				}
				return c
			},
			Run: func(cfg any, args []string, io cli.IO) error {
				c := cfg.(*echoCfg)
				if len(args) == 0 {
					return cli.Usagef("want words")
				}
				fmt.Fprintf(io.Out, "%s json=%v tags=%v level=%s\n", strings.Join(args, ","), c.json, c.tags, c.level)
				return nil
			},
		}
	}
	raw := &cli.Command{Name: "raw", Args: "[-n] -- COMMAND", Summary: "run a command", Interspersed: true, DashCommand: true,
		Flags: func(fs *flag.FlagSet) any { return fs.Bool("n", false, "dry run") },
		Run: func(cfg any, args []string, io cli.IO) error {
			switch args[0] {
			case "fail":
				return &exitErr{3, errors.New("raw: " + args[1])}
			case "quiet":
				return &exitErr{1, nil}
			}
			fmt.Fprintf(io.Out, "%s n=%v\n", strings.Join(args, ","), *cfg.(*bool))
			return nil
		},
	}
	a := &cli.App{Name: "tool", Version: "1.2", Summary: "a tool", UsageCode: 2, ExitCodes: "exit codes: 0 ok, 2 usage",
		RevealFlag: "reveal", RevealUsage: "unmask", Config: settings,
		Stdout: func(c *cli.Command, fs *flag.FlagSet) cli.Stdout { return cli.Stdout{Data: cli.IsSet(fs, "json")} }}
	// Without Run, the group dispatches to its subcommands.
	grpRaw := *raw
	grpRaw.Name = "grp raw"
	group := &cli.Command{Name: "grp", Args: "SUB", Summary: "a group", Subcommands: map[string]*cli.Command{"echo": echo("grp echo"), "raw": &grpRaw}}
	plain := &cli.Command{Name: "plain", Summary: "no flags of its own", Run: func(_ any, args []string, io cli.IO) error {
		fmt.Fprintf(io.Out, "%s reveal=%v\n", strings.Join(args, ","), io.Reveal)
		return nil
	}}
	// Operands are counted before Run, which would say a wrong count otherwise.
	counted := func(name string, o *cli.Operands) *cli.Command {
		return &cli.Command{Name: name, Summary: "counted operands", Interspersed: true, Operands: o, Run: func(_ any, args []string, io cli.IO) error {
			if len(args) < o.Min || o.Max >= 0 && len(args) > o.Max {
				return fmt.Errorf("Run got %d operands", len(args))
			}
			fmt.Fprintf(io.Out, "%d operands\n", len(args))
			return nil
		}}
	}
	a.Commands = map[string]*cli.Command{"echo": echo("echo"), "raw": raw, "grp": group, "plain": plain,
		"two": counted("two", cli.Two("words, A and B")), "some": counted("some", cli.Some("words")), "none": counted("none", cli.None())}
	return a
}

func run(a *cli.App, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = a.Main(args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestDispatchAndErrors(t *testing.T) {
	a := newApp(nil)
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string // contained; stderr "" wants it empty
	}{
		{[]string{"echo", "a", "--json", "b", "--tag", "x", "--", "--tag"}, 0, "a,b,--tag json=true tags=[x]", ""},
		{[]string{"raw", "cmd", "-n", "--", "run", "--x"}, 0, "cmd,--,run,--x n=true", ""},
		// A command without flags of its own takes the common ones anywhere.
		{[]string{"plain", "x", "--reveal", "y"}, 0, "x,y reveal=true", ""},
		{[]string{"help"}, 0, "  grp        a group\n", ""},
		{[]string{"help", "grp", "echo"}, 0, "usage: tool grp echo [--json]", ""},
		{[]string{"echo", "-h"}, 0, "-tag value", ""},
		{[]string{"version"}, 0, "tool 1.2\n", ""},
		{[]string{}, 2, "", "usage: tool COMMAND"},
		{[]string{"nope"}, 2, "", "tool: unknown command \"nope\" (see tool help)\n"},
		{[]string{"help", "grp", "nope"}, 2, "", "tool: no command \"grp nope\" (see tool help)\n"},
		{[]string{"echo", "--bogus"}, 2, "", "tool echo: flag provided but not defined: -bogus (see tool help echo)\n"},
		// A value a flag refused is said as the flag and the value, then why.
		{[]string{"echo", "--json=maybe"}, 2, "", "tool echo: --json \"maybe\": parse error (see tool help echo)\n"},
		{[]string{"grp", "echo"}, 2, "", "tool grp echo: want words (see tool help grp echo)\n"},
		{[]string{"grp", "echo", "a", "--json"}, 0, "a json=true", ""},
		{[]string{"grp"}, 2, "", "tool grp: want a subcommand: echo, raw (see tool help grp)\n"},
		{[]string{"grp", "nope"}, 2, "", "tool grp: unknown subcommand \"nope\" (want echo, raw) (see tool help grp)\n"},
		// One prefix: the library's own "raw: " is dropped; the message is masked.
		{[]string{"raw", "fail", secret}, 3, "", "tool raw: <redacted:"},
		{[]string{"raw", "quiet"}, 1, "", ""},
		// A subcommand's error is said under its full name, its library's prefix dropped.
		{[]string{"grp", "raw", "fail", "x"}, 3, "", "tool grp raw: x\n"},
		// Operands: counted after the flags, wherever they stand; help is not refused.
		{[]string{"two", "a", "--reveal", "b"}, 0, "2 operands", ""},
		{[]string{"two", "a"}, 2, "", "tool two: want two words, A and B (see tool help two)\n"},
		{[]string{"two", "a", "b", "c"}, 2, "", "tool two: want two words, A and B (see tool help two)\n"},
		{[]string{"two", "a", "--bogus"}, 2, "", "tool two: flag provided but not defined: -bogus"},
		{[]string{"two", "-h"}, 0, "usage: tool two", ""},
		{[]string{"some"}, 2, "", "tool some: want one or more words (see tool help some)\n"},
		{[]string{"some", "a", "b", "c"}, 0, "3 operands", ""},
		{[]string{"none"}, 0, "0 operands", ""},
		{[]string{"none", "x\x1b[31m"}, 2, "", "tool none: unexpected arguments [\"x\\x1b[31m\"] (see tool help none)\n"},
	} {
		code, out, errs := run(a, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) || (tc.stderr == "") != (errs == "") || !strings.Contains(errs, tc.stderr) {
			t.Errorf("%q: exit %d\nstdout %q\nstderr %q", tc.args, code, out, errs)
		}
		if strings.Contains(errs, secret) || strings.Count(errs, "raw:") > 1 {
			t.Errorf("%q: stderr %q", tc.args, errs)
		}
	}
}

// TestOutputLayer: text is masked unless revealed; data keeps values and escapes
// controls only.
func TestOutputLayer(t *testing.T) {
	a := newApp(nil)
	word := secret + "\x1b]52;c;x\x07"
	for _, tc := range []struct {
		flags         []string
		secret, raw   bool
		escapedEscape string
	}{
		{nil, false, false, `\x1b`},
		{[]string{"--reveal"}, true, false, `\x1b`},
		{[]string{"--json"}, true, false, `\u001b`},
	} {
		_, out, _ := run(a, append(append([]string{"echo"}, tc.flags...), word)...)
		if strings.Contains(out, secret) != tc.secret || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, tc.escapedEscape) {
			t.Errorf("%v: %q", tc.flags, out)
		}
	}
}

// TestOutputExact: an Exact stdout that is not a terminal gets the command's bytes
// as they are, controls and secrets included (a recording written to a pipe).
func TestOutputExact(t *testing.T) {
	a := newApp(nil)
	a.Stdout = func(c *cli.Command, fs *flag.FlagSet) cli.Stdout { return cli.Stdout{Exact: c.Name == "plain"} }
	word := secret + "\x1b]52;c;x\x07\u202e"
	if _, out, _ := run(a, "plain", word); out != word+" reveal=false\n" {
		t.Errorf("exact: %q", out)
	}
	if _, out, _ := run(a, "echo", word); strings.ContainsAny(out, "\x1b\u202e") || strings.Contains(out, secret) {
		t.Errorf("not exact: %q", out)
	}
}

func TestConfigBinding(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.toml")
	if err := os.WriteFile(file, []byte("[check]\nfail_on = \"warning\"\ndisable = [\"a\", \"b\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bind := config.Bindings{"check.fail_on": {{Command: "echo", Name: "level"}}, "check.disable": {{Command: "echo", Name: "tag"}}}
	a := newApp(&cli.Config{Flag: "settings", Usage: "settings `FILE`", Bindings: bind})
	code, out, errs := run(a, "echo", "--settings", file, "w", "--tag", "c")
	if code != 0 || !strings.Contains(out, "w json=false tags=[a b c] level=warning") {
		t.Errorf("exit %d: %q %q", code, out, errs)
	}
	var b bytes.Buffer
	if err := a.Config.Print(&b, a.Commands["echo"], []string{"--level", "error"}, false); err != nil {
		t.Fatal(err)
	}
	want := "# config file: " + file + "\ncheck.fail_on = \"error\"  # flag --level\ncheck.disable = [\"a\", \"b\"]  # " + file + ":3\n"
	if b.String() != want {
		t.Errorf("Print:\n%s\nwant:\n%s", b.String(), want)
	}
	// A value the flag refuses names where it came from.
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[repeats]\nenabled = \"maybe\"\n"), 0o600)
	a = newApp(&cli.Config{Flag: "settings", Bindings: config.Bindings{"repeats.enabled": {{Command: "echo", Name: "json"}}}})
	if code, _, errs := run(a, "echo", "--settings="+bad, "w"); code != 2 || !strings.Contains(errs, "tool echo: config: ") || !strings.Contains(errs, "bad.toml") {
		t.Errorf("bad value: exit %d, %q", code, errs)
	}
}

func TestCompletion(t *testing.T) {
	a := newApp(nil)
	var b bytes.Buffer
	if err := a.Completion(&b, "bash"); err != nil {
		t.Fatal(err)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		out, err := exec.Command(bash, "-c", `source /dev/stdin <<<"$0"
COMP_WORDS=(tool ec); COMP_CWORD=1; _tool; echo "${COMPREPLY[@]}"
COMP_WORDS=(tool grp e); COMP_CWORD=2; _tool; echo "${COMPREPLY[@]}"
COMP_WORDS=(tool echo --re); COMP_CWORD=2; _tool; echo "${COMPREPLY[@]}"
COMP_WORDS=(tool grp echo x --ta); COMP_CWORD=4; _tool; echo "${COMPREPLY[@]}"`, b.String()).CombinedOutput()
		if err != nil || string(out) != "echo\necho\n--reveal\n--tag\n" {
			t.Errorf("bash: %v %q\n%s", err, out, b.String())
		}
	}
	b.Reset()
	if err := a.Completion(&b, "fish"); err != nil || !strings.Contains(b.String(), "complete -c tool -n '__fish_seen_subcommand_from echo' -l tag\n") ||
		!strings.Contains(b.String(), "complete -c tool -n '__fish_seen_subcommand_from grp; and __fish_seen_subcommand_from echo' -l tag\n") {
		t.Errorf("fish: %v\n%s", err, b.String())
	}
	var ue cli.UsageError
	if err := a.Completion(&b, "tcsh"); !errors.As(err, &ue) {
		t.Errorf("tcsh: %v", err)
	}
}

func TestParseLevel(t *testing.T) {
	for s, want := range map[string]cli.Level{"info": cli.Info, "WARNING": cli.Warning, "breaking": cli.Error, "none": cli.Never} {
		if l, err := cli.ParseLevel(s); err != nil || l != want {
			t.Errorf("%s: %v %v", s, l, err)
		}
	}
	if _, err := cli.ParseLevel("sometimes"); err == nil || strings.Contains(err.Error(), "--") {
		t.Errorf("sometimes: %v", err)
	}
	if !cli.Warning.Reaches(cli.Error) || cli.Error.Reaches(cli.Warning) || cli.Never.Reaches(cli.Error) {
		t.Error("Reaches")
	}
	// A *Level is a flag.Value: a bad level is refused while parsing, and the
	// value prints as its canonical name.
	l := cli.Error
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&l, "fail-on", "")
	if err := fs.Parse([]string{"-fail-on", "breaking"}); err != nil || l != cli.Error || l.String() != "error" {
		t.Errorf("breaking: %v %v", l, err)
	}
	if err := fs.Parse([]string{"-fail-on", "sometimes"}); err == nil || !strings.Contains(err.Error(), cli.LevelNames) {
		t.Errorf("sometimes: %v", err)
	}
}

// TestLogPrefix: IO.Log says each line as the command, its full name, once, and
// masked like the rest of stderr.
func TestLogPrefix(t *testing.T) {
	a := newApp(nil)
	a.Commands["grp"].Subcommands["log"] = &cli.Command{Name: "grp log", Summary: "log", Run: func(_ any, args []string, io cli.IO) error {
		fmt.Fprintf(io.Log, "one\ntwo %s\n", secret)
		return nil
	}}
	code, _, errs := run(a, "grp", "log")
	if code != 0 || !strings.HasPrefix(errs, "tool grp log: one\ntool grp log: two <redacted:") || strings.Contains(errs, secret) || strings.Count(errs, "tool grp log: ") != 2 {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
