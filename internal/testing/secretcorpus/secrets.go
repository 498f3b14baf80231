// Package secretcorpus is a synthetic test corpus for the sanitizer and the leak guard:
// secrets of many providers, written from each provider's published token format
// (never real, never copied from another scanner's tests), placed in the frames a
// Codex session carries, and near-miss values that are not secrets. It generates
// frames and judges a recording; it does not run anything.
package secretcorpus

import (
	"encoding/hex"
	"math/rand/v2"
	"strings"
)

// Secret is one provider's synthetic secret.
type Secret struct {
	Provider string
	// Value is the whole token as it would be pasted; Body is the part that is
	// secret (Value without a public prefix), judged piece by piece.
	Value, Body string
	// Env is a variable name it typically lives in.
	Env string
	// PEM: Value is a multi-line PEM block.
	PEM bool
}

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lower   = "abcdefghijklmnopqrstuvwxyz"
	letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	upperAN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexLow  = "0123456789abcdef"
	url64   = alnum + "_-"
	std64   = alnum + "+/"
	b32     = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	bech32  = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	digits  = "0123456789"
)

// gen draws deterministic random strings: the corpus is the same on every run.
type gen struct{ r *rand.Rand }

func newGen(seed string) *gen {
	var s uint64
	for _, c := range seed {
		s = s*131 + uint64(c)
	}
	return &gen{rand.New(rand.NewPCG(s, 0x5eed))}
}

// s returns n characters of alphabet, with at least one digit and one letter when the
// alphabet has both (as real tokens of that length nearly always do).
func (g *gen) s(alphabet string, n int) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[g.r.IntN(len(alphabet))]
		}
		v := string(b)
		if n < 8 || !strings.ContainsAny(alphabet, digits) || !strings.ContainsAny(alphabet, letters) ||
			strings.ContainsAny(v, digits) && strings.ContainsAny(v, letters) && !repeats(v) {
			return v
		}
	}
}

func repeats(v string) bool {
	run := 1
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1] {
			if run++; run >= 4 {
				return true
			}
		} else {
			run = 1
		}
	}
	return false
}

func (g *gen) hex(n int) string {
	b := make([]byte, (n+1)/2)
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	return hex.EncodeToString(b)[:n]
}

