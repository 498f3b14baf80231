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

// DeltaStart is what a lookahead reads of a delta line: its stream and the first n
// bytes of its decoded text.
func DeltaStart(line []byte, n int) (stream string, text []byte, ok bool) {
	s, raw, b64, ok := deltaRaw(line)
	if !ok {
		return "", nil, false
	}
	return s, deltaPrefix(raw, b64, n), true
}

// LookaheadPrefix exposes lookaheadPrefix (Lookahead from a line's first bytes).
var LookaheadPrefix = lookaheadPrefix
