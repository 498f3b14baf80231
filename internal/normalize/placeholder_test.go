package normalize_test

import (
	"maps"
	"testing"

	"github.com/codexrec/codexrec/internal/normalize"
)

func TestEqualFilled(t *testing.T) {
	val := func(s string) any {
		v, err := normalize.MustNew(normalize.Options{}).Message([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name             string
		recorded, live   string
		equal, filledEqu bool
	}{
		{"same", `{"a":"x","b":[1]}`, `{"b":[1],"a":"x"}`, true, true},
		{"placeholder filled in", `{"text":"see <cwd>/a.txt"}`, `{"text":"see /tmp/w/a.txt"}`, false, true},
		{"secret placeholder", `{"key":"<redacted:openai-key:3f9a1c>"}`, `{"key":"sk-live"}`, false, true},
		{"inside JSON text and arrays", `{"args":"{\"p\":[\"<cwd>/x\"]}"}`, `{"args":"{\"p\":[\"/w/x\"]}"}`, false, true},
		{"rest differs", `{"text":"see <cwd>/a.txt"}`, `{"text":"see /tmp/w/b.txt"}`, false, false},
		{"placeholder in live only", `{"text":"/tmp/w"}`, `{"text":"<cwd>"}`, false, false},
		{"placeholder fills nothing", `{"text":"<cwd>"}`, `{"text":""}`, false, false},
		{"type differs", `{"text":"<cwd>"}`, `{"text":1}`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := val(tt.recorded), val(tt.live)
			if got := normalize.Equal(a, b); got != tt.equal {
				t.Errorf("Equal = %v, want %v", got, tt.equal)
			}
			if got := normalize.EqualFilled(a, b); got != tt.filledEqu {
				t.Errorf("EqualFilled = %v, want %v", got, tt.filledEqu)
			}
		})
	}
}

func TestPlaceholderValues(t *testing.T) {
	tests := []struct {
		recorded, live string
		want           map[string]string
	}{
		{"<cwd>/a.txt", "/tmp/x/a.txt", map[string]string{"<cwd>": "/tmp/x"}},
		{"<codex-home> and <cwd>!", "/h and /w!", map[string]string{"<codex-home>": "/h", "<cwd>": "/w"}},
		{"no placeholder", "no placeholder", nil},
		{"<cwd>/a.txt", "/tmp/x/b.txt", nil},
	}
	for _, tt := range tests {
		if got := normalize.PlaceholderValues(tt.recorded, tt.live); !maps.Equal(got, tt.want) {
			t.Errorf("PlaceholderValues(%q, %q) = %v, want %v", tt.recorded, tt.live, got, tt.want)
		}
	}
}