// Secrets returns the corpus's secrets, one or more per provider.
func Secrets() []Secret {
	var out []Secret
	add := func(provider, env, prefix string, body func(g *gen) string) {
		g := newGen(provider)
		b := body(g)
		out = append(out, Secret{Provider: provider, Value: prefix + b, Body: b, Env: env})
	}
	add("openai-project", "OPENAI_API_KEY", "sk-proj-", func(g *gen) string { return g.s(url64, 74) + "T3BlbkFJ" + g.s(url64, 74) })
	add("openai-legacy", "OPENAI_KEY", "sk-", func(g *gen) string { return g.s(alnum, 20) + "T3BlbkFJ" + g.s(alnum, 20) })
	add("openai-svcacct", "OPENAI_SERVICE_KEY", "sk-svcacct-", func(g *gen) string { return g.s(url64, 58) + "T3BlbkFJ" + g.s(url64, 58) })
	add("anthropic", "ANTHROPIC_API_KEY", "sk-ant-api03-", func(g *gen) string { return g.s(url64, 93) + "AA" })
	add("anthropic-admin", "ANTHROPIC_ADMIN_KEY", "sk-ant-admin01-", func(g *gen) string { return g.s(url64, 93) + "AA" })
	add("github-classic", "GITHUB_TOKEN", "ghp_", func(g *gen) string { return g.s(alnum, 36) })
	add("github-fine-grained", "GH_PAT", "github_pat_", func(g *gen) string { return g.s(alnum, 22) + "_" + g.s(alnum, 59) })
	add("github-oauth", "GH_OAUTH", "gho_", func(g *gen) string { return g.s(alnum, 36) })
	add("github-app", "GH_APP_TOKEN", "ghs_", func(g *gen) string { return g.s(alnum, 36) })
	add("gitlab", "GITLAB_TOKEN", "glpat-", func(g *gen) string { return g.s(url64, 20) })
	add("aws-access-key", "AWS_ACCESS_KEY_ID", "AKIA", func(g *gen) string { return g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16) })
	add("stripe-secret", "STRIPE_SECRET_KEY", "sk_live_", func(g *gen) string { return g.s(alnum, 99) })
	add("stripe-restricted", "STRIPE_RESTRICTED_KEY", "rk_live_", func(g *gen) string { return g.s(alnum, 99) })
	add("stripe-webhook", "STRIPE_WEBHOOK_SECRET", "whsec_", func(g *gen) string { return g.s(alnum, 32) })
	add("slack-bot", "SLACK_BOT_TOKEN", "xoxb-", func(g *gen) string {
		return g.s(digits, 12) + "-" + g.s(digits, 13) + "-" + g.s(alnum, 24)
	})
	add("slack-user", "SLACK_USER_TOKEN", "xoxp-", func(g *gen) string {
		return g.s(digits, 12) + "-" + g.s(digits, 12) + "-" + g.s(digits, 13) + "-" + g.hex(32)
	})
	add("slack-webhook", "SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/", func(g *gen) string {
		return "T" + g.s(upperAN, 10) + "/B" + g.s(upperAN, 10) + "/" + g.s(alnum, 24)
	})
	add("google-api", "GOOGLE_API_KEY", "AIza", func(g *gen) string { return g.s(url64, 35) })
	add("google-oauth-secret", "GOOGLE_CLIENT_SECRET", "GOCSPX-", func(g *gen) string { return g.s(url64, 28) })
	add("npm", "NPM_TOKEN", "npm_", func(g *gen) string { return g.s(alnum, 36) })
	add("pypi", "PYPI_TOKEN", "pypi-AgEIcHlwaS5vcmc", func(g *gen) string { return g.s(url64, 140) })
	add("huggingface", "HF_TOKEN", "hf_", func(g *gen) string { return g.s(letters, 34) })
	add("huggingface-org", "HF_ORG_TOKEN", "api_org_", func(g *gen) string { return g.s(letters, 34) })
	add("sendgrid", "SENDGRID_API_KEY", "SG.", func(g *gen) string { return g.s(url64, 22) + "." + g.s(url64, 43) })
	add("twilio-api-key", "TWILIO_API_KEY", "SK", func(g *gen) string { return g.hex(32) })
	add("twilio-account-sid", "TWILIO_ACCOUNT_SID", "AC", func(g *gen) string { return g.hex(32) })
	add("shopify-access", "SHOPIFY_ACCESS_TOKEN", "shpat_", func(g *gen) string { return g.hex(32) })
	add("shopify-shared-secret", "SHOPIFY_API_SECRET", "shpss_", func(g *gen) string { return g.hex(32) })
	add("digitalocean", "DIGITALOCEAN_TOKEN", "dop_v1_", func(g *gen) string { return g.hex(64) })
	add("digitalocean-oauth", "DO_OAUTH_TOKEN", "doo_v1_", func(g *gen) string { return g.hex(64) })
	add("databricks", "DATABRICKS_TOKEN", "dapi", func(g *gen) string { return g.hex(32) })
	add("doppler", "DOPPLER_TOKEN", "dp.pt.", func(g *gen) string { return g.s(alnum, 43) })
	add("dropbox", "DROPBOX_TOKEN", "sl.", func(g *gen) string { return "B" + g.s(url64, 138) })
	add("linear", "LINEAR_API_KEY", "lin_api_", func(g *gen) string { return g.s(alnum, 40) })
	add("postman", "POSTMAN_API_KEY", "PMAK-", func(g *gen) string { return g.hex(24) + "-" + g.hex(34) })
	add("pulumi", "PULUMI_ACCESS_TOKEN", "pul-", func(g *gen) string { return g.hex(40) })
	add("vault", "VAULT_TOKEN", "hvs.", func(g *gen) string { return "CAESI" + g.s(url64, 95) })
	add("grafana-cloud", "GRAFANA_CLOUD_TOKEN", "glc_", func(g *gen) string { return g.s(alnum, 80) + "==" })
	add("grafana-service-account", "GRAFANA_SA_TOKEN", "glsa_", func(g *gen) string { return g.s(alnum, 32) + "_" + g.hex(8) })
	add("sentry-user", "SENTRY_AUTH_TOKEN", "sntryu_", func(g *gen) string { return g.hex(64) })
	add("heroku", "HEROKU_API_KEY", "HRKU-AA", func(g *gen) string { return g.s(url64, 58) })
	add("atlassian", "JIRA_API_TOKEN", "ATATT3xFfGF0", func(g *gen) string { return g.s(url64, 171) + "=" + g.hex(8) })
	add("discord-bot", "DISCORD_BOT_TOKEN", "MT", func(g *gen) string {
		return g.s(alnum, 24) + "." + g.s(url64, 6) + "." + g.s(url64, 38)
	})
	add("discord-webhook", "DISCORD_WEBHOOK_URL", "https://discord.com/api/webhooks/", func(g *gen) string {
		return "1" + g.s(digits, 18) + "/" + g.s(url64, 68)
	})
	add("telegram-bot", "TELEGRAM_BOT_TOKEN", "", func(g *gen) string { return g.s(digits, 10) + ":AA" + g.s(url64, 33) })
	add("square", "SQUARE_ACCESS_TOKEN", "EAAA", func(g *gen) string { return g.s(url64, 60) })
	add("planetscale", "PLANETSCALE_TOKEN", "pscale_tkn_", func(g *gen) string { return g.s(url64, 43) })
	add("planetscale-password", "DATABASE_PASSWORD", "pscale_pw_", func(g *gen) string { return g.s(url64, 43) })
	add("flyio", "FLY_API_TOKEN", "fo1_", func(g *gen) string { return g.s(url64, 43) })
	add("notion", "NOTION_TOKEN", "ntn_", func(g *gen) string { return g.s(digits, 11) + g.s(alnum, 35) })
	add("figma", "FIGMA_TOKEN", "figd_", func(g *gen) string { return g.s(url64, 40) })
	add("tailscale", "TS_AUTHKEY", "tskey-auth-", func(g *gen) string { return "k" + g.s(alnum, 12) + "CNTRL-" + g.s(alnum, 33) })
	add("jwt", "ID_TOKEN", "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.", func(g *gen) string {
		return "eyJ" + g.s(url64, 120) + "." + g.s(url64, 86)
	})
	add("age", "AGE_SECRET_KEY", "AGE-SECRET-KEY-1", func(g *gen) string { return g.s(bech32, 58) })
	add("onepassword-service", "OP_SERVICE_ACCOUNT_TOKEN", "ops_eyJ", func(g *gen) string { return g.s(std64, 300) })
	add("newrelic", "NEW_RELIC_API_KEY", "NRAK-", func(g *gen) string { return g.s(upperAN, 27) })
	add("cloudflare-origin-ca", "CF_ORIGIN_CA_KEY", "v1.0-", func(g *gen) string { return g.hex(24) + "-" + g.hex(146) })
	add("azure-ad-client-secret", "AZURE_CLIENT_SECRET", "", func(g *gen) string { return g.s(alnum, 3) + "8Q~" + g.s(alnum+"_~.-", 34) })
	add("azure-storage", "AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=", func(g *gen) string {
		return g.s(std64, 86) + "=="
	})
	add("alibaba", "ALIBABA_ACCESS_KEY_ID", "LTAI", func(g *gen) string { return g.s(alnum, 20) })
	add("rubygems", "GEM_HOST_API_KEY", "rubygems_", func(g *gen) string { return g.hex(48) })
	add("clojars", "CLOJARS_TOKEN", "CLOJARS_", func(g *gen) string { return g.s(lower+digits, 60) })
	add("terraform-cloud", "TFE_TOKEN", "", func(g *gen) string { return g.s(lower+digits, 14) + ".atlasv1." + g.s(alnum, 67) })
	add("shippo", "SHIPPO_API_KEY", "shippo_live_", func(g *gen) string { return g.hex(40) })
	add("easypost", "EASYPOST_API_KEY", "EZAK", func(g *gen) string { return g.s(alnum, 54) })
	add("sourcegraph", "SRC_ACCESS_TOKEN", "sgp_", func(g *gen) string { return g.hex(16) + "_" + g.hex(40) })
	add("prefect", "PREFECT_API_KEY", "pnu_", func(g *gen) string { return g.s(alnum, 36) })
	add("readme", "README_API_KEY", "rdme_", func(g *gen) string { return g.s(lower+digits, 70) })
	add("perplexity", "PERPLEXITY_API_KEY", "pplx-", func(g *gen) string { return g.s(alnum, 48) })
	add("dynatrace", "DT_API_TOKEN", "dt0c01.", func(g *gen) string { return g.s(upperAN, 24) + "." + g.s(upperAN, 64) })
	add("groq", "GROQ_API_KEY", "gsk_", func(g *gen) string { return g.s(alnum, 52) })
	add("xai", "XAI_API_KEY", "xai-", func(g *gen) string { return g.s(alnum, 80) })
	add("replicate", "REPLICATE_API_TOKEN", "r8_", func(g *gen) string { return g.s(alnum, 37) })
	add("langsmith", "LANGSMITH_API_KEY", "lsv2_pt_", func(g *gen) string { return g.hex(32) + "_" + g.hex(10) })
	add("docker-hub", "DOCKERHUB_TOKEN", "dckr_pat_", func(g *gen) string { return g.s(url64, 27) })
	add("supabase", "SUPABASE_ACCESS_TOKEN", "sbp_", func(g *gen) string { return g.hex(40) })
	add("buildkite", "BUILDKITE_API_TOKEN", "bkua_", func(g *gen) string { return g.hex(40) })
	add("url-password", "DATABASE_URL", "postgres://app_rw:", func(g *gen) string { return g.s(alnum, 20) })
	add("bearer", "AUTH_HEADER", "Authorization: Bearer ", func(g *gen) string { return g.s(url64, 40) })
	out = append(out, pemSecret("rsa-private-key", "RSA PRIVATE KEY"), pemSecret("openssh-private-key", "OPENSSH PRIVATE KEY"), pemSecret("ec-private-key", "EC PRIVATE KEY"))
	// url-password's value continues after the password: the host.
	for i := range out {
		if out[i].Provider == "url-password" {
			out[i].Value += "@db.internal.acme.io:5432/app"
		}
	}
	return out
}

// pemSecret is a PEM private key block of random base64 lines.
func pemSecret(provider, kind string) Secret {
	g := newGen(provider)
	var body strings.Builder
	for range 12 {
		body.WriteString(g.s(std64, 64))
		body.WriteByte('\n')
	}
	b := body.String()
	return Secret{Provider: provider, Env: "PRIVATE_KEY", PEM: true, Body: b,
		Value: "-----BEGIN " + kind + "-----\n" + b + "-----END " + kind + "-----"}
}
