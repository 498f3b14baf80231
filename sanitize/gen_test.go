package sanitize_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Synthetic secrets, generated from the providers' public formats with a seeded
// generator: no real credential is ever in this repository.

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	b64url = alnum + "_-"
)

type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

// str is n random characters of alphabet, with at least one digit and one letter
// when the alphabet has both (every real token format does, in practice).
func (g *gen) str(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	var letters, nums []byte
	for i := 0; i < len(alphabet); i++ {
		switch c := alphabet[i]; {
		case strings.IndexByte(lower+upper, c) >= 0:
			letters = append(letters, c)
		case strings.IndexByte(digits, c) >= 0:
			nums = append(nums, c)
		}
	}
	if n >= 2 && len(nums) > 0 && len(letters) > 0 {
		b[g.r.IntN(n/2)] = nums[g.r.IntN(len(nums))]
		b[n/2+g.r.IntN(n-n/2)] = letters[g.r.IntN(len(letters))]
	}
	return string(b)
}

// shape is a secret of one rule: Text is what appears in the content (with its
// context, such as "password="), Secret the part that must disappear.
type shape struct {
	Rule, Text, Secret string
}

func (g *gen) jwt() string {
	head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","kid":"` + g.str(8, alnum) + `","typ":"JWT"}`))
	body := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"aud":["https://api.openai.com/v1"],"exp":%d,"https://api.openai.com/auth":{"chatgpt_account_id":"%s"},"sub":"auth0|%s"}`,
		1795948348+g.r.IntN(1e6), g.str(36, alnum), g.str(24, alnum))))
	return head + "." + body + "." + g.str(342, b64url)
}

func (g *gen) privateKey(kind string) string {
	var b strings.Builder
	b.WriteString("-----BEGIN " + kind + "PRIVATE KEY-----\n")
	for range 6 {
		b.WriteString(g.str(64, alnum+"+/") + "\n")
	}
	b.WriteString(g.str(20, alnum+"+/") + "==\n-----END " + kind + "PRIVATE KEY-----")
	return b.String()
}

// shapes returns n secrets of every shape rule.
func (g *gen) shapes(n int) []shape {
	var out []shape
	add := func(rule, text, secret string) { out = append(out, shape{rule, text, secret}) }
	for range n {
		k := "sk-" + g.str(48, alnum)
		add("openai-key", k, k)
		k = "sk-proj-" + g.str(156, b64url)
		add("openai-key", k, k)
		k = "sk-svcacct-" + g.str(120, b64url)
		add("openai-key", k, k)
		k = "sk-admin-" + g.str(100, b64url)
		add("openai-key", k, k)
		k = "sk-ant-api03-" + g.str(93, b64url) + "AA"
		add("anthropic-key", k, k)
		k = g.jwt()
		add("jwt", k, k)
		for _, p := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"} {
			k = p + g.str(36, alnum)
			add("github-token", k, k)
		}
		k = "github_pat_" + g.str(22, alnum) + "_" + g.str(59, alnum)
		add("github-token", k, k)
		k = []string{"AKIA", "ASIA"}[g.r.IntN(2)] + g.str(16, upper+"234567")
		add("aws-access-key-id", k, k)
		k = g.str(40, alnum+"/+")
		add("aws-secret-key", "aws_secret_access_key = "+k, k)
		k = g.str(40, alnum+"/+")
		add("aws-secret-key", "AWS_SECRET_ACCESS_KEY="+k, k)
		k = g.str(32, alnum)
		add("authorization", "Authorization: Bearer "+k, k)
		k = base64.StdEncoding.EncodeToString([]byte("deploy:" + g.str(14, alnum)))
		add("authorization", "authorization: Basic "+k, k)
		k = g.str(40, alnum+"._-")
		add("bearer-token", "curl -H 'X-Auth: bearer "+k+"' https://example.test", k)
		for _, kind := range []string{"", "RSA ", "EC ", "OPENSSH "} {
			k = g.privateKey(kind)
			add("private-key", k, k)
		}
		k = "xoxb-" + g.str(12, digits) + "-" + g.str(13, digits) + "-" + g.str(24, alnum)
		add("slack-token", k, k)
		k = "https://hooks.slack.com/services/T" + g.str(8, upper+digits) + "/B" + g.str(10, upper+digits) + "/" + g.str(24, alnum)
		add("slack-webhook", k, k)
		k = "AIza" + g.str(35, b64url)
		add("google-api-key", k, k)
		k = "ya29." + g.str(150, b64url)
		add("google-oauth-token", k, k)
		k = "GOCSPX-" + g.str(28, b64url)
		add("google-client-secret", k, k)
		k = g.str(18, alnum)
		add("url-credentials", "git clone https://deploy:"+k+"@git.example.test/app.git", k)
		k = g.str(32, alnum)
		add("url-credentials", "GET https://api.example.test/v1/items?limit=5&access_token="+k+"&page=2", k)
		k = g.str(16, alnum+"!#%")
		add("keyword-secret", "DB_PASSWORD="+k, k)
		k = g.str(24, alnum)
		add("keyword-secret", `{"client_secret": "`+k+`"}`, k)
		k = g.str(30, alnum)
		add("keyword-secret", "export SERVICE_TOKEN="+k, k)
		k = g.str(20, alnum)
		add("keyword-secret", "api_key: "+k, k)
	}
	return out
}

// kinds are realistic app-server messages (and a stderr line) that carry text: each
// embeds s where the real protocol carries free text or payloads.
var kinds = []struct {
	name string
	line func(s string) string
}{
	{"command-output", func(s string) string {
		return `{"method":"item/commandExecution/outputDelta","params":{"threadId":"019a226d-027d-7b30-b455-5b5bc11ec58d","turnId":"019a226d-1111-7b30-b455-5b5bc11ec58d","itemId":"call_8bK2","delta":` + q("$ ./deploy.sh\n"+s+"\nok\n") + `},"emittedAtMs":1795948348018}`
	}},
	{"command-completed", func(s string) string {
		return `{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"call_8bK2","command":"/bin/bash -lc 'cat .env'","cwd":"/work/app","processId":"4242","status":"completed","commandActions":[],"aggregatedOutput":` + q(s+"\n") + `,"exitCode":0,"durationMs":12},"threadId":"019a226d-027d-7b30-b455-5b5bc11ec58d","turnId":"019a226d-1111-7b30-b455-5b5bc11ec58d"}}`
	}},
	{"file-diff", func(s string) string {
		return `{"method":"item/completed","params":{"item":{"type":"fileChange","id":"call_p1","changes":[{"path":"config/settings.py","kind":{"type":"update","move_path":null},"diff":` + q("@@ -1,3 +1,3 @@\n import os\n-KEY = os.environ['K']\n+KEY = \""+s+"\"\n") + `}],"status":"completed"},"threadId":"019a226d-027d-7b30-b455-5b5bc11ec58d","turnId":"019a226d-1111-7b30-b455-5b5bc11ec58d"}}`
	}},
	{"agent-message", func(s string) string {
		return `{"method":"item/agentMessage/delta","params":{"threadId":"019a226d-027d-7b30-b455-5b5bc11ec58d","turnId":"019a226d-1111-7b30-b455-5b5bc11ec58d","itemId":"msg_03","delta":` + q("I found this in your config: "+s+". You should rotate it.") + `},"emittedAtMs":1795948348018}`
	}},
	{"turn-input", func(s string) string {
		return `{"id":3,"method":"turn/start","params":{"threadId":"019a226d-027d-7b30-b455-5b5bc11ec58d","input":[{"type":"text","text":` + q("use this: "+s) + `,"text_elements":[]}]}}`
	}},
	{"error-message", func(s string) string {
		return `{"id":4,"error":{"code":-32600,"message":` + q("Invalid request: bad header "+s) + `}}`
	}},
	{"command-exec-base64", func(s string) string {
		return `{"method":"command/exec/outputDelta","params":{"processId":"p-7","stream":"stdout","deltaBase64":"` + base64.StdEncoding.EncodeToString([]byte("line one\n"+s+"\n")) + `","capReached":false}}`
	}},
	{"read-file-base64", func(s string) string {
		return `{"id":9,"result":{"dataBase64":"` + base64.StdEncoding.EncodeToString([]byte("# settings\n"+s+"\n# end")) + `"}}`
	}},
	{"stderr-line", func(s string) string {
		return "\x1b[2m2026-11-29T10:36:20.512Z\x1b[0m \x1b[33m WARN\x1b[0m codex_core::exec: command failed: " + strings.ReplaceAll(s, "\n", "\\n")
	}},
}

// q is s as a JSON string, as the app-server's encoder writes it.
func q(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
