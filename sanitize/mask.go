package sanitize

import "sync"

// MaskText replaces secret-shaped text in s by the shape and keyword rules alone (no
// known values, no path maps) and escapes what a terminal would interpret
// (EscapeTerminal): for what a tool prints from a recording or the wire,
// which may not have been sanitized (--no-sanitize, or a live frame before its
// sanitize stage). If no sanitizer can be built, the text is withheld.
func MaskText(s string) string {
	if s == "" {
		return s
	}
	if z := shapesOnly(); z != nil {
		return EscapeTerminal(z.Text(s))
	}
	return "<text withheld: sanitizer unavailable>"
}

var shapesOnly = sync.OnceValue(func() *Sanitizer {
	z, err := New(Options{})
	if err != nil {
		return nil
	}
	return z
})
