package sanitize

// IsGitleaksRule exposes isGitleaksRule to the external tests.
var IsGitleaksRule = isGitleaksRule
