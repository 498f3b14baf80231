package secretcorpus

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Negative is a near miss: a value shaped somewhat like a secret that is not one, in
// the text around it.
type Negative struct {
	Name, Text string
}

// Negatives returns the near misses. Each is sent as one command-output delta; a
// recording must keep its text unchanged.
func Negatives() []Negative {
	var out []Negative
	add := func(name, text string) { out = append(out, Negative{name, text}) }
	g := newGen("negatives")
	for i := range 10 {
		sha := g.hex(40)
		add(fmt.Sprintf("git-sha-%d", i), "commit "+sha+"\nAuthor: Dev <dev@acme.io>\n\n    fix: retry on 503\n")
	}
	for i := range 6 {
		u := g.hex(8) + "-" + g.hex(4) + "-4" + g.hex(3) + "-a" + g.hex(3) + "-" + g.hex(12)
		add(fmt.Sprintf("uuid-%d", i), "2026-11-29T10:36:20Z INFO request_id="+u+" status=200\n")
	}
	sum := sha256.Sum256([]byte("layer"))
	add("docker-digest", "ghcr.io/acme/api@sha256:"+hex.EncodeToString(sum[:])+"\n")
	add("pip-hash", "requests==2.32.3 --hash=sha256:"+hex.EncodeToString(sum[:])+"\n")
	s512 := sha512.Sum512([]byte("left-pad"))
	add("npm-integrity", `"integrity": "sha512-`+base64.StdEncoding.EncodeToString(s512[:])+`"`+"\n")
	s384 := sha512.Sum384([]byte("bootstrap.min.js"))
	add("sri-hash", `<script src="app.js" integrity="sha384-`+base64.StdEncoding.EncodeToString(s384[:])+`" crossorigin="anonymous"></script>`+"\n")
	add("go-sum", "github.com/tidwall/gjson v1.20.2 h1:"+base64.StdEncoding.EncodeToString(sum[:])+"\n")
	add("short-shas", "7e6c9ac fix tests\n3f9a1c2 bump deps\nb4a8688 docs\n")
	add("eth-tx-hash", "tx 0x"+hex.EncodeToString(sum[:])+" confirmed\n")
	for i, text := range []string{"hello world, this is ordinary text", "The quick brown fox jumps over the lazy dog", "development", "{\"level\":\"info\",\"msg\":\"ready\"}", "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor"} {
		add(fmt.Sprintf("base64-text-%d", i), "data: "+base64.StdEncoding.EncodeToString([]byte(text))+"\n")
	}
	add("aws-example-key-id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n")
	add("aws-example-secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n")
	add("ghp-x-run", "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n")
	add("sk-x-run", "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n")
	add("your-api-key", "export OPENAI_API_KEY=YOUR_API_KEY\n")
	add("your-token-here", `curl -H "Authorization: Bearer <your-token-here>" https://api.acme.io/v1/me`+"\n")
	add("bearer-variable", `curl -H "Authorization: Bearer $TOKEN" https://api.acme.io/v1/me`+"\n")
	add("url-user-password-localhost", "DATABASE_URL=postgres://user:password@localhost:5432/app\n")
	add("url-no-password", "git clone https://github.com/acme/api.git\n")
	add("url-user-only", "ssh://git@github.com/acme/api.git\n")
	add("sentry-dsn-public", "SENTRY_DSN=https://"+g.hex(32)+"@o12345.ingest.sentry.io/678901\n")
	add("password-prompt", "Password: \nsudo: a password is required\n")
	add("password-masked", "password=********\n")
	add("token-count", "tokens used: input=12034 output=2048 total_tokens=14082\n")
	add("max-tokens", "max_output_tokens=4096, cache_key: session-42\n")
	add("ssh-ed25519-public", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"+g.s(std64, 43)+" dev@laptop\n")
	add("ssh-rsa-public", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ"+g.s(std64, 200)+" dev@laptop\n")
	add("pem-public-key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"+g.s(std64, 20)+"\n"+g.s(std64, 64)+"\n-----END PUBLIC KEY-----\n")
	add("pem-certificate", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE"+g.s(std64, 44)+"\n"+g.s(std64, 64)+"\n-----END CERTIFICATE-----\n")
	add("stripe-publishable", "STRIPE_PUBLISHABLE_KEY=pk_live_"+g.s(alnum, 99)+"\n")
	add("stripe-publishable-test", "const stripe = Stripe('pk_test_"+g.s(alnum, 99)+"');\n")
	add("clerk-publishable", "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=pk_test_Y2xlcmsuZXhhbXBsZS5jb20k\n")
	add("mapbox-public", "mapboxgl.accessToken = 'pk.eyJ1IjoiYWNtZSIsImEiOiJjbGs"+g.s(alnum, 20)+"';\n")
	add("jwt-header-only", "header: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\n")
	add("google-analytics", "gtag('config', 'G-7X2K9QLM3P');\n")
	add("ulid", "job 01ARZ3NDEKTSV4RRFFQ69G5FAV queued\n")
	add("openai-response-id", "response resp_"+g.hex(48)+" completed\n")
	add("chatcmpl-id", "id: chatcmpl-"+g.s(alnum, 29)+"\n")
	add("codex-call-id", "call_"+g.s(alnum, 24)+" exited 0\n")
	add("sklearn", "pip install scikit-learn # sk-learn, a.k.a. sklearn\n")
	add("task-runner", "task-runner-service-account-manager started\n")
	add("arn", "arn:aws:iam::123456789012:role/deploy-production\n")
	add("ipfs-cid", "pinned bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi\n")
	add("semver-build", "v1.20.2-0.20241105121314-7e6c9ac0f5d3\n")
	add("css-colors", "color: #3f9a1c; background: #7e6c9a;\n")
	add("github-blob-url", "https://github.com/acme/api/blob/"+g.hex(40)+"/internal/wire/frame.go#L42\n")
	add("token-prefix-doc", "Classic tokens start with ghp_ and fine-grained ones with github_pat_.\n")
	add("xoxb-mention", "Use a bot token (xoxb-...) for this app.\n")
	add("k8s-pod-name", "pod/api-7d9f8b6c5d-x2k9q Running\n")
	add("api-key-env-ref", "OPENAI_API_KEY=${OPENAI_API_KEY}\n")
	add("secret-ref-actions", "token: ${{ secrets.GITHUB_TOKEN }}\n")
	add("changeme", "POSTGRES_PASSWORD=changeme\n")
	add("password-word", "password: required\n")
	add("apikey-header-doc", "X-API-Key: <api-key>\n")
	add("base64-json-config", "config: "+base64.StdEncoding.EncodeToString([]byte(`{"region":"eu-west-1","replicas":3,"image":"ghcr.io/acme/api:1.4.2"}`))+"\n")
	add("twilio-word", "ACCEPTED ACKNOWLEDGED SKIPPED\n")
	add("hex-checksum", "md5 "+hex.EncodeToString(sum[:16])+"  release.tar.gz\n")
	add("azure-account-name", "AccountName=acmeprod;EndpointSuffix=core.windows.net\n")
	add("npm-package", "npm_config_cache=/home/dev/.npm npm_lifecycle_event=build\n")
	add("hf-model", "model: hf_hub_download(repo_id='bert-base-uncased')\n")
	add("sha256-known-text", "sha256("+strings.Repeat("a", 3)+") = "+hex.EncodeToString(sum[:])+"\n")
	return out
}

// NegativeCases are the near misses as frames, one delta each.
func NegativeCases() []Case {
	var out []Case
	for i, n := range Negatives() {
		n := n
		out = append(out, Case{Provider: n.Name, Placement: "output", Negative: &n, Lines: []string{outputDelta(fmt.Sprintf("n%d", i), n.Text)}})
	}
	return out
}
