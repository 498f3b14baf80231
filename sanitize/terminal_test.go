package sanitize_test

import (
	"testing"

	"github.com/codexrec/codexrec/sanitize"
)

func TestEscapeTerminal(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\n\twith tabs", "plain text\n\twith tabs"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\x07title`},
		{"over\rwrite", `over\x0dwrite`},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"ünïcödé ok", "ünïcödé ok"},
	} {
		if got := sanitize.EscapeTerminal(c.in); got != c.want {
			t.Errorf("EscapeTerminal(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// MaskText escapes too, after masking.
	in := "\x1b[2Jkey sk-proj-" + "Ab3xZ9Ab3xZ9Ab3xZ9Ab3xZ9Ab3xZ9Ab3xZ9" + " end"
	got := sanitize.MaskText(in)
	if got == in || got[:4] != `\x1b` || len(got) > len(in)+20 {
		t.Errorf("MaskText(%q) = %q", in, got)
	}
}
