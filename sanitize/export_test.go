package sanitize

// IsGitleaksRule exposes isGitleaksRule to the external tests.
var IsGitleaksRule = isGitleaksRule

// NewOwnRulesOnly is New without gitleaks' rules, to measure what they cost.
func NewOwnRulesOnly(opts Options) (*Sanitizer, error) { return newSanitizer(opts, false) }

// GuardFindings is the guard on a file's content: everything it would redact and
// everything a scan would still flag.
func (z *Sanitizer) GuardFindings(data []byte) ([]Leak, error) {
	_, redacted, leaks, err := z.guardData(data)
	return append(redacted, leaks...), err
}
