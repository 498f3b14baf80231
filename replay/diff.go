package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/internal/normalize"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

// maxDiffLines bounds a diagnostic's diff; the rest is counted.
const maxDiffLines = 20

// A diagnostic shows what the user must act on: of two messages of the same kind and
// method, the fields of the body that still differ once what the match mode accepts
// is set aside (identity fields; with normalisation, ids, times and paths), each with
// the live value and the recorded one as their JSON text (<cwd>, never \u003ccwd\u003e).
// Values a secret rule matches are masked before anything is printed.

// tree is one side of a diff at one place: the decoded value, the value to print
// (decoded from the masked line) and the normalised value when the mode normalises.
type tree struct {
	raw, shown, norm any
	normalized       bool
}

func (t tree) member(k string) (tree, bool) {
	rm, _ := t.raw.(map[string]any)
	v, ok := rm[k]
	c := tree{raw: v}
	if sm, isMap := t.shown.(map[string]any); isMap {
		c.shown = sm[k]
	}
	if o, isObj := t.norm.(normalize.Object); t.normalized && isObj {
		c.norm, c.normalized = o.Get(k)
	}
	return c, ok
}

func (t tree) elem(i int) tree {
	c := tree{raw: t.raw.([]any)[i]}
	if sa, ok := t.shown.([]any); ok && i < len(sa) {
		c.shown = sa[i]
	}
	if na, ok := t.norm.([]any); t.normalized && ok && i < len(na) {
		c.norm, c.normalized = na[i], true
	}
	return c
}

// bodyDiff lists how the live message's body differs from the recorded one's, one
// JSON pointer per line ("/params/input/0/text: live, recorded ..."); normalized
// sets aside what params mode accepts. Both must be of the same kind and method.
func bodyDiff(want, got Message, normalized bool) []string {
	root := "/" + bodyPath(want.Msg.Kind)
	w, ok1 := bodyTree(want, normalized)
	g, ok2 := bodyTree(got, normalized)
	if !ok1 || !ok2 {
		return nil
	}
	var out []string
	diffTrees(&out, root, w, g)
	if len(out) > maxDiffLines {
		n := len(out) - maxDiffLines
		out = append(out[:maxDiffLines], fmt.Sprintf("... and %d more", n))
	}
	return out
}

func bodyPath(k wire.Kind) string {
	switch k {
	case wire.KindResponse:
		return "result"
	case wire.KindError:
		return "error"
	}
	return "params"
}

// bodyTree decodes m's body three ways: as sent, masked for printing, normalised.
func bodyTree(m Message, normalized bool) (tree, bool) {
	body := m.Body()
	var t tree
	if body != nil {
		v, ok := decode(body)
		if !ok {
			return t, false
		}
		t.raw = v
		withoutIdentity(m.Msg.Method, t.raw)
		t.shown = v
		if masked := maskedBody(m); !bytes.Equal(masked, body) {
			if sv, ok := decode(masked); ok {
				t.shown = sv
				withoutIdentity(m.Msg.Method, t.shown)
			} else {
				t.shown = "<withheld>"
			}
		}
	}
	if normalized {
		nb := identityless(m.Msg.Method, body)
		if nb == nil {
			t.normalized = true
		} else if nv, err := normalize.MustNew(normalize.Options{}).Message(nb); err == nil {
			t.norm, t.normalized = nv, true
		}
	}
	return t, true
}

func diffTrees(out *[]string, ptr string, w, g tree) {
	if len(*out) > maxDiffLines {
		return
	}
	if w.normalized && g.normalized {
		if normalize.EqualFilled(w.norm, g.norm) {
			return
		}
	} else if jsonEqualValues(w.raw, g.raw) {
		return
	}
	switch wt := w.raw.(type) {
	case map[string]any:
		gt, ok := g.raw.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(wt)+len(gt))
		for k := range wt {
			keys = append(keys, k)
		}
		for k := range gt {
			if _, ok := wt[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := ptr + "/" + jsonx.EscapeToken(k)
			wc, inW := w.member(k)
			gc, inG := g.member(k)
			switch {
			case !inG:
				*out = append(*out, fmt.Sprintf("%s: absent, recorded %s", p, shownValue(wc.shown)))
			case !inW:
				*out = append(*out, fmt.Sprintf("%s: %s, not recorded", p, shownValue(gc.shown)))
			default:
				diffTrees(out, p, wc, gc)
			}
		}
		return
	case []any:
		gt, ok := g.raw.([]any)
		if !ok {
			break
		}
		for i := 0; i < min(len(wt), len(gt)); i++ {
			diffTrees(out, fmt.Sprintf("%s/%d", ptr, i), w.elem(i), g.elem(i))
		}
		if len(wt) != len(gt) {
			*out = append(*out, fmt.Sprintf("%s: %d elements, recorded %d", ptr, len(gt), len(wt)))
		}
		return
	}
	*out = append(*out, fmt.Sprintf("%s: %s, recorded %s", ptr, shownValue(g.shown), shownValue(w.shown)))
}

func jsonEqualValues(a, b any) bool {
	return bytes.Equal(marshal(a), marshal(b))
}

// marshal encodes v as JSON without HTML escaping, so <cwd> stays <cwd>.
func marshal(v any) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return []byte(fmt.Sprint(v))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func shownValue(v any) string { return short(marshal(v)) }

// masker masks secrets in what a diagnostic prints, by the sanitizer's shape and
// protocol-field rules. A Sanitizer keeps state across frames (secrets split over
// deltas), so its use is serialised and the state forgotten after each message.
var masker = sync.OnceValue(func() *maskerState {
	z, err := sanitize.New(sanitize.Options{})
	return &maskerState{z: z, err: err}
})

type maskerState struct {
	mu  sync.Mutex
	z   *sanitize.Sanitizer
	err error
}

// redactionHash is the per-process key a placeholder carries; it would make every
// run's diagnostics differ, and names nothing the user can act on.
var redactionHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(<redacted:[a-z0-9-]+):[0-9a-f]+>`) })

// mask returns line's content with secrets masked, or a notice when no masking is
// possible.
func mask(line []byte) []byte {
	m := masker()
	if m.err != nil {
		return []byte(`"<message withheld: sanitizer unavailable>"`)
	}
	m.mu.Lock()
	out, _ := m.z.Frame(wire.Content(line))
	m.z.ForgetStreams()
	m.mu.Unlock()
	in := wire.Content(line)
	if bytes.Equal(out, in) {
		return out
	}
	return redactionHash().ReplaceAllFunc(out, func(p []byte) []byte {
		if bytes.Contains(in, p) {
			return p // the recording's own placeholder, printed as it is
		}
		return redactionHash().ReplaceAll(p, []byte("$1>"))
	})
}

// maskedBody is m's body from the masked line.
func maskedBody(m Message) []byte {
	return Message{Msg: m.Msg, Line: mask(m.Line)}.Body()
}

// short cuts long text for diagnostics, at a character boundary.
func short(b []byte) string {
	const limit = 160
	if len(b) <= limit {
		return string(b)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + fmt.Sprintf("... (%d bytes)", len(b))
}
