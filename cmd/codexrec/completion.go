package main

import "github.com/codexrec/codexrec/internal/cli"

func init() {
	register(&cli.Command{
		Name:         "completion",
		Args:         "bash|zsh|fish",
		Summary:      "print a shell completion script: source <(codexrec completion bash), or put it where your shell loads completions",
		Interspersed: true,
		Run: func(_ any, args []string, std cli.IO) error {
			if len(args) != 1 {
				return cli.Usagef("want one shell: bash, zsh or fish")
			}
			return app.Completion(std.Out, args[0])
		},
	})
}
