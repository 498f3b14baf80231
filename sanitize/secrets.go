package sanitize

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// MinSecretLen is the shortest known secret value searched for: shorter values would
// match ordinary text everywhere. New rejects shorter ones with an error naming them.
const MinSecretLen = 8

// Secret is a known secret value and where it came from (an environment variable's or
// a file's name, used in messages; the value never is).
type Secret struct {
	Name  string
	Value string
}

// needle is one encoding of a known secret to search for.
type needle struct {
	text   []byte
	secret int // index into Sanitizer.secrets
	form   string
}

// encodings returns the forms a secret can take on the wire or in a recording: as is,
// JSON-escaped (once and twice: a raw line is escaped again inside a recording; \b and
// \f both short, as serde_json writes them, and as \u escapes),
// URL-encoded, base64 and base64url at each of the three alignments it can have inside
// a longer encoded payload, and, for the guard only, its SHA-256 in hex.
func encodings(v string, guard bool) map[string]string {
	forms := map[string]string{"plain": v}
	esc := string(jsonx.AppendContent(nil, v))
	forms["json"] = esc
	forms["json2"] = string(jsonx.AppendContent(nil, esc))
	// serde_json, the app-server's encoder, writes backspace and form feed as \b and \f.
	if serde := string(jsonx.ShortBF.AppendContent(nil, v)); serde != esc {
		forms["json-serde"] = serde
		forms["json2-serde"] = string(jsonx.AppendContent(nil, serde))
	}
	forms["url-query"] = url.QueryEscape(v)
	forms["url-path"] = url.PathEscape(v)
	for name, enc := range map[string]*base64.Encoding{"base64": base64.StdEncoding, "base64url": base64.URLEncoding} {
		for shift := 0; shift < 3; shift++ {
			if s := alignedBase64(enc, v, shift); len(s) >= MinSecretLen {
				forms[name+string(rune('0'+shift))] = s
			}
		}
	}
	if guard {
		sum := sha256.Sum256([]byte(v))
		h := hex.EncodeToString(sum[:])
		forms["sha256"] = h
		forms["SHA256"] = strings.ToUpper(h)
	}
	return forms
}

// alignedBase64 is the part of base64(prefix + v + suffix) that depends on v alone,
// where prefix is shift bytes long: the characters every such encoding shares.
func alignedBase64(enc *base64.Encoding, v string, shift int) string {
	pre := strings.Repeat("\x00", shift)
	s := enc.EncodeToString([]byte(pre + v))
	s = strings.TrimRight(s, "=")
	// Drop characters that mix in bits of the prefix...
	skip := [3]int{0, 2, 3}[shift]
	// ...and the last one or two that mix in bits of whatever follows.
	total := shift + len(v)
	keep := total / 3 * 4
	if r := total % 3; r != 0 {
		keep += r // full chars of the tail: r bytes give r+1 chars, the last partial
	}
	if keep > len(s) {
		keep = len(s)
	}
	if skip >= keep {
		return ""
	}
	return s[skip:keep]
}
