package main

import (
	"github.com/codexrec/codexrec/fixtures/mcpserver"
	"github.com/codexrec/codexrec/internal/cli"
)

func init() {
	register(&cli.Command{Name: "mcp-fixture", Operands: cli.None(), Run: func(_ any, args []string, std cli.IO) error {
		return mcpserver.Serve(std.In, std.Out)
	}, Summary: "serve the capture scenarios' small MCP server on stdin/stdout (capture starts it for codex)"})
}
