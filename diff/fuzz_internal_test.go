package diff

import (
	"testing"

	"github.com/codexrec/codexrec/internal/normalize"
)

// FuzzCompare: comparing two normalised messages never panics, and reports no change
// exactly when the values are equal.
func FuzzCompare(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1,2],"c":"{\"x\":1}"}`), []byte(`{"a":"1","b":[1],"c":"{\"x\":2}","d":null}`))
	f.Add([]byte(`[{"type":"x"}]`), []byte(`[{"type":"y"},{}]`))
	f.Add([]byte(`{"createdAt":1}`), []byte(`{"createdAt":null}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		va, err1 := normalize.MustNew(normalize.Options{}).Message(a)
		vb, err2 := normalize.MustNew(normalize.Options{}).Message(b)
		if err1 != nil || err2 != nil {
			return
		}
		changes := compareValues(nil, "", va, vb)
		if eq := normalize.Equal(va, vb); eq != (len(changes) == 0) {
			t.Fatalf("Equal = %v but %d changes for %s vs %s", eq, len(changes), normalize.Marshal(va), normalize.Marshal(vb))
		}
		var path []byte
		collectEnums(&path, va, func(ptr, v string) {})
	})
}
