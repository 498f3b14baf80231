package normalize

import (
	"fmt"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// pattern is a parsed JSON pointer with wildcards: "*" matches one segment, "**" any
// number of segments (including none).
type pattern = jsonx.Glob

func parsePattern(p string) (pattern, error) {
	g, err := jsonx.ParseGlob(p)
	if err != nil {
		return nil, fmt.Errorf("ignore %w", err)
	}
	return g, nil
}
