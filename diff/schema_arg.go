package diff

import (
	"fmt"
	"os"
	"strings"

	"github.com/codexrec/codexrec/schema"
)

// LoadSchemaArg loads a schema set named the way a user names one: an existing
// folder is a generated schema set (codex app-server generate-json-schema), anything
// else an embedded version.
func LoadSchemaArg(arg string, experimental bool) (*SchemaSet, error) {
	var set *schema.Set
	var err error
	if fi, statErr := os.Stat(arg); statErr == nil && fi.IsDir() {
		set, err = schema.LoadDir(arg, "")
	} else {
		set, err = schema.Load(arg)
		if err != nil && strings.ContainsAny(arg, `/\`) {
			err = fmt.Errorf("%s: not a folder (%v), and not an embedded version", arg, statErr)
		}
	}
	if err != nil {
		return nil, err
	}
	return LoadSchemaSet(set, experimental, arg)
}
