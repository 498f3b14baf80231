package replay

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/wire"
)

// maxDiffLines bounds a diagnostic's diff; the rest is counted.
const maxDiffLines = 20

// structuralDiff lists how got differs from want, one JSON pointer per line, leaving
// out what never has to match: the top-level id and the "jsonrpc" member.
func structuralDiff(want, got []byte) []string {
	wv, ok1 := decode(wire.Content(want))
	gv, ok2 := decode(wire.Content(got))
	if !ok1 || !ok2 {
		if string(wire.Content(want)) == string(wire.Content(got)) {
			return nil
		}
		return []string{fmt.Sprintf(": %s -> %s", short(wire.Content(want)), short(wire.Content(got)))}
	}
	if wm, ok := wv.(map[string]any); ok {
		wv = without(wm, "id", "jsonrpc")
	}
	if gm, ok := gv.(map[string]any); ok {
		gv = without(gm, "id", "jsonrpc")
	}
	var out []string
	diffValues(&out, "", wv, gv)
	if len(out) > maxDiffLines {
		n := len(out) - maxDiffLines
		out = append(out[:maxDiffLines], fmt.Sprintf("... and %d more", n))
	}
	return out
}

func without(m map[string]any, keys ...string) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	for _, k := range keys {
		delete(c, k)
	}
	return c
}

func diffValues(out *[]string, ptr string, w, g any) {
	if len(*out) > maxDiffLines {
		return
	}
	switch wt := w.(type) {
	case map[string]any:
		gt, ok := g.(map[string]any)
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
			wv, inW := wt[k]
			gv, inG := gt[k]
			switch {
			case !inG:
				*out = append(*out, fmt.Sprintf("%s: missing (expected %s)", p, shortValue(wv)))
			case !inW:
				*out = append(*out, fmt.Sprintf("%s: unexpected %s", p, shortValue(gv)))
			default:
				diffValues(out, p, wv, gv)
			}
		}
		return
	case []any:
		gt, ok := g.([]any)
		if !ok {
			break
		}
		n := min(len(wt), len(gt))
		for i := 0; i < n; i++ {
			diffValues(out, fmt.Sprintf("%s/%d", ptr, i), wt[i], gt[i])
		}
		if len(wt) != len(gt) {
			*out = append(*out, fmt.Sprintf("%s: %d elements, expected %d", orRoot(ptr), len(gt), len(wt)))
		}
		return
	default:
		if jsonEqualValues(w, g) {
			return
		}
	}
	*out = append(*out, fmt.Sprintf("%s: %s, expected %s", orRoot(ptr), shortValue(g), shortValue(w)))
}

func jsonEqualValues(a, b any) bool {
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return string(ab) == string(bb)
}

func orRoot(p string) string {
	if p == "" {
		return "(message)"
	}
	return p
}

func shortValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return short(b)
}

// short cuts long text for diagnostics.
func short(b []byte) string {
	const limit = 160
	if len(b) <= limit {
		return string(b)
	}
	return string(b[:limit]) + fmt.Sprintf("... (%d bytes)", len(b))
}
