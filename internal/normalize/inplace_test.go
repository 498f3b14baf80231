package normalize_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/normalize"
)

// TestMessageInPlace: normalising in place gives what Message gives, message after
// message of every fixture, with one Normalizer each (symbols numbered alike).
func TestMessageInPlace(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/*/*/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	msgs := 0
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		a, b := normalize.MustNew(normalize.Options{}), normalize.MustNew(normalize.Options{})
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			m := gjson.GetBytes(sc.Bytes(), "msg")
			if !m.IsObject() {
				continue
			}
			want, err1 := a.Message([]byte(m.Raw))
			got, err2 := b.MessageInPlace([]byte(m.Raw))
			if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %s:\nin place %v %v\ncopied   %v %v", p, m.Raw, got, err2, want, err1)
			}
			msgs++
		}
		f.Close()
	}
	if msgs < 100 {
		t.Fatalf("only %d messages", msgs)
	}
}

// MarshalPrefix is a prefix of Marshal at least n bytes long (or all of it), for
// every cut of a value with strings, JSON text, objects and arrays.
func TestMarshalPrefix(t *testing.T) {
	n := normalize.MustNew(normalize.Options{})
	v, err := n.Message([]byte(`{"jsonrpc":"2.0","method":"x","params":{"a":["é\"\n\u0001",1,true,null,{"b":"{\"c\":[1,2,\"ü\"]}"}],"text":"lorem ipsum dolor"}}`))
	if err != nil {
		t.Fatal(err)
	}
	full := normalize.Marshal(v)
	for i := 0; i <= len(full)+2; i++ {
		got := normalize.MarshalPrefix(v, i)
		if !bytes.HasPrefix(full, got) || len(got) < min(i, len(full)) {
			t.Fatalf("MarshalPrefix(%d) = %s, not a prefix of %s at least %d long", i, got, full, i)
		}
	}
}
