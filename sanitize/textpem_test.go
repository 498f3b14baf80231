package sanitize_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/sanitize"
)

// TestTextKeyLinesRedactedOnce: inside a private key block begun on an earlier line
// of the text stream, a line is redacted as key, keeping the bytes a line that is not
// JSON keeps (a quote here), and a second pass leaves the result as it is (it
// redacted the placeholder again, under a new hash: found by FuzzFrame).
func TestTextKeyLinesRedactedOnce(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	z.Frame([]byte("-----BEGIN RSA PRIVATE KEY-----\n"))
	for _, in := range []string{`0"`, "MIIEow\\AB\n", "ab\tcd\n"} {
		out, reds := z.Frame([]byte(in))
		if len(reds) == 0 || !strings.Contains(string(out), "<redacted:private-key:") {
			t.Fatalf("%q inside the key block: %q, not redacted", in, out)
		}
		again, reds2 := z.Frame(out)
		if !bytes.Equal(again, out) || len(reds2) != 0 {
			t.Fatalf("%q: redacted %q, then again %q", in, out, again)
		}
	}
}

// TestForgetStreamsClosesTextKey: a key block left open on the text stream is part
// of what ForgetStreams forgets (a new session's first line is not key).
func TestForgetStreamsClosesTextKey(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	z.Frame([]byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"))
	z.ForgetStreams()
	in := []byte("plain words of a new session\n")
	if out, reds := z.Frame(in); !bytes.Equal(out, in) || len(reds) != 0 {
		t.Fatalf("after ForgetStreams: %q -> %q", in, out)
	}
}
