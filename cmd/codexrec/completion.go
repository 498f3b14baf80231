package main

func init() {
	register(&command{
		name:         "completion",
		args:         "bash|zsh|fish",
		summary:      "print a shell completion script: source <(codexrec completion bash), or put it where your shell loads completions",
		interspersed: true,
		run: func(_ any, args []string, std stdio) error {
			if len(args) != 1 {
				return usagef("want one shell: bash, zsh or fish")
			}
			return app.Completion(std.out, args[0])
		},
	})
}
