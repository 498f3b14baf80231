package sanitize

import "bytes"

// isPlaceholderValue reports whether a value a rule flagged is one of the obvious
// non-secrets documentation and examples are full of: the documented example
// credentials (AKIAIOSFODNN7EXAMPLE, wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY), a long
// run of one repeated character (ghp_xxxxxxxx..., sk-...0000000000), and
// YOUR_API_KEY-style fill-ins, and publishable keys.
func isPlaceholderValue(v []byte) bool {
	if bytes.Contains(v, []byte("EXAMPLE")) || bytes.Contains(v, []byte("example")) {
		return true
	}
	// Publishable keys are meant to be public (Stripe, Clerk, Mapbox pk.).
	for _, p := range []string{"pk_live_", "pk_test_", "pk."} {
		if bytes.HasPrefix(v, []byte(p)) {
			return true
		}
	}
	run, best := 1, 1
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1] {
			run++
			best = max(best, run)
		} else {
			run = 1
		}
	}
	if best >= 8 || len(v) >= 4 && best*2 >= len(v) {
		return true
	}
	low := bytes.ToLower(v)
	for _, w := range placeholderWords {
		if bytes.Contains(low, []byte(w)) {
			return true
		}
	}
	return false
}

// placeholderWords mark a fill-in rather than a value (compared lower-cased).
var placeholderWords = []string{
	"your_api_key", "your-api-key", "yourapikey", "your_token", "your-token", "your_secret", "your-secret",
	"your_key", "your-key", "your_password", "your-password", "<your", "${", "{{", "changeme", "change_me",
	"replace_me", "replaceme", "placeholder", "redacted", "insert_", "dummy", "fake_", "_here",
}

// isPlaceholderPassword reports whether the password of a URL's userinfo is a
// documentation stand-in (postgres://user:password@localhost/db), or the URL points at
// this machine or a documentation domain with a trivial password.
func isPlaceholderPassword(pass, host []byte) bool {
	low := bytes.ToLower(pass)
	for _, w := range []string{"password", "passwd", "pass", "pwd", "secret", "changeme", "xxx", "***", "<password>", "$password", "${password}", "pw", "test", "postgres", "root", "admin", "guest"} {
		if string(low) == w {
			return true
		}
	}
	if isPlaceholderValue(pass) {
		return true
	}
	h := bytes.ToLower(host)
	local := bytes.Equal(h, []byte("localhost")) || bytes.HasPrefix(h, []byte("127.")) || bytes.HasSuffix(h, []byte(".example.com")) || bytes.Equal(h, []byte("example.com"))
	return local && len(pass) < 12
}
