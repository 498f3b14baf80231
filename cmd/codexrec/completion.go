package main

import "github.com/codexrec/codexrec/internal/cli"

func init() {
	register(&cli.Command{
		Name:         "completion",
		Args:         "bash|zsh|fish",
		Summary:      "print a shell completion script: source <(codexrec completion bash), or put it where your shell loads completions",
		Interspersed: true,
		Operands:     &cli.Operands{Min: 1, Max: 1, Want: "one shell: bash, zsh or fish"},
		Run:          func(_ any, args []string, std cli.IO) error { return app.Completion(std.Out, args[0]) },
	})
}
