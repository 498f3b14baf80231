package sanitize

import "testing"

// TestFindsAcrossStrings: a secret whose value holds a quote, or that a JSON text
// can hold outside its strings (a number), is looked for in the raw message and
// found there; an ordinary secret is left to the walk (no form to look for).
func TestFindsAcrossStrings(t *testing.T) {
	for _, c := range []struct {
		secret, msg string
		want        bool
	}{
		{`token1234","x":"rest5678`, `{"params":{"k":"token1234","x":"rest5678"}}`, true},
		{`98765432109876543`, `{"params":{"k":98765432109876543}}`, true},
		{`98765432109876543`, `{"params":{"k":1}}`, false},
		{`-1.5e+10, 2.25`, `{"params":{"k":[-1.5e+10, 2.25]}}`, true},
		{"sk-ordinary-0123456789", `{"params":{"k":"sk-ordinary-0123456789"}}`, false},
	} {
		z, err := New(Options{Secrets: []Secret{{Name: "S", Value: c.secret}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := z.FindsAcrossStrings([]byte(c.msg)); got != c.want {
			t.Errorf("secret %q in %s: %v, want %v", c.secret, c.msg, got, c.want)
		}
		if got := z.guardSanitizer().FindsAcrossStrings([]byte(c.msg)); got != c.want {
			t.Errorf("the guard's sanitizer: secret %q in %s: %v, want %v", c.secret, c.msg, got, c.want)
		}
	}
}
