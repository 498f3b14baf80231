package main

import "github.com/codexrec/codexrec/fixtures/mcpserver"

func init() {
	register(&command{name: "mcp-fixture", run: func(_ any, args []string, std stdio) error {
		if len(args) > 0 {
			return usagef("no arguments expected")
		}
		return mcpserver.Serve(std.in, std.out)
	}, summary: "serve the capture scenarios' small MCP server on stdin/stdout (capture starts it for codex)"})
}
