package sanitize

import (
	"bytes"
	"slices"
	"sync"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// A shape rule finds secrets by their form, written from the providers' public
// formats. Each has literals that every match contains: a text holding none of them
// costs one substring search per literal, never a regular expression.
type shapeRule struct {
	name string
	// lits must occur (case-sensitively) in a match; lower ones are searched for in the
	// ASCII-lowercased text, for case-insensitive rules.
	lits, lower []string
	re          *lazyRE
	// group is the submatch that is the secret (0: the whole match).
	group int
	// word says a match must start at a word boundary (checked by hand, since the
	// text may be raw JSON where the n of an escaped newline precedes it).
	word bool
	// accept, when set, vets a match (an entropy or character-class check).
	accept func(v []byte) bool
	// The expression runs on a window around each literal found, never on the whole
	// text: before is how far a match may start ahead of its literal, after how far
	// it usually ends past it (the window doubles while a match reaches its end).
	before, after int
	// run: a match is one run of token characters from its literal on, so the
	// window ends where the run does (however long the token).
	run bool
	// pre, when set, rules out an occurrence of a literal (at text[i:]) cheaply,
	// before any expression runs.
	pre func(text []byte, i int) bool
	// minToken, when set, says pre is tokenAtLeast(minToken): an occurrence is ruled
	// out by the first byte within minToken of it that is no word byte or dash.
	minToken int
	// find, when set, replaces re: the match around the literal at text[i:].
	find func(text []byte, i int) (s, e int, ok bool)
}

// kind is what the rule's values are, for placeholder checks.
func (r *shapeRule) kind() valueKind {
	switch {
	case r.name == "private-key":
		return pem
	case r.run:
		return prefixed
	}
	return generic
}

// userinfoAhead reports whether the URL whose "://" is at text[i:] has an '@' before
// its path, that is credentials in its authority.
func userinfoAhead(text []byte, i int) bool {
	for j := i + 3; j < len(text) && j < i+520; j++ {
		switch text[j] {
		case '@':
			return true
		case '/', ' ', '"', '\\', '\n', '?', '#':
			return false
		}
	}
	return false
}

var shapeRules = []*shapeRule{
	{name: "anthropic-key", run: true, word: true, before: 0, after: 64, lits: []string{"sk-ant-"},
		re: lazyRegexp(`sk-ant-(?:api|admin|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,}`)},
	{name: "openai-key", run: true, word: true, before: 0, after: 64, lits: []string{"sk-"},
		re:     lazyRegexp(`sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`),
		accept: func(v []byte) bool { return !bytes.HasPrefix(v, []byte("sk-ant-")) && hasDigit(v) }},
	{name: "jwt", run: true, word: true, before: 0, after: 256, lits: []string{"eyJ"},
		re: lazyRegexp(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)},
	{name: "github-token", run: true, word: true, before: 0, after: 64, lits: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: lazyRegexp(`(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})`)},
	{name: "aws-access-key-id", run: true, word: true, before: 0, after: 24, lits: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		re: lazyRegexp(`(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`)},
	// A PEM or armored private key block, BEGIN line to END line (or to the end of
	// the text), matched by hand (pemKeyAt): the header as gitleaks' private-key rule
	// reads it, any case; a regular expression would read a long key several times.
	{name: "private-key", lower: []string{"private key"}, find: pemKeyAt},
	{name: "slack-token", run: true, word: true, before: 0, after: 64, lits: []string{"xox"},
		re: lazyRegexp(`xox[abposr]-[A-Za-z0-9-]{10,}`)},
	{name: "slack-webhook", before: 8, after: 64, lits: []string{"hooks.slack.com/"},
		re: lazyRegexp(`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}`)},
	{name: "google-api-key", run: true, word: true, before: 0, after: 64, lits: []string{"AIza"},
		re: lazyRegexp(`AIza[0-9A-Za-z_-]{35}`)},
	{name: "google-oauth-token", run: true, word: true, before: 0, after: 64, lits: []string{"ya29."},
		re: lazyRegexp(`ya29\.[0-9A-Za-z_-]{20,}`)},
	{name: "google-client-secret", run: true, word: true, before: 0, after: 64, lits: []string{"GOCSPX-"},
		re: lazyRegexp(`GOCSPX-[0-9A-Za-z_-]{20,}`)},
	// Formats gitleaks has no rule for, or knows only after a provider keyword.
	{name: "twilio-account-sid", run: true, word: true, after: 40, lits: []string{"AC"},
		re: lazyRegexp(`AC[0-9a-f]{32}\b`)},
	{name: "discord-webhook", before: 32, after: 128, lits: []string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/"},
		re: lazyRegexp(`discord(?:app)?\.com/api/webhooks/([0-9]{17,20}/[A-Za-z0-9_-]{60,68})`), group: 1},
	{name: "discord-bot-token", run: true, word: true, after: 96, lits: []string{"MT", "Nj", "Nz", "OD", "OT"},
		re: lazyRegexp(`(?:MT|Nj|Nz|OD|OT)[A-Za-z0-9_-]{22,26}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}`)},
	{name: "tailscale-key", run: true, word: true, after: 96, lits: []string{"tskey-"},
		re: lazyRegexp(`tskey-[a-z]+-[A-Za-z0-9]+-[A-Za-z0-9]{20,}`)},
	{name: "figma-token", run: true, word: true, after: 64, lits: []string{"figd_", "figo_", "figr_"},
		re: lazyRegexp(`fig[dor]_[A-Za-z0-9_-]{40,}`)},
	{name: "groq-key", run: true, word: true, after: 64, lits: []string{"gsk_"},
		re: lazyRegexp(`gsk_[A-Za-z0-9]{48,}`)},
	{name: "xai-key", run: true, word: true, after: 96, lits: []string{"xai-"},
		re: lazyRegexp(`xai-[A-Za-z0-9]{70,}`)},
	{name: "replicate-token", run: true, word: true, after: 48, lits: []string{"r8_"},
		re: lazyRegexp(`r8_[A-Za-z0-9]{37}\b`)},
	{name: "langsmith-key", run: true, word: true, after: 64, lits: []string{"lsv2_"},
		re: lazyRegexp(`lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}`)},
	{name: "docker-hub-token", run: true, word: true, after: 64, lits: []string{"dckr_pat_", "dckr_oat_"},
		re: lazyRegexp(`dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}`)},
	{name: "supabase-token", run: true, word: true, after: 64, lits: []string{"sbp_"},
		re: lazyRegexp(`sbp_[0-9a-f]{40}`)},
	{name: "buildkite-token", run: true, word: true, after: 64, lits: []string{"bkua_"},
		re: lazyRegexp(`bkua_[0-9a-f]{40}`)},
	{name: "stripe-webhook-secret", run: true, word: true, after: 64, lits: []string{"whsec_"},
		re: lazyRegexp(`whsec_[A-Za-z0-9+/=]{32,}`)},
	{name: "telegram-bot-token", word: true, before: 10, after: 40, lits: []string{":AA"},
		re: lazyRegexp(`[0-9]{8,10}:AA[A-Za-z0-9_-]{33}`)},
	{name: "dropbox-token", run: true, word: true, after: 160, lits: []string{"sl."},
		re: lazyRegexp(`sl\.[A-Za-z0-9_-]{130,}`)},
	{name: "newrelic-key", run: true, word: true, after: 40, lits: []string{"NRAK-"},
		re: lazyRegexp(`NRAK-[A-Z0-9]{27}`)},
	{name: "fireworks-key", run: true, word: true, after: 64, lits: []string{"fw_"},
		re: lazyRegexp(`fw_[A-Za-z0-9]{20,}`), accept: func(v []byte) bool { return hasDigit(v[3:]) && hasUpper(v) }},
	{name: "together-key", run: true, word: true, after: 64, lits: []string{"tgp_v1_"},
		re: lazyRegexp(`tgp_v1_[A-Za-z0-9_-]{30,}`)},
	{name: "netlify-token", run: true, word: true, after: 64, lits: []string{"nfp_", "nfc_", "nfo_", "nfu_", "nfb_"},
		re: lazyRegexp(`nf[pcoub]_[A-Za-z0-9]{36,}`), accept: func(v []byte) bool { return hasDigit(v[4:]) }},
	{name: "render-key", run: true, word: true, after: 64, lits: []string{"rnd_"},
		re: lazyRegexp(`rnd_[A-Za-z0-9]{24,}`), accept: func(v []byte) bool { return hasDigit(v[4:]) && hasUpper(v) }},
	{name: "doppler-token", run: true, word: true, after: 96, lits: []string{"dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."},
		re: lazyRegexp(`dp\.(?:st|ct|sa|scim|audit)\.(?:[A-Za-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}`)},
	{name: "vault-token", run: true, word: true, after: 64, lits: []string{"hvs.", "hvb.", "hvr."},
		re: lazyRegexp(`hv[sbr]\.[A-Za-z0-9_-]{24,}`), accept: func(v []byte) bool { return hasDigit(v[4:]) && hasUpper(v[4:]) }},
	{name: "mailgun-key", run: true, word: true, after: 48, lits: []string{"key-"},
		re: lazyRegexp(`key-[0-9a-f]{32}\b`)},
	{name: "pagerduty-token", run: true, word: true, after: 32, lits: []string{"u+"},
		re:     lazyRegexp(`u\+[A-Za-z0-9_-]{18,20}\b`),
		accept: func(v []byte) bool { return hasDigit(v) && hasUpper(v) && hasLower(v[2:]) }},
	{name: "okta-token", run: true, word: true, after: 48, lits: []string{"00"}, pre: tokenAtLeast(42), minToken: 42,
		re: lazyRegexp(`(00[A-Za-z0-9_-]{40})(?:[^A-Za-z0-9_-]|\z)`), group: 1,
		accept: func(v []byte) bool { return hasDigit(v[2:]) && hasUpper(v) && hasLower(v) }},
	{name: "airtable-token", run: true, word: true, after: 96, lits: []string{"pat"}, pre: func(text []byte, i int) bool { return i+17 < len(text) && text[i+17] == '.' },
		re: lazyRegexp(`pat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b`)},
	{name: "mapbox-secret-token", run: true, word: true, after: 128, lits: []string{"sk.eyJ"},
		re: lazyRegexp(`sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`)},
	{name: "notion-token", run: true, word: true, after: 64, lits: []string{"secret_", "ntn_"},
		re:     lazyRegexp(`(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,50})\b`),
		accept: func(v []byte) bool { return hasDigit(v) && hasUpper(v) }},
	{name: "azure-storage-key", before: 0, after: 320, lower: []string{"keyname"},
		re:    lazyRegexp(`(?i)keyName\\*"\s*:\s*\\*"key[0-9]\\*"[^}]{0,300}?value\\*"\s*:\s*\\*"([A-Za-z0-9+/]{86}==)`),
		group: 1},
	// Secrets after command-line flags, in commands echoed into output, stderr and
	// error messages.
	{name: "mysql-password", before: 0, after: 256, lower: []string{"mysql", "mariadb"},
		re:    lazyRegexp(`(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?\s-p([^\s'"\\-][^\s'"\\]{3,})`),
		group: 1, accept: cliValue},
	{name: "cli-secret", before: 1, after: 128, lower: []string{"--password", "--passwd", "--token", "--api-key", "--apikey", "--secret", "--client-secret", "--access-token", "--auth-token", "--account-key", "--secret-key", "--private-key", "--access-key"},
		re:    lazyRegexp(`(?:^|[\s'"])--(?:password|passwd|token|api-key|apikey|secret|client-secret|access-token|auth-token|account-key|secret-key|private-key|access-key)(?:=|\s+)['"]?([^\s'"\\]{6,})`),
		group: 1, accept: cliValue},
	{name: "vault-login-token", before: 0, after: 128, lower: []string{"vault login"},
		re:    lazyRegexp(`vault login\s+(?:-[\w-]+=\S+\s+)*(?:token=)?([A-Za-z0-9._-]{20,})`),
		group: 1, accept: cliValue},
	{name: "registry-password", before: 0, after: 256, lower: []string{"docker login", "podman login", "nerdctl login", "buildah login", "skopeo login", "oras login", "helm registry login"},
		re:    lazyRegexp(`(?:docker|podman|nerdctl|buildah|skopeo|oras|helm registry) login\b[^\n]{0,200}?\s(?:-p|--password)(?:=|\s+)['"]?([^\s'"\\]{4,})`),
		group: 1, accept: cliValue},
	{name: "azure-storage-key", before: 0, after: 128, lower: []string{"accountkey="},
		re: lazyRegexp(`(?i:AccountKey)=([A-Za-z0-9+/]{86}==)`), group: 1},
	{name: "authorization", word: true, before: 0, after: 64, lower: []string{"authorization"},
		re:    lazyRegexp(`(?i)authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest)\s+)?([A-Za-z0-9._~+/=-]{8,})`),
		group: 1, accept: notPlaceholderWord},
	{name: "bearer-token", word: true, before: 0, after: 64, lower: []string{"bearer"},
		re:    lazyRegexp(`(?i)bearer\s+([A-Za-z0-9._~+/-]{16,}=*)`),
		group: 1, accept: func(v []byte) bool { return hasDigit(v) && hasLetter(v) }},
	{name: "url-credentials", word: true, before: 22, after: 520, lits: []string{"://"}, pre: userinfoAhead,
		re:    lazyRegexp(`[A-Za-z][A-Za-z0-9+.-]{1,20}://[^/\s:@"'<>]{1,256}:([^/\s@"'<>]{3,256})@`),
		group: 1},
	{name: "url-credentials", before: 24, after: 64, lower: []string{"token=", "key=", "secret=", "password=", "passwd=", "sig=", "signature=", "code=", "credential=", "auth="},
		re:    lazyRegexp(`[?&](?i:access_token|token|api_key|apikey|key|secret|client_secret|password|passwd|sig|signature|refresh_token|id_token|auth|code|x-amz-signature|x-amz-credential|x-amz-security-token)=([^&\s#"'<>]{6,})`),
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
	{"credentials", "keyword-secret"}, {"restricted_key", "keyword-secret"}, {"authkey", "keyword-secret"},
	{"auth_key", "keyword-secret"}, {"account_key", "keyword-secret"}, {"accountkey", "keyword-secret"},
	{"signing_key", "keyword-secret"}, {"encryption_key", "keyword-secret"}, {"master_key", "keyword-secret"},
	{"storage_key", "keyword-secret"}, {"storagekey", "keyword-secret"},
}

// keywordEnds are the last words of keywordSuffixes: keywordSpans looks only at
// separators right after one of them.
var keywordEnds = []string{"key", "password", "passwd", "passphrase", "secret", "token", "credential", "credentials"}

// keywordTriggers are what the prefilter looks for: a keyword followed by a
// separator, possibly after a quote (escaped inside JSON strings) or a space.
// keywordJSONTriggers are the forms JSON's own structure has ("apiKey": ...); they
// count only in text that is not a raw JSON line.
var keywordTriggers, keywordJSONTriggers []string

func init() {
	for _, k := range keywordEnds {
		for _, sep := range []string{":", "=", " :", " =", `\":`, `\" :`, `\"=`, "':", "'=", "' :", "\t:", "\t="} {
			keywordTriggers = append(keywordTriggers, k+sep)
		}
		keywordJSONTriggers = append(keywordJSONTriggers, k+`":`, k+`" :`, k+`"=`)
	}
	for _, k := range keywordEnds {
		keywordEndsB = append(keywordEndsB, []byte(k))
	}
}

var keywordEndsB [][]byte

// RuleNames lists every rule the sanitizer and the guard apply, for the header and docs:
// the project's own rules first, then gitleaks' (see GitleaksVersion).
func RuleNames() []string { return slices.Clone(ruleNameList()) }

// ruleNameList is RuleNames, made once: a session's header and its guard both ask.
var ruleNameList = sync.OnceValue(func() []string {
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
	for _, r := range gitleaksRuleData {
		add(r.id)
	}
	return names
})

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

// wordStart reports whether a match may start at text[i]: at the start, after a
// non-word byte, or after the letter of a JSON escape such as \n.
func wordStart(text []byte, i int) bool {
	if i == 0 || !isWordByte(text[i-1]) {
		return true
	}
	switch text[i-1] {
	case 'n', 'r', 't', 'b', 'f':
		return jsonx.Backslashes(text, i-1, 0)%2 == 1
	}
	return false
}

// isTokenByte is a byte of the token alphabets (base64, base64url, JWT, key ids).
func isTokenByte(c byte) bool {
	return isWordByte(c) || c == '-' || c == '.' || c == '+' || c == '/' || c == '='
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func hasDigit(v []byte) bool {
	for _, c := range v {
		if c >= '0' && c <= '9' {
			return true
		}
	}
	return false
}

func hasLower(v []byte) bool {
	for _, c := range v {
		if c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// tokenAtLeast rules out a literal at text[i] not followed by a run of n word bytes
// or dashes in all (a cheap check before an expression runs on a common literal).
func tokenAtLeast(n int) func(text []byte, i int) bool {
	return func(text []byte, i int) bool {
		if i+n > len(text) {
			return false
		}
		for _, c := range text[i : i+n] {
			if !isWordByte(c) && c != '-' {
				return false
			}
		}
		return true
	}
}

// cliValue vets the value of a command-line flag: not a variable, a command
// substitution, a path, another flag or a plain lower-case word.
func cliValue(v []byte) bool {
	switch v[0] {
	case '$', '-', '<', '{', '%', '/', '~', '.', '*', '(':
		return false
	}
	if bytes.HasPrefix(v, []byte("id=")) || bytes.HasPrefix(v, []byte("src=")) || bytes.HasPrefix(v, []byte("env=")) {
		return false // docker build --secret id=...,src=...
	}
	lowerWord := true
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c == '-' || c == '_') {
			lowerWord = false
		}
	}
	return !lowerWord
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

// isGitleaksRule reports whether name is a gitleaks rule's id rather than one of the
// project's own rules.
func isGitleaksRule(name string) bool {
	for _, r := range gitleaksRuleData {
		if r.id == name {
			return true
		}
	}
	return false
}
