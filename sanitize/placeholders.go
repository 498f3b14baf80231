package sanitize

import "bytes"

// valueKind says what kind of value a rule flagged, which decides how it may be
// recognised as a placeholder.
type valueKind uint8

const (
	// generic: a value after a keyword, a URL password, a gitleaks value with no
	// fixed prefix. Placeholder words are looked for in the whole value.
	generic valueKind = iota
	// prefixed: the value starts with a provider's prefix (ghp_, sk-, AKIA...): only
	// what follows the prefix as a whole can make it a placeholder.
	prefixed
	// pem: a PEM block. Never a placeholder: real keys hold fixed runs (OpenSSH's
	// header is full of AAAA) and their base64 body may spell any short word.
	pem
)

// documentedExamples are example credentials from providers' documentation, kept
// whole (never as a part of a longer value).
var documentedExamples = map[string]bool{
	"AKIAIOSFODNN7EXAMPLE":                     true,
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": true,
	"ASIAIOSFODNN7EXAMPLE":                     true,
	"je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY": true,
}

// isPlaceholderValue reports whether a value a rule flagged is, as a whole, one of
// the obvious non-secrets documentation and examples are full of: a documented
// example credential, a value made of one repeated character or of x's and zeros
// (ghp_xxxx…, sk-000…), a fill-in (<your-token>, ${TOKEN}, {{ token }},
// YOUR_API_KEY, your-token-here), a value marked EXAMPLE, or a publishable key. A run
// of one character inside a longer value says nothing (every OpenSSH key has
// AAAAAAAA in its header), and a PEM block is never a placeholder.
func isPlaceholderValue(v []byte, kind valueKind) bool {
	if kind == pem || len(v) == 0 {
		return false
	}
	if documentedExamples[string(v)] {
		return true
	}
	// Publishable keys are meant to be public (Stripe, Clerk, Mapbox pk.).
	for _, p := range []string{"pk_live_", "pk_test_", "pk."} {
		if bytes.HasPrefix(v, []byte(p)) {
			return true
		}
	}
	body := v
	if kind == prefixed {
		body = afterPrefix(v)
	}
	if fillerOnly(body) {
		return true
	}
	switch body[0] {
	case '<':
		return body[len(body)-1] == '>' || bytes.IndexByte(body, '>') < 0 // <your-token>, <token
	case '$', '%', '@':
		// ${VAR}, $VAR, $(cmd), %VAR%, @VAR@: a reference, not a value.
		return len(body) > 1 && (body[1] == '{' || body[1] == '(' || isVarName(body[1:]) || isVarName(bytes.Trim(body, string(body[0]))))
	case '{':
		return bytes.HasPrefix(body, []byte("{{"))
	}
	low := bytes.ToLower(body)
	for _, w := range placeholderStarts {
		if bytes.HasPrefix(low, []byte(w)) {
			return true
		}
	}
	if kind == prefixed {
		// Beyond its prefix, a provider's token is random: only a whole-value marker.
		return bytes.HasSuffix(body, []byte("EXAMPLE")) || bytes.HasSuffix(low, []byte("_here")) || bytes.HasSuffix(low, []byte("-here"))
	}
	if bytes.Contains(body, []byte("EXAMPLE")) {
		return true
	}
	for _, w := range placeholderWords {
		if bytes.Contains(low, []byte(w)) {
			return true
		}
	}
	return false
}

// afterPrefix is v without a provider's prefix: up to three leading runs of letters
// and digits (at most 12 long) each ending in '_', '-' or '.' (sk-proj-, ghp_,
// xoxb-, dp.st.), as long as something follows.
func afterPrefix(v []byte) []byte {
	for range 3 {
		i := 0
		for i < len(v) && i <= 12 && isAlnum(v[i]) {
			i++
		}
		if i == 0 || i > 12 || i+1 >= len(v) || (v[i] != '_' && v[i] != '-' && v[i] != '.') {
			break
		}
		v = v[i+1:]
	}
	return v
}

// fillerOnly reports whether v, at least 4 bytes, is one character repeated
// (aaaaaaaa, ********) or made only of the fillers people type for a value they
// leave out: x's, zeros, dots, stars and the separators between groups.
func fillerOnly(v []byte) bool {
	if len(v) < 4 {
		return false
	}
	same, filler := true, true
	for _, c := range v {
		same = same && c == v[0]
		switch c {
		case 'x', 'X', '0', '*', '.', '#', '-', '_':
		default:
			filler = false
		}
	}
	return same || filler
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isVarName reports whether v is an environment variable's name (FOO_BAR, foo_bar).
func isVarName(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	upper, lower := true, true
	for _, c := range v {
		switch {
		case c >= 'A' && c <= 'Z':
			lower = false
		case c >= 'a' && c <= 'z':
			upper = false
		case c == '_' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return upper || lower
}

// placeholderStarts begin a fill-in (compared lower-cased, at the value's start).
var placeholderStarts = []string{"your_", "your-", "yourapikey", "yourtoken", "yoursecret", "<your", "changeme", "change_me", "replace_me", "replaceme", "replace-me", "insert_", "insert-", "placeholder", "dummy", "fake_", "fake-", "redacted", "example_", "example-", "xxx"}

// placeholderWords mark a fill-in anywhere in a value without a provider prefix
// (compared lower-cased).
var placeholderWords = []string{
	"your_api_key", "your-api-key", "yourapikey", "your_token", "your-token", "your_secret", "your-secret",
	"your_key", "your-key", "your_password", "your-password", "<your", "${", "{{", "changeme", "change_me",
	"replace_me", "replaceme", "placeholder", "redacted", "insert_", "dummy", "fake_", "_here", "example",
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
	if isPlaceholderValue(pass, generic) {
		return true
	}
	h := bytes.ToLower(host)
	local := bytes.Equal(h, []byte("localhost")) || bytes.HasPrefix(h, []byte("127.")) || bytes.HasSuffix(h, []byte(".example.com")) || bytes.Equal(h, []byte("example.com"))
	return local && len(pass) < 12
}
