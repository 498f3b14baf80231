package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/codexrec/codexrec/wire"
)

// The result type of a request is named by the protocol's request definitions, not by
// the schema files: generate-json-schema writes one file per result type and no union
// of responses, so nothing in the files ties account/logout to LogoutAccountResponse.
// versions/methods.json holds those definitions as read from the protocol source; a
// method it does not list (one newer than the table) falls back to its params type with
// Params replaced by Response.

type resultKey struct {
	from wire.Direction
	name string
}

// requestTable is versions/methods.json.
type requestTable struct {
	Source  string `json:"source"`
	Methods []struct {
		Method string `json:"method"`
		From   string `json:"from"` // "client" or "server"
		Params string `json:"params"`
		Result string `json:"result"`
	} `json:"methods"`
}

var readResultTypes = sync.OnceValues(func() (map[resultKey]string, error) {
	b, err := embedded.ReadFile("versions/methods.json")
	if err != nil {
		return nil, fmt.Errorf("schema: embedded method table: %w", err)
	}
	var t requestTable
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("schema: embedded method table: %w", err)
	}
	out := make(map[resultKey]string, len(t.Methods))
	for i, m := range t.Methods {
		var from wire.Direction
		switch m.From {
		case "client":
			from = wire.ClientToServer
		case "server":
			from = wire.ServerToClient
		default:
			return nil, fmt.Errorf("schema: embedded method table: methods/%d: from %q is neither client nor server", i, m.From)
		}
		if m.Method == "" || m.Result == "" {
			return nil, fmt.Errorf("schema: embedded method table: methods/%d: method and result are required", i)
		}
		out[resultKey{from, m.Method}] = m.Result
	}
	return out, nil
})

// resultType names the result type of request name sent by from, given its params
// type, when a schema file of that name exists in index ("" otherwise: not checked).
func resultType(from wire.Direction, name, params string, index map[string]string) string {
	if table, err := readResultTypes(); err == nil {
		if r, ok := table[resultKey{from, name}]; ok {
			if _, ok := index[r]; ok {
				return r
			}
			return ""
		}
	}
	if strings.HasSuffix(params, "Params") {
		r := strings.TrimSuffix(params, "Params") + "Response"
		if _, ok := index[r]; ok {
			return r
		}
	}
	return ""
}
