package secretcorpus_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
)

var update = flag.Bool("update", false, "remake the committed keys with the real tools")

// TestRealKeys checks the committed keys are what their tools make (a BEGIN line of
// the kind's type, a body, an END line), and that the tools, when installed, still
// make keys of that shape. With -update it remakes the committed keys.
func TestRealKeys(t *testing.T) {
	committed := corpus.CommittedKeys()
	for _, k := range corpus.KeyKinds {
		t.Run(k.Name, func(t *testing.T) {
			fresh, err := corpus.GenerateKey(context.Background(), k.Name, t.TempDir())
			switch {
			case errors.Is(err, corpus.ErrNoTool):
				if *update {
					t.Fatalf("%s: %v", k.Tool, err)
				}
				t.Logf("%s: %v; checking the committed key only", k.Tool, err)
			case err != nil:
				t.Fatal(err)
			default:
				checkShape(t, "generated", fresh)
				if *update {
					if err := os.WriteFile(filepath.Join("keys", k.Name+".pem"), []byte(fresh), 0o644); err != nil {
						t.Fatal(err)
					}
					committed[k.Name] = fresh
				}
			}
			key, ok := committed[k.Name]
			if !ok {
				t.Fatalf("no committed key %s (run with -update)", k.Name)
			}
			checkShape(t, "committed", key)
		})
	}
}

func checkShape(t *testing.T, what, key string) {
	t.Helper()
	if !strings.HasPrefix(key, "-----BEGIN ") || !strings.Contains(key, "PRIVATE KEY") || !strings.Contains(key, "\n-----END ") {
		t.Errorf("%s key is not a PEM private key block:\n%.80s", what, key)
	}
	if n := len(corpus.KeyBody(key)); n < 1 {
		t.Errorf("%s key has %d body lines", what, n)
	}
}
