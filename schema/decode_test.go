package schema

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// gjsonValue is the decoder decode replaced, kept as the reference it must agree with.
func gjsonValue(r gjson.Result) any {
	switch r.Type {
	case gjson.String:
		return r.Str
	case gjson.Number:
		return json.Number(r.Raw)
	case gjson.True:
		return true
	case gjson.False:
		return false
	case gjson.Null:
		return nil
	}
	if r.IsArray() {
		out := []any{}
		r.ForEach(func(_, v gjson.Result) bool { out = append(out, gjsonValue(v)); return true })
		return out
	}
	out := map[string]any{}
	r.ForEach(func(k, v gjson.Result) bool { out[k.Str] = gjsonValue(v); return true })
	return out
}

// TestDecodeAgreesWithGjson: decode gives the values the previous gjson-based decoder
// gave, on every message of the fixtures and on escapes, surrogates, numbers and
// whitespace the fixtures may not have.
func TestDecodeAgreesWithGjson(t *testing.T) {
	lines := []string{
		`{"a":"\u00e9\ud83d\ude00\n\t\"\\\/","b":[1,-2.5e+3,0,1E400,true,false,null,{},[]],"c\u0041":{"d":{"e":[[[]]]}}}`,
		" \t{ \"a\" : [ 1 , 2 ] , \"b\" : { } }\r",
		`{"dup":1,"dup":"second"}`,
		`{"q":"ends in \"","bs":"\\","mix":"a\\\"b\\","\"key\"":"\\\\\""}`,
		`{"bad":"\ud800 lone","x":"é ü 日本"}`,
		`[]`, `"s"`, `12`, `null`,
	}
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "hermetic", "*", "*.jsonl"))
	for _, p := range paths {
		rec, err := recorder.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range rec.Frames(wire.ClientToServer, wire.ServerToClient) {
			lines = append(lines, string(wire.Content(e.Line)))
		}
	}
	if len(lines) < 100 {
		t.Fatalf("only %d lines", len(lines))
	}
	for _, l := range lines {
		got, err := decode([]byte(l))
		if err != nil {
			t.Fatalf("decode(%q): %v", l, err)
		}
		if want := gjsonValue(gjson.Parse(l)); !reflect.DeepEqual(got, want) {
			t.Fatalf("decode(%q) = %#v, want %#v", l, got, want)
		}
	}
	for _, bad := range []string{`{"a":`, `{"a" 1}`, `[1,`, `{"a":tru}`, `"open`, `{} x`, ``} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%q): no error", bad)
		}
	}
}
