package jsonschema_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/codexrec/codexrec/internal/jsonschema"
)

// TestMetaschemasOnFirstUse: in a fresh process, the first schemas compiled (from
// several goroutines at once, each with its own compiler, as sessions do) are still
// checked against their draft's metaschema: an invalid one is refused with a
// SchemaValidationError, a valid one compiles and validates. It runs in a process of
// its own: other tests compile the metaschemas first.
func TestMetaschemasOnFirstUse(t *testing.T) {
	if os.Getenv("JSONSCHEMA_LAZY_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestMetaschemasOnFirstUse$", "-test.count", "1", "-test.v")
		cmd.Env = append(os.Environ(), "JSONSCHEMA_LAZY_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestMetaschemasOnFirstUse") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	drafts := []struct {
		draft *jsonschema.Draft
		url   string
	}{
		{jsonschema.Draft4, "http://json-schema.org/draft-04/schema#"},
		{jsonschema.Draft7, "http://json-schema.org/draft-07/schema#"},
		{jsonschema.Draft2019, "https://json-schema.org/draft/2019-09/schema"},
		{jsonschema.Draft2020, "https://json-schema.org/draft/2020-12/schema"},
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(drafts))
	for i := range 4 {
		for _, d := range drafts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- compileBoth(d.draft, d.url, i)
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// compileBoth compiles an invalid schema (refused by the metaschema) and a valid one
// (which must then reject a wrong instance) of draft d.
func compileBoth(d *jsonschema.Draft, url string, i int) error {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(d)
	if err := c.AddResource("bad.json", map[string]any{"$schema": url, "type": 5.0}); err != nil {
		return err
	}
	_, err := c.Compile("bad.json")
	var sve *jsonschema.SchemaValidationError
	if !errors.As(err, &sve) {
		return errors.New(d.String() + ": an invalid schema compiled without a metaschema's finding: " + errString(err))
	}
	if err := c.AddResource("good.json", map[string]any{"$schema": url, "type": "object", "required": []any{"id"}}); err != nil {
		return err
	}
	sch, err := c.Compile("good.json")
	if err != nil {
		return err
	}
	if sch.Validate(map[string]any{"id": float64(i)}) != nil || sch.Validate(map[string]any{}) == nil {
		return errors.New(d.String() + ": the valid schema does not validate as written")
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
