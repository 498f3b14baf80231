package schema

import (
	"encoding/json"
	"errors"

	"github.com/tidwall/gjson"
)

// decode parses a message into the values jsonschema validates (map[string]any,
// []any, string, bool, nil, json.Number). It is several times cheaper than
// encoding/json with UseNumber, which matters on the proxy's path; numbers keep their
// exact text so range checks see what was on the wire.
// The caller has already checked that b is JSON (wire.Classify does, for every kind
// but raw), so it is not validated twice: on a 200 KB output delta that is a third of
// the cost.
func decode(b []byte) (any, error) {
	var err error
	v := value(gjson.ParseBytes(b), 0, &err)
	return v, err
}

// maxDepth is how deeply values may nest, as in encoding/json.
const maxDepth = 10000

func value(r gjson.Result, depth int, err *error) any {
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
	if depth > maxDepth {
		*err = errors.New("nested too deeply")
		return nil
	}
	if r.IsArray() {
		out := []any{}
		r.ForEach(func(_, v gjson.Result) bool {
			out = append(out, value(v, depth+1, err))
			return *err == nil
		})
		return out
	}
	out := make(map[string]any, 8)
	r.ForEach(func(k, v gjson.Result) bool {
		out[k.Str] = value(v, depth+1, err)
		return *err == nil
	})
	return out
}
