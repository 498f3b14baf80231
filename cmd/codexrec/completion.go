package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

func init() {
	register(&command{
		name:    "completion",
		args:    "bash|zsh|fish",
		summary: "print a shell completion script: source <(codexrec completion bash), or put it where your shell loads completions",
		run:     runCompletion,
	})
}

func runCompletion(_ any, args []string, std stdio) error {
	if len(args) != 1 {
		return usagef("want one shell: bash, zsh or fish")
	}
	words := completionWords()
	switch args[0] {
	case "bash", "zsh":
		return writeBashCompletion(std.out, words, args[0] == "zsh")
	case "fish":
		return writeFishCompletion(std.out, words)
	}
	return usagef("unknown shell %q (want bash, zsh or fish)", args[0])
}

// completionWords are each command's name with its flags ("--json"), sorted.
func completionWords() map[string][]string {
	out := map[string][]string{}
	for name, c := range commands {
		out[name] = commandFlags(c)
	}
	for _, sub := range []struct {
		name string
		cmds map[string]*command
	}{{"schema", schemaCommands}, {"scenario", scenarioCommands}} {
		for n, c := range sub.cmds {
			out[sub.name] = append(out[sub.name], n)
			out[sub.name+" "+n] = commandFlags(c)
		}
		sort.Strings(out[sub.name])
	}
	return out
}

func commandFlags(c *command) []string {
	var fl []string
	if c.flags != nil {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if len(f.Name) == 1 {
				fl = append(fl, "-"+f.Name)
			} else {
				fl = append(fl, "--"+f.Name)
			}
		})
	}
	return fl
}

func commandNames(words map[string][]string) []string {
	var names []string
	for n := range words {
		if !strings.Contains(n, " ") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return append(names, "help", "version")
}

func writeBashCompletion(w io.Writer, words map[string][]string, zsh bool) error {
	var b strings.Builder
	if zsh {
		b.WriteString("#compdef codexrec\nautoload -U +X bashcompinit && bashcompinit\n")
	}
	b.WriteString("_codexrec() {\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} words=\"\"\n")
	b.WriteString("\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(&b, "\t\twords=%q\n", strings.Join(commandNames(words), " "))
	b.WriteString("\telse\n\t\tcase \"${COMP_WORDS[1]}\" in\n")
	for _, n := range commandNames(words) {
		if fl := words[n]; len(fl) > 0 {
			fmt.Fprintf(&b, "\t\t%s) words=%q ;;\n", n, strings.Join(fl, " "))
		}
	}
	b.WriteString("\t\tesac\n\tfi\n")
	b.WriteString("\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n")
	b.WriteString("\t[ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- \"$cur\"))\n\treturn 0\n}\n")
	b.WriteString("complete -o filenames -F _codexrec codexrec\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeFishCompletion(w io.Writer, words map[string][]string) error {
	var b strings.Builder
	names := commandNames(words)
	fmt.Fprintf(&b, "complete -c codexrec -n __fish_use_subcommand -f -a %q\n", strings.Join(names, " "))
	for _, n := range names {
		for _, f := range words[n] {
			switch {
			case strings.HasPrefix(f, "--"):
				fmt.Fprintf(&b, "complete -c codexrec -n '__fish_seen_subcommand_from %s' -l %s\n", n, strings.TrimPrefix(f, "--"))
			case strings.HasPrefix(f, "-"):
				fmt.Fprintf(&b, "complete -c codexrec -n '__fish_seen_subcommand_from %s' -s %s\n", n, strings.TrimPrefix(f, "-"))
			default:
				fmt.Fprintf(&b, "complete -c codexrec -n '__fish_seen_subcommand_from %s' -f -a %s\n", n, f)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
