package cli

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Completion writes a completion script for shell (bash, zsh or fish) from the
// command table: command names, subcommand names and each command's flags; files
// otherwise. Another shell is a UsageError.
func (a *App) Completion(w io.Writer, shell string) error {
	words := a.completionWords()
	var b strings.Builder
	switch shell {
	case "bash", "zsh":
		a.bash(&b, words, shell == "zsh")
	case "fish":
		a.fish(&b, words)
	default:
		return Usagef("unknown shell %q (want bash, zsh or fish)", shell)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// completionWords are each command's words: its subcommands' names, then its flags
// ("--json"); "NAME SUB" holds a subcommand's flags.
func (a *App) completionWords() map[string][]string {
	out := map[string][]string{}
	for name, c := range a.Commands {
		var subs []string
		for n, s := range c.Subcommands {
			subs = append(subs, n)
			out[name+" "+n] = a.commandFlags(s)
		}
		sort.Strings(subs)
		out[name] = append(subs, a.commandFlags(c)...)
	}
	return out
}

// commandFlags are c's flags, those every command has included.
func (a *App) commandFlags(c *Command) []string {
	var fl []string
	fs := a.flagSet(c, io.Discard)
	if c.Flags != nil {
		c.Flags(fs)
	}
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			fl = append(fl, "-"+f.Name)
		} else {
			fl = append(fl, "--"+f.Name)
		}
	})
	return fl
}

func (a *App) bash(b *strings.Builder, words map[string][]string, zsh bool) {
	fn := "_" + strings.NewReplacer("-", "_", ".", "_").Replace(a.Name)
	if zsh {
		fmt.Fprintf(b, "#compdef %s\nautoload -U +X bashcompinit && bashcompinit\n", a.Name)
	}
	fmt.Fprintf(b, "%s() {\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} key=${COMP_WORDS[1]} words=\"\"\n", fn)
	var groups []string
	for _, n := range a.names() {
		if len(a.Commands[n].Subcommands) > 0 {
			groups = append(groups, n)
		}
	}
	if len(groups) > 0 { // past a group's subcommand, that subcommand's flags
		fmt.Fprintf(b, "\t[ \"$COMP_CWORD\" -gt 2 ] && case \"$key\" in %s) key=\"$key ${COMP_WORDS[2]}\" ;; esac\n", strings.Join(groups, "|"))
	}
	b.WriteString("\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(b, "\t\twords=%q\n", strings.Join(a.completionNames(), " "))
	b.WriteString("\telse\n\t\tcase \"$key\" in\n")
	keys := make([]string, 0, len(words))
	for k := range words {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if fl := words[k]; len(fl) > 0 {
			fmt.Fprintf(b, "\t\t%q) words=%q ;;\n", k, strings.Join(fl, " "))
		}
	}
	b.WriteString("\t\tesac\n\tfi\n")
	b.WriteString("\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n")
	b.WriteString("\t[ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- \"$cur\"))\n\treturn 0\n}\n")
	fmt.Fprintf(b, "complete -o filenames -F %s %s\n", fn, a.Name)
}

func (a *App) fish(b *strings.Builder, words map[string][]string) {
	fmt.Fprintf(b, "complete -c %s -n __fish_use_subcommand -f -a %q\n", a.Name, strings.Join(a.completionNames(), " "))
	keys := make([]string, 0, len(words))
	for k := range words {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		// "schema diff": seen schema, and diff.
		cond := fmt.Sprintf("complete -c %s -n '__fish_seen_subcommand_from %s'", a.Name, strings.ReplaceAll(k, " ", "; and __fish_seen_subcommand_from "))
		for _, f := range words[k] {
			switch {
			case strings.HasPrefix(f, "--"):
				fmt.Fprintf(b, "%s -l %s\n", cond, f[2:])
			case strings.HasPrefix(f, "-"):
				fmt.Fprintf(b, "%s -s %s\n", cond, f[1:])
			default:
				fmt.Fprintf(b, "%s -f -a %s\n", cond, f)
			}
		}
	}
}

func (a *App) completionNames() []string { return append(a.names(), "help", "version") }
