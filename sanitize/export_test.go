package sanitize

// IsGitleaksRule exposes isGitleaksRule to the external tests.
var IsGitleaksRule = isGitleaksRule

// NewOwnRulesOnly is New without gitleaks' rules, to measure what they cost.
func NewOwnRulesOnly(opts Options) (*Sanitizer, error) { return newSanitizer(opts, false) }
