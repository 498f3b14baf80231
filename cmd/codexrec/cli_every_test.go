package main_test

import (
	"regexp"
	"strings"
	"testing"
)

// tableCommands are the command lines of every command and subcommand in the
// binary's table, read from its fish completion script (generated from the table),
// so a command added later is covered without being named here. Groups (commands
// with subcommands) are given only through their subcommands.
func tableCommands(t *testing.T) [][]string {
	r := runCodexrec(t, "", nil, "completion", "fish")
	if r.code != 0 {
		t.Fatalf("completion fish: exit %d: %s", r.code, r.stderr)
	}
	top := regexp.MustCompile(`__fish_use_subcommand -f -a "([^"]*)"`).FindSubmatch(r.stdout)
	if top == nil {
		t.Fatalf("no command list in\n%s", r.stdout)
	}
	subs := map[string][]string{}
	for _, m := range regexp.MustCompile(`__fish_seen_subcommand_from (\S+)' -f -a (\S+)`).FindAllSubmatch(r.stdout, -1) {
		subs[string(m[1])] = append(subs[string(m[1])], string(m[2]))
	}
	var out [][]string
	for _, name := range strings.Fields(string(top[1])) {
		if len(subs[name]) == 0 {
			out = append(out, []string{name})
		}
		for _, s := range subs[name] {
			out = append(out, []string{name, s})
		}
	}
	return out
}

// TestEveryCommandFlagsAnywhere: every command reads a flag that follows a
// positional argument as a flag (an unknown one is refused by name, exit 2). The
// exceptions are by design: what follows record's and config's own flags is a
// command line with flags of its own, and help and version take none.
func TestEveryCommandFlagsAnywhere(t *testing.T) {
	byDesign := map[string]bool{"record": true, "config": true, "help": true, "version": true}
	var n int
	for _, words := range tableCommands(t) {
		line := strings.Join(words, " ")
		if byDesign[line] {
			continue
		}
		n++
		args := append(append([]string{}, words...), "an-argument", "--no-such-flag")
		r := runCodexrec(t, t.TempDir(), strings.NewReader(""), args...)
		want := "codexrec " + line + ": flag provided but not defined: -no-such-flag (see codexrec help " + line + ")\n"
		if r.code != 2 || string(r.stderr) != want {
			t.Errorf("%s: exit %d, stderr %q; want exit 2, %q", strings.Join(args, " "), r.code, r.stderr, want)
		}
	}
	if n < 20 {
		t.Errorf("only %d commands in the table", n)
	}
}
