package replay

import "github.com/codexrec/codexrec/internal/normalize"

// normalizedEqual compares a recorded body with a live one after normalisation. Each
// side gets a fresh normalizer, so ids become symbols by order of appearance within
// the body: two messages about different threads look alike here, which is why
// candidates that match exactly are preferred before this comparison is tried.
// Sanitizer placeholders in the recorded body stand for any text (normalize.EqualFilled).
func normalizedEqual(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	na, err := normalize.MustNew(normalize.Options{}).Message(a)
	if err != nil {
		return false
	}
	nb, err := normalize.MustNew(normalize.Options{}).Message(b)
	if err != nil {
		return false
	}
	return normalize.EqualFilled(na, nb)
}
