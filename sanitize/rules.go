package sanitize

import (
	"bytes"
	"regexp"
)

// A shape rule finds secrets by their form, written from the providers' public
// formats. Each has literals that every match contains: a text holding none of them
// costs one substring search per literal, never a regular expression.
type shapeRule struct {
	name string
	// lits must occur (case-sensitively) in a match; lower ones are searched for in the
	// ASCII-lowercased text, for case-insensitive rules.
	lits, lower []string
	re          *regexp.Regexp
	// group is the submatch that is the secret (0: the whole match).
	group int
	// accept, when set, vets a match (an entropy or character-class check).
	accept func(v []byte) bool
}

var shapeRules = []*shapeRule{
	{name: "anthropic-key", lits: []string{"sk-ant-"},
		re: regexp.MustCompile(`\bsk-ant-(?:api|admin|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,}`)},
	{name: "openai-key", lits: []string{"sk-"},
		re:     regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`),
		accept: func(v []byte) bool { return !bytes.HasPrefix(v, []byte("sk-ant-")) && hasDigit(v) }},
	{name: "jwt", lits: []string{"eyJ"},
		re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)},
	{name: "github-token", lits: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})`)},
	{name: "aws-access-key-id", lits: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`)},
	{name: "private-key", lits: []string{"PRIVATE KEY"},
		re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z)`)},
	{name: "slack-token", lits: []string{"xox"},
		re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{name: "slack-webhook", lits: []string{"hooks.slack.com/"},
		re: regexp.MustCompile(`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}`)},
	{name: "google-api-key", lits: []string{"AIza"},
		re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{name: "google-oauth-token", lits: []string{"ya29."},
		re: regexp.MustCompile(`\bya29\.[0-9A-Za-z_-]{20,}`)},
	{name: "google-client-secret", lits: []string{"GOCSPX-"},
		re: regexp.MustCompile(`\bGOCSPX-[0-9A-Za-z_-]{20,}`)},
	{name: "authorization", lower: []string{"authorization"},
		re:    regexp.MustCompile(`(?i)\bauthorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest)\s+)?([A-Za-z0-9._~+/=-]{8,})`),
		group: 1, accept: notPlaceholderWord},
	{name: "bearer-token", lower: []string{"bearer"},
		re:    regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`),
		group: 1, accept: func(v []byte) bool { return hasDigit(v) && hasLetter(v) }},
	{name: "url-credentials", lits: []string{"://"},
		re:    regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^/\s:@"'<>]{1,256}:([^/\s@"'<>]{3,256})@`),
		group: 1},
	{name: "url-credentials", lower: []string{"token=", "key=", "secret=", "password=", "passwd=", "sig=", "signature=", "code=", "credential=", "auth="},
		re:    regexp.MustCompile(`[?&](?i:access_token|token|api_key|apikey|key|secret|client_secret|password|passwd|sig|signature|refresh_token|id_token|auth|code|x-amz-signature|x-amz-credential|x-amz-security-token)=([^&\s#"'<>]{6,})`),
		group: 1},
}

// keywordRule names: identifiers that end in one of these keywords, followed by ':' or
// '=', introduce a secret when the value is high-entropy enough (see keywordSpans).
var keywordSuffixes = []struct{ suffix, rule string }{
	{"secret_access_key", "aws-secret-key"}, {"secretaccesskey", "aws-secret-key"}, {"secret-access-key", "aws-secret-key"},
	{"password", "keyword-secret"}, {"passwd", "keyword-secret"}, {"passphrase", "keyword-secret"},
	{"secret", "keyword-secret"}, {"token", "keyword-secret"}, {"apikey", "keyword-secret"},
	{"api_key", "keyword-secret"}, {"api-key", "keyword-secret"}, {"access_key", "keyword-secret"},
	{"accesskey", "keyword-secret"}, {"secret_key", "keyword-secret"}, {"secretkey", "keyword-secret"},
	{"private_key", "keyword-secret"}, {"privatekey", "keyword-secret"}, {"credential", "keyword-secret"},
	{"credentials", "keyword-secret"},
}

// keywordLower is what the lowercased text must contain for keywordSpans to run.
var keywordLower = []string{"secret", "token", "passw", "passphrase", "key", "credential"}

// RuleNames lists every rule the sanitizer and the guard apply, for the header and docs.
func RuleNames() []string {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	add("known-secret")
	for _, f := range secretFields {
		add(f.rule)
	}
	add("env-value")
	add("secret-answer")
	for _, r := range shapeRules {
		add(r.name)
	}
	add("aws-secret-key")
	add("keyword-secret")
	return names
}

// secretFields are protocol fields whose string values are secrets, from the
// app-server schema (LoginAccountParams, ChatgptAuthTokensRefreshResponse,
// AttestationGenerateResponse, Bedrock credentials, ...).
var secretFields = []struct{ key, rule string }{
	{"apiKey", "api-key"}, {"bedrockApiKey", "api-key"},
	{"accessToken", "access-token"}, {"personalAccessToken", "access-token"}, {"bearerToken", "access-token"},
	{"idToken", "id-token"}, {"refreshToken", "refresh-token"},
	{"secretAccessKey", "aws-secret-key"}, {"accessKeyId", "aws-access-key-id"},
	{"sessionToken", "session-token"}, {"token", "auth-token"},
	{"password", "password"}, {"clientSecret", "client-secret"},
}

func fieldRule(key []byte) string {
	for _, f := range secretFields {
		if string(key) == f.key {
			return f.rule
		}
	}
	return ""
}

func hasDigit(v []byte) bool {
	for _, c := range v {
		if c >= '0' && c <= '9' {
			return true
		}
	}
	return false
}

func hasLetter(v []byte) bool {
	for _, c := range v {
		if c|0x20 >= 'a' && c|0x20 <= 'z' {
			return true
		}
	}
	return false
}

// notPlaceholderWord rejects the prose words that follow "Authorization:" in docs and
// logs ("Authorization: required").
func notPlaceholderWord(v []byte) bool { return hasDigit(v) || len(v) >= 20 }

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	var counts [256]int
	for _, c := range v {
		counts[c]++
	}
	n := float64(len(v))
	var h float64
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * log2(p)
		}
	}
	return h
}
