package secretcorpus

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Verdict is what a recording did with one case.
type Verdict struct {
	Case Case
	// Leak names where a piece of a secret survived ("" if none); FalsePositive says a
	// near miss was changed.
	Leak          string
	FalsePositive bool
}

// Pieces are the parts of a secret's body judged: a third of it (at least 6
// characters) surviving anywhere counts as a leak, so does a half.
func Pieces(body string) []string {
	n := len(body)
	k := max(n/3, 6)
	if k >= n {
		return []string{body}
	}
	var out []string
	for i := 0; i < n; i += k {
		out = append(out, body[i:min(n, i+k)])
	}
	if last := out[len(out)-1]; len(last) < 6 && len(out) > 1 {
		out[len(out)-2] += last
		out = out[:len(out)-1]
	}
	return out
}

// ID is the item, process or request id a case's lines carry.
func caseID(c Case) string {
	for _, key := range []string{`"itemId":"`, `"processId":"`, `"turnId":"`, `"id":"`} {
		l := c.Lines[0]
		if i := strings.Index(l, key); i >= 0 {
			rest := l[i+len(key):]
			return rest[:strings.IndexByte(rest, '"')]
		}
	}
	return ""
}

// Judge reads a recording (JSON lines) and decides each case: a secret's piece found
// in any string of the case's frames (unescaped), in any base64 run inside one
// (decoded), or in the concatenation of the case's deltas is a leak; a near miss whose
// delta text is not recorded unchanged in both directions is a false positive. A piece
// of any secret anywhere else in the file (an annotation, the header) is a leak too:
// it is reported on the secret's first case.
func Judge(recording []byte, cases []Case) []Verdict { return JudgeDirs(recording, cases, 2) }

// JudgeDirs is Judge for a recording whose frames crossed in dirs directions (2
// for a relay that echoes, 1 for a server's output alone): a near miss must be
// recorded unchanged in that many.
func JudgeDirs(recording []byte, cases []Case, dirs int) []Verdict {
	type view struct {
		strs   []string
		deltas map[string]*strings.Builder
	}
	byID := map[string]*view{}
	var all []string // every string of every line, decoded views included
	for _, line := range bytes.Split(recording, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v any
		strs := []string{string(line)}
		if json.Unmarshal(line, &v) == nil {
			collect(v, &strs)
		}
		strs = withDecoded(strs)
		var e struct {
			Dir string
			Msg struct {
				ID     any
				Params struct {
					ItemID, ProcessID, TurnID string
					Delta, DeltaBase64        string
				}
			}
		}
		json.Unmarshal(line, &e)
		p := e.Msg.Params
		owned := false
		for _, id := range []string{p.ItemID, p.ProcessID, p.TurnID, strAny(e.Msg.ID)} {
			if id == "" {
				continue
			}
			owned = true
			vw := byID[id]
			if vw == nil {
				vw = &view{deltas: map[string]*strings.Builder{}}
				byID[id] = vw
			}
			vw.strs = append(vw.strs, strs...)
			if vw.deltas[e.Dir] == nil {
				vw.deltas[e.Dir] = &strings.Builder{}
			}
			vw.deltas[e.Dir].WriteString(p.Delta)
			if p.DeltaBase64 != "" {
				d, _ := base64.StdEncoding.DecodeString(p.DeltaBase64)
				vw.deltas[e.Dir].Write(d)
			}
			break
		}
		if !owned {
			all = append(all, strs...) // the header, annotations, the trailer
		}
	}
	var out []Verdict
	reported := map[string]bool{}
	for _, c := range cases {
		v := Verdict{Case: c}
		vw := byID[caseID(c)]
		if c.Negative != nil {
			want := c.Negative.Text
			n := 0
			if vw != nil {
				for _, b := range vw.deltas {
					if b.String() == want {
						n++
					}
				}
			}
			v.FalsePositive = n < dirs
			out = append(out, v)
			continue
		}
		if vw == nil {
			v.Leak = "case not recorded"
			out = append(out, v)
			continue
		}
		var hay []string
		hay = append(hay, vw.strs...)
		for _, b := range vw.deltas {
			hay = append(hay, withDecoded([]string{b.String()})...)
		}
	pieces:
		for _, p := range Pieces(c.Secret.Body) {
			for _, h := range hay {
				if strings.Contains(h, p) {
					v.Leak = "in its frames: " + Mask(p)
					break pieces
				}
			}
			if !reported[c.Secret.Provider] {
				for _, h := range all {
					if strings.Contains(h, p) {
						v.Leak = "elsewhere in the file: " + Mask(p)
						reported[c.Secret.Provider] = true
						break pieces
					}
				}
			}
		}
		out = append(out, v)
	}
	return out
}

// Mask shows a piece of a secret in a failure message without disclosing it.
func Mask(p string) string {
	if len(p) <= 4 {
		return "…"
	}
	return p[:4] + "…"
}

func strAny(v any) string {
	s, _ := v.(string)
	return s
}

func collect(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case []any:
		for _, e := range v {
			collect(e, out)
		}
	case map[string]any:
		for k, e := range v {
			*out = append(*out, k)
			collect(e, out)
		}
	}
}

// withDecoded adds to strs the decoding of every base64 or base64url run of 16 or more
// characters inside them.
func withDecoded(strs []string) []string {
	out := strs
	for _, s := range strs {
		for i := 0; i < len(s); {
			if !isB64(s[i]) {
				i++
				continue
			}
			j := i
			for j < len(s) && isB64(s[j]) {
				j++
			}
			if j-i >= 16 {
				run := strings.TrimRight(s[i:j], "=")
				for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
					for cut := 0; cut < 4; cut++ {
						r := run[:len(run)-len(run)%4]
						if cut > 0 {
							r = run[:len(run)-cut]
						}
						if d, err := enc.DecodeString(r); err == nil {
							out = append(out, string(d))
							break
						}
					}
				}
			}
			i = j
		}
	}
	return out
}

func isB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}
