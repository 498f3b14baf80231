package sanitize

import (
	"encoding/json"
	"strings"
	"testing"
)

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

// TestWholeNumbers: of a recording line, only the numbers of its message that hold a
// known secret become the placeholder; the entry's own numbers, strings holding the
// digits and other numbers stay as they were, and the line stays JSON.
func TestWholeNumbers(t *testing.T) {
	const secret = "98765432109876543"
	z, err := New(Options{Secrets: []Secret{{Name: "N", Value: secret}}})
	if err != nil {
		t.Fatal(err)
	}
	in := `{"type":"frame","seq":98765432109876543,"msg":{"id":1,"params":{"a":98765432109876543,"b":"98765432109876543","c":[-198765432109876543e2,3.5],"d":"\"98765432109876543\\"}}}`
	out := string(z.wholeNumbers([]byte(in)))
	if !json.Valid([]byte(out)) {
		t.Fatalf("not JSON: %s", out)
	}
	var v struct {
		Seq json.Number
		Msg struct {
			ID     int
			Params struct {
				A, B, D string
				C       []json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	p := v.Msg.Params
	if v.Seq.String() != secret || v.Msg.ID != 1 || p.B != secret || p.D != `"`+secret+`\` {
		t.Errorf("changed what it must keep: %s", out)
	}
	if !strings.Contains(p.A, "guard-unlocated") || !strings.Contains(string(p.C[0]), "guard-unlocated") || string(p.C[1]) != "3.5" {
		t.Errorf("numbers: %s", out)
	}
}

// FuzzWholeNumbers: whatever the line, wholeNumbers keeps JSON JSON.
func FuzzWholeNumbers(f *testing.F) {
	f.Add([]byte(`{"type":"frame","seq":1,"msg":{"a":98765432109876543,"b":"x\"98765432109876543"}}`))
	f.Add([]byte(`{"type":"frame","seq":1,"msg":[98765432109876543e-98765432109876543]}`))
	z, err := New(Options{Secrets: []Secret{{Name: "N", Value: "98765432109876543"}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := z.wholeNumbers(in)
		if json.Valid(in) && !json.Valid(out) {
			t.Fatalf("%s -> %s", in, out)
		}
	})
}

// TestFrameRedactsSecretNumber: the sanitizer turns a number holding a known secret
// into the secret's placeholder string (one redaction), leaves other numbers and the
// strings around it, and a second pass changes nothing.
func TestFrameRedactsSecretNumber(t *testing.T) {
	const secret = "98765432109876543"
	z, err := New(Options{Secrets: []Secret{{Name: "N", Value: secret}}})
	if err != nil {
		t.Fatal(err)
	}
	in := `{"id":3,"method":"m","params":{"a":98765432109876543,"b":[1.5,-98765432109876543],"c":"x"}}`
	out, reds := z.Frame([]byte(in))
	if !json.Valid(out) || strings.Contains(string(out), secret) || len(reds) != 2 || reds[0].Rule != "known-secret" {
		t.Fatalf("%s -> %s, %+v", in, out, reds)
	}
	if !strings.Contains(string(out), `"id":3,`) || !strings.Contains(string(out), `[1.5,"<redacted:known-secret:`) || !strings.Contains(string(out), `"c":"x"`) {
		t.Errorf("changed more than the numbers: %s", out)
	}
	if again, reds := z.Frame(out); string(again) != string(out) || len(reds) != 0 {
		t.Errorf("second pass: %s, %+v", again, reds)
	}
}
