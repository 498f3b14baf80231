package sanitize_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
	"github.com/codexrec/codexrec/sanitize"
)

// deltaTexts decodes the delta text of each sanitized line.
func deltaTexts(t *testing.T, lines [][]byte) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		if !gjson.ValidBytes(l) {
			t.Fatalf("sanitized line is not JSON: %q", l)
		}
		if d := gjson.GetBytes(l, "params.deltaBase64"); d.Exists() {
			b, err := base64.StdEncoding.DecodeString(d.Str)
			if err != nil {
				t.Fatalf("deltaBase64 no longer base64: %v", err)
			}
			out = append(out, string(b))
			continue
		}
		out = append(out, gjson.GetBytes(l, "params.delta").Str)
	}
	return out
}

// sanitizeStream sanitizes lines in order as record does: each knowing the next.
func sanitizeStream(z *sanitize.Sanitizer, lines []string) [][]byte {
	z.ForgetStreams()
	var out [][]byte
	for i, l := range lines {
		var next []byte
		if i+1 < len(lines) {
			next = []byte(lines[i+1])
		}
		o, _ := z.FrameFollowedBy([]byte(l), true, next)
		out = append(out, o)
	}
	return out
}

// leftover returns a piece of body that survives in any text or in their
// concatenation, or "".
func leftover(body string, texts []string) string {
	all := strings.Join(texts, "")
	for _, p := range corpus.Pieces(body) {
		if strings.Contains(all, p) {
			return p
		}
		for _, tx := range texts {
			if strings.Contains(tx, p) {
				return p
			}
		}
	}
	return ""
}

// TestSplitAtEveryCut cuts a few representative secrets, after a keyword assignment,
// at every byte (inside the keyword, the prefix and the body), into two deltas of one
// stream, as text and as deltaBase64: no third of the secret survives, and the text
// before the assignment and after the secret is kept.
func TestSplitAtEveryCut(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "split"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"openai-project": true, "github-classic": true, "stripe-secret": true, "aws-access-key": true,
		"huggingface": true, "slack-webhook": true, "jwt": true, "url-password": true, "twilio-account-sid": true, "gitlab": true}
	n := 0
	for _, s := range corpus.Secrets() {
		if !want[s.Provider] {
			continue
		}
		n++
		text := "$ env | grep KEY\nDEPLOY_KEY=" + s.Value + "\ndone\n"
		for k := 1; k < len(text); k++ {
			for mode, lines := range map[string][]string{
				"text":        corpus.SplitAt(text, "item-"+s.Provider, k),
				"deltaBase64": corpus.SplitBase64At(text, "proc-"+s.Provider, k),
			} {
				texts := deltaTexts(t, sanitizeStream(z, lines))
				if p := leftover(s.Body, texts); p != "" {
					t.Fatalf("%s as %s cut at %d: %q survives in %q", s.Provider, mode, k, corpus.Mask(p), texts)
				}
				all := strings.Join(texts, "")
				if !strings.HasPrefix(all, "$ env | grep KEY\n") || !strings.HasSuffix(all, "\ndone\n") {
					t.Fatalf("%s as %s cut at %d: text around the secret changed: %q", s.Provider, mode, k, texts)
				}
			}
		}
	}
	if n != len(want) {
		t.Fatalf("found %d of %d providers in the corpus", n, len(want))
	}
}

// TestPEMOverManyDeltas: a private key streamed over 2, 3 and 10 deltas (cut at
// arbitrary bytes, BEGIN and END lines included) is redacted from BEGIN to END in
// every delta, and the output after it is kept.
func TestPEMOverManyDeltas(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "pem"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range corpus.Secrets() {
		if !s.PEM {
			continue
		}
		text := "$ cat id_key\n" + s.Value + "\n$ echo done\ndone\n"
		for _, n := range []int{2, 3, 10} {
			for _, b64 := range []bool{false, true} {
				var lines []string
				for k := range n {
					piece := text[k*len(text)/n : (k+1)*len(text)/n]
					if b64 {
						lines = append(lines, corpus.SplitBase64At(piece, "p", len(piece))[0])
					} else {
						lines = append(lines, corpus.SplitDeltas(piece, "pem-item", 1)[0])
					}
				}
				texts := deltaTexts(t, sanitizeStream(z, lines))
				name := fmt.Sprintf("%s over %d deltas (base64 %v)", s.Provider, n, b64)
				if p := leftover(s.Body, texts); p != "" {
					t.Errorf("%s: %q survives in %q", name, corpus.Mask(p), texts)
				}
				for _, line := range strings.Split(strings.TrimSpace(s.Body), "\n") {
					if strings.Contains(strings.Join(texts, ""), line[:16]) {
						t.Errorf("%s: a body line survives", name)
					}
				}
				if all := strings.Join(texts, ""); !strings.HasSuffix(all, "\n$ echo done\ndone\n") || !strings.HasPrefix(all, "$ cat id_key\n") {
					t.Errorf("%s: the text around the key changed: %q", name, all)
				}
			}
		}
	}
}
