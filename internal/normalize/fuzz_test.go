package normalize_test

import (
	"encoding/json"
	"testing"

	"github.com/codexrec/codexrec/internal/normalize"
)

// FuzzMessage: any JSON normalises without panicking, deterministically, to a value
// equal to itself whose rendering is valid JSON; anything else is ErrNotJSON.
func FuzzMessage(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"result":{"thread":{"id":"01a226e1-07df-7722-a8ce-6cbb3abe7e16","createdAt":1,"path":"/tmp/x/2026-11-29"}}}`,
		`{"method":"m","params":{"arguments":"{\"a\":[1,{\"b\":\"<redacted:k:1>\"}]}","cwd":"/w","text":"/w/x 2026-11-29T10:00:00Z"}}`,
		`{"a":{"a":{"a":[[[]]]}},"a":null,"codexHome":["/h",1,true]}`,
		`[1,"x"]`, `"str"`, `{"k":"01A226E1-07DF-7722-A8CE-6CBB3ABE7E16-01a226e1-07df-7722-a8ce-6cbb3abe7e16"}`,
		`{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		n1 := normalize.MustNew(normalize.Options{Ignore: []string{"/**/x"}})
		n2 := normalize.MustNew(normalize.Options{Ignore: []string{"/**/x"}})
		v1, err := n1.Message(msg)
		if !json.Valid(msg) {
			if err == nil {
				t.Fatalf("invalid JSON %q normalised without error", msg)
			}
			return
		}
		if err != nil {
			t.Fatalf("valid JSON %q: %v", msg, err)
		}
		v2, _ := n2.Message(msg)
		if !normalize.Equal(v1, v2) || !normalize.Equal(v1, v1) {
			t.Fatalf("not deterministic: %s vs %s", normalize.Marshal(v1), normalize.Marshal(v2))
		}
		if out := normalize.Marshal(v1); !json.Valid(out) {
			t.Fatalf("Marshal gave invalid JSON %q for %q", out, msg)
		}
	})
}
