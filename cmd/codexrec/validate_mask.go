package main

import (
	"sync"

	"codexrec/sanitize"
	"codexrec/schema"
)

// wireMasker redacts secret-shaped text (API keys, tokens: the sanitizer's shape
// rules, as codex check does) in what validate and record's validation summary print
// from a recording or from the wire: method names, pointers (which hold member names),
// reasons (which quote method names and ids), the Codex version a session announced.
// A recording made with --no-sanitize, or a live session before its sanitize stage,
// may hold secrets; stdout and stderr must not.
var wireMasker = sync.OnceValue(func() *sanitize.Sanitizer {
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		return nil
	}
	return z
})

// maskWire masks one piece of text taken from a recording or the wire.
func maskWire(s string) string {
	if s == "" {
		return s
	}
	if z := wireMasker(); z != nil {
		return z.Text(s)
	}
	return "<text withheld: sanitizer unavailable>"
}

// printable is f with every text that came from the wire masked, for printing.
func printable(f schema.Finding) schema.Finding {
	f.Method, f.Pointer, f.Reason = maskWire(f.Method), maskWire(f.Pointer), maskWire(f.Reason)
	return f
}
