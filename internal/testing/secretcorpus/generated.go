package secretcorpus

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net/url"
	"sort"
	"strings"
)

// The generated corpus: secrets made the way real tools make them (keys from
// ssh-keygen, openssl and gpg; JWTs signed with Go's crypto; tokens with the
// checksums their providers publish), placed the way Codex sessions carry them (every
// encoding a recording meets, split across deltas at random cut points, in
// item/completed aggregates, on stderr, in JSON-RPC errors), and near misses. Random
// choices come from GenSeed: the corpus is the same on every run.

// GenSeed seeds the generated corpus's random values and cut points.
const GenSeed = 0xc0de5ec2e7

// GenSecret is a secret of the generated corpus: Text is what a tool prints (a key
// file, a token, a command line holding a password), Pieces the parts of it that must
// not survive anywhere.
type GenSecret struct {
	Kind, Generator string
	Text            string
	Pieces          []string
}

// Frame is one line crossing the proxy: Dir is c2s, s2c or stderr.
type Frame struct{ Dir, Line string }

// GenCase is a secret or a near miss in one placement.
type GenCase struct {
	Kind, Placement string
	Frames          []Frame
	Secret          *GenSecret
	// Keep, for a near miss, is the text that must be recorded unchanged.
	Keep string
}

// GenPlacements are the placements every secret gets.
var GenPlacements = []string{
	"output", "stderr-lines", "error-message", "aggregated", "split-2", "split-3", "base64-split-2",
	"percent", "json-in-json", "u-escapes", "base64-wrap-60", "base64-wrap-76", "ids",
}

// pieces cuts v into parts of a third (at least 8 bytes; whole when shorter): any
// surviving is a leak.
func pieces(v string) []string {
	k := max(len(v)/3, 8)
	if k >= len(v) {
		return []string{v}
	}
	var out []string
	for i := 0; i+k <= len(v); i += k {
		out = append(out, v[i:i+k])
	}
	if r := len(v) % k; r != 0 {
		out = append(out, v[len(v)-k:])
	}
	return out
}

// keyPieces are the pieces of every body line of a PEM or armored block.
func keyPieces(key string) []string {
	var out []string
	for _, l := range KeyBody(key) {
		if len(l) >= 8 {
			out = append(out, pieces(l)...)
		}
	}
	return out
}

// base62 is GitHub's alphabet for a token's checksum.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// checksummed is prefix + 30 random characters + their CRC32 in 6 base62
// characters, GitHub's published token format (npm tokens follow it too).
func checksummed(g *gen, prefix string) string {
	body := g.s(alnum, 30)
	c := crc32.ChecksumIEEE([]byte(body))
	var sum [6]byte
	for i := 5; i >= 0; i-- {
		sum[i] = base62[c%62]
		c /= 62
	}
	return prefix + body + string(sum[:])
}

// GenSecrets returns the generated corpus's secrets; keys are the real keys by kind
// (CommittedKeys, or fresh ones from GenerateKey).
func GenSecrets(keys map[string]string) []GenSecret {
	g := &gen{rand.New(rand.NewPCG(GenSeed, 1))}
	var out []GenSecret
	for _, name := range KeyNames(keys) {
		out = append(out, GenSecret{Kind: name, Generator: keyTool(name), Text: keys[name], Pieces: keyPieces(keys[name])})
	}
	tok := func(kind, generator, v string) {
		out = append(out, GenSecret{Kind: kind, Generator: generator, Text: v, Pieces: pieces(v)})
	}
	// JWTs signed with Go's crypto (a seeded Ed25519 key, and HMAC-SHA256).
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(g.r.UintN(256))
	}
	claims := fmt.Sprintf(`{"sub":"user-%d","iss":"https://auth.acme.io","aud":"api","exp":%d,"scope":"repo read:org"}`, g.r.IntN(1e6), 1893456000+g.r.IntN(1e6))
	b64 := base64.RawURLEncoding.EncodeToString
	signing := b64([]byte(`{"alg":"EdDSA","typ":"JWT"}`)) + "." + b64([]byte(claims))
	jwt := signing + "." + b64(ed25519.Sign(ed25519.NewKeyFromSeed(seed), []byte(signing)))
	out = append(out, GenSecret{Kind: "jwt-eddsa", Generator: "crypto/ed25519", Text: jwt, Pieces: pieces(jwt[strings.IndexByte(jwt, '.')+1:])})
	signing = b64([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + b64([]byte(claims))
	mac := hmac.New(sha256.New, seed)
	mac.Write([]byte(signing))
	jwt = signing + "." + b64(mac.Sum(nil))
	out = append(out, GenSecret{Kind: "jwt-hs256", Generator: "crypto/hmac", Text: jwt, Pieces: pieces(jwt[strings.IndexByte(jwt, '.')+1:])})
	tok("github-classic", "CRC32 checksum", checksummed(g, "ghp_"))
	tok("github-oauth", "CRC32 checksum", checksummed(g, "gho_"))
	tok("npm", "CRC32 checksum", checksummed(g, "npm_"))
	// A PyPI token is "pypi-" and a base64url macaroon (v2 binary: location pypi.org).
	mac2 := append([]byte{0x02, 0x01, 0x08}, "pypi.org"...)
	mac2 = append(mac2, 0x02, 0x24)
	mac2 = append(mac2, fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", g.r.Uint32(), g.r.UintN(1<<16), g.r.UintN(1<<12), g.r.UintN(1<<12), g.r.Uint64()&(1<<48-1))...)
	for range 40 {
		mac2 = append(mac2, byte(g.r.UintN(256)))
	}
	tok("pypi", "macaroon v2", "pypi-"+base64.RawURLEncoding.EncodeToString(mac2))
	// Providers' published formats.
	tok("fireworks", "format", "fw_"+g.s(alnum, 24))
	tok("together", "format", "tgp_v1_"+g.s(url64, 43))
	tok("netlify", "format", "nfp_"+g.s(alnum, 36)+g.hex(4))
	tok("render", "format", "rnd_"+g.s(alnum, 32))
	tok("doppler-service", "format", "dp.st.prd."+g.s(alnum, 43))
	tok("vault-short", "format", "hvs."+g.s(url64, 24))
	tok("mailgun", "format", "key-"+g.hex(32))
	tok("pagerduty", "format", "u+"+g.s(alnum, 9)+"_"+g.s(alnum, 8))
	tok("okta", "format", "00"+g.s(url64, 40))
	tok("airtable", "format", "pat"+g.s(alnum, 14)+"."+g.hex(64))
	tok("mapbox-secret", "format", "sk.eyJ1IjoiYWNtZSIsImEiOiJj"+g.s(alnum, 40)+"."+g.s(url64, 22))
	tok("notion-legacy", "format", "secret_"+g.s(alnum, 43))
	tok("notion", "format", "ntn_"+g.s(digits, 11)+g.s(alnum, 35))
	azure := g.s(std64, 86) + "=="
	out = append(out, GenSecret{Kind: "azure-connection-string", Generator: "format",
		Text:   "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=" + azure + ";EndpointSuffix=core.windows.net",
		Pieces: pieces(azure)})
	azure2 := g.s(std64, 86) + "=="
	out = append(out, GenSecret{Kind: "azure-account-key", Generator: "az storage account keys list",
		Text:   `[{"creationTime":"2026-11-02T09:12:44Z","keyName":"key1","permissions":"FULL","value":"` + azure2 + `"}]`,
		Pieces: pieces(azure2)})
	// Secrets after command-line flags.
	cli := func(kind, before, after string, v string) {
		out = append(out, GenSecret{Kind: kind, Generator: "command line", Text: before + v + after, Pieces: pieces(v)})
	}
	cli("cli-mysql-p", "mysql -h db.internal -u app -p", " billing", g.s(alnum, 16))
	cli("cli-password", "pg_dump --host db.internal --password ", " app", g.s(alnum+"!#%", 18))
	cli("cli-token", "gh-release upload --token ", " v1.4.2 dist.tgz", g.s(alnum, 32))
	cli("cli-vault-login", "vault login ", "", "s."+g.s(alnum, 24))
	cli("cli-docker-login", "docker login -u deploy -p ", " registry.acme.io", g.s(alnum, 24))
	cli("cli-curl-user", "curl -sS -u deploy:", " https://api.acme.io/v1/releases", g.s(alnum, 20))
	return out
}

func keyTool(kind string) string {
	for _, k := range KeyKinds {
		if k.Name == kind {
			return k.Tool
		}
	}
	return ""
}

// GenNegatives returns the generated corpus's near misses, one text each: digests,
// ids and examples that look like secrets, and for each new rule a value that
// almost fits it.
func GenNegatives() []Negative {
	g := &gen{rand.New(rand.NewPCG(GenSeed, 2))}
	var out []Negative
	add := func(name, text string) { out = append(out, Negative{name, text}) }
	for i := range 3 {
		add(fmt.Sprintf("git-log-%d", i), "commit "+g.hex(40)+"\nMerge: "+g.hex(7)+" "+g.hex(7)+"\n")
		add(fmt.Sprintf("uuid-%d", i), fmt.Sprintf("thread %08x-%04x-4%03x-b%03x-%012x started", g.r.Uint32(), g.r.UintN(1<<16), g.r.UintN(1<<12), g.r.UintN(1<<12), g.r.Uint64()&(1<<48-1)))
	}
	s256 := sha256.Sum256([]byte(g.s(alnum, 20)))
	s512 := sha512.Sum512([]byte(g.s(alnum, 20)))
	add("sha256sum", hex.EncodeToString(s256[:])+"  dist/app.tar.gz")
	add("sha512sum", hex.EncodeToString(s512[:])+"  dist/app.tar.gz")
	add("sha512-base64", "digest: "+base64.StdEncoding.EncodeToString(s512[:]))
	add("npm-integrity", `"integrity": "sha512-`+base64.StdEncoding.EncodeToString(s512[:])+`"`)
	add("go-sum", "golang.org/x/crypto v0.31.0 h1:"+base64.StdEncoding.EncodeToString(s256[:])+"\ngolang.org/x/crypto v0.31.0/go.mod h1:"+base64.StdEncoding.EncodeToString(s512[:32]))
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 120)...)
	for i := 16; i < len(png); i++ {
		png[i] = byte(g.r.UintN(256))
	}
	add("base64-image", "![chart](data:image/png;base64,"+base64.StdEncoding.EncodeToString(png)+")")
	add("base64-image-wrapped", wrap(base64.StdEncoding.EncodeToString(png), 76))
	add("aws-doc-example", "aws_access_key_id=AKIAIOSFODNN7EXAMPLE\naws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	add("github-doc-example", "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
	add("placeholder-angle", "vault login <token>")
	add("placeholder-var", "docker login -u deploy -p ${REGISTRY_PASSWORD} registry.acme.io")
	add("placeholder-your", "curl -u deploy:your-password https://api.acme.io")
	add("env-names", "OPENAI_API_KEY GITHUB_TOKEN AWS_SECRET_ACCESS_KEY NPM_TOKEN VAULT_TOKEN")
	add("codex-ids", fmt.Sprintf("thread_id=%08x-%04x-7%03x-8%03x-%012x call_id=call_%s item=msg_%s", g.r.Uint32(), g.r.UintN(1<<16), g.r.UintN(1<<12), g.r.UintN(1<<12), g.r.Uint64()&(1<<48-1), g.s(alnum, 24), g.hex(48)))
	add("ssh-public", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"+g.s(std64, 43)+" dev@laptop")
	add("pem-public", "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA"+g.s(std64, 43)+"=\n-----END PUBLIC KEY-----")
	// Near misses of the new rules.
	add("near-fireworks", "see fw_config.yaml and fw_update_check")
	add("near-together", "tgp_v1_ prefix marks Together API keys")
	add("near-netlify", "nfp_build_cache_hits=12")
	add("near-render", "rnd_seed_offset=42")
	add("near-doppler", "dp.st.prd is the config name")
	add("near-vault", "hvs.example is the token prefix")
	add("near-mailgun", "monkey-"+g.hex(32)+" and key-"+g.hex(31))
	add("near-pagerduty", "chmod u+rwx script.sh && chmod u+x run.sh")
	add("near-okta", "0012345678901234567890123456789012345678901 units")
	add("near-airtable", "path/to/patch.diff pattern matched")
	add("near-mapbox", "sk.eyJ is how Mapbox secret tokens begin")
	add("near-notion", "secret_name=prod-db secret_version=3")
	add("near-azure", "AccountName=acmeprod;EndpointSuffix=core.windows.net")
	add("near-mysql-p", "mysql -h db.internal -u app -p billing\nEnter password:")
	add("near-password-stdin", "echo \"$PW\" | docker login -u deploy --password-stdin registry.acme.io")
	add("near-token-var", "gh-release upload --token \"$GITHUB_TOKEN\" v1.4.2")
	add("near-curl-user", "curl -u deploy: https://api.acme.io")
	add("near-mkdir-p", "mkdir -p build/output && gcc -pthread -o app main.c")
	return out
}

func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n])
		b.WriteByte('\n')
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// GenCases places every secret in every placement and every near miss in the
// placements that keep text as it is.
func GenCases(keys map[string]string) []GenCase {
	cut := rand.New(rand.NewPCG(GenSeed, 3))
	var out []GenCase
	for i, s := range GenSecrets(keys) {
		s := s
		for _, p := range GenPlacements {
			id := fmt.Sprintf("g%d-%s", i, p)
			out = append(out, GenCase{Kind: s.Kind, Placement: p, Secret: &s, Frames: genPlace(s.Text, p, id, cut)})
		}
	}
	// A value whose rule needs the provider's name, with the name in another field
	// of the same frame (gitleaks' heroku-api-key: the command names heroku).
	heroku := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", cut.Uint32(), cut.UintN(1<<16), cut.UintN(1<<16), cut.UintN(1<<16), cut.Uint64()&(1<<48-1))
	hs := GenSecret{Kind: "heroku-cli-token", Generator: "format", Text: heroku, Pieces: pieces(heroku)}
	out = append(out, GenCase{Kind: hs.Kind, Placement: "cross-field", Secret: &hs, Frames: []Frame{s2c(itemCompleted("x-heroku", "heroku auth:token", heroku+"\n"))}})
	uuid := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", cut.Uint32(), cut.UintN(1<<16), cut.UintN(1<<16), cut.UintN(1<<16), cut.Uint64()&(1<<48-1))
	out = append(out, GenCase{Kind: "near-uuidgen", Placement: "cross-field", Keep: uuid, Frames: []Frame{s2c(itemCompleted("x-uuidgen", "uuidgen", uuid+"\n"))}})
	for i, n := range GenNegatives() {
		for _, p := range []string{"output", "aggregated", "stderr-lines", "error-message"} {
			id := fmt.Sprintf("n%d-%s", i, p)
			out = append(out, GenCase{Kind: n.Name, Placement: p, Keep: n.Text, Frames: genPlace(n.Text, p, id, cut)})
		}
	}
	return out
}

// itemCompleted is the item/completed notification of a command and its output.
func itemCompleted(id, command, output string) string {
	item := `{"type":"commandExecution","id":` + jsonString(id) + `,"command":` + jsonString(command) + `,"cwd":"/work","status":"completed","exitCode":0,"aggregatedOutput":` + jsonString(output) + `}`
	return `{"method":"item/completed","params":{"threadId":"thr_gen","turnId":"turn_1","item":` + item + `}}`
}

func s2c(line string) Frame { return Frame{"s2c", line} }

// cuts returns n-1 sorted distinct cut points inside (0, len).
func cuts(r *rand.Rand, length, n int) []int {
	var cs []int
	for len(cs) < n-1 {
		c := 1 + r.IntN(length-1)
		if !containsInt(cs, c) {
			cs = append(cs, c)
		}
	}
	sort.Ints(cs)
	return cs
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func genPlace(text, p, id string, r *rand.Rand) []Frame {
	switch p {
	case "output":
		return []Frame{s2c(outputDelta(id, "$ cat secret.txt\n"+text+"\n"))}
	case "stderr-lines":
		var fs []Frame
		for _, l := range strings.Split(text, "\n") {
			fs = append(fs, Frame{"stderr", l})
		}
		return fs
	case "error-message":
		return []Frame{
			{"c2s", `{"id":"` + id + `","method":"command/exec","params":{"command":["./deploy.sh"]}}`},
			s2c(`{"id":"` + id + `","error":{"code":-32603,"message":` + jsonString("deploy failed: "+text) + `}}`),
		}
	case "aggregated":
		return []Frame{s2c(itemCompleted(id, "/bin/bash -lc 'cat secret.txt'", text+"\n"))}
	case "split-2", "split-3":
		n := 2
		if p == "split-3" {
			n = 3
		}
		full := "$ cat secret.txt\n" + text + "\n"
		start := len("$ cat secret.txt\n")
		var fs []Frame
		last := 0
		for _, c := range cuts(r, len(text), n) {
			fs = append(fs, s2c(outputDelta(id, full[last:start+c])))
			last = start + c
		}
		return append(fs, s2c(outputDelta(id, full[last:])))
	case "base64-split-2":
		full := text + "\n"
		c := cuts(r, len(text), 2)[0]
		var fs []Frame
		for _, part := range []string{full[:c], full[c:]} {
			fs = append(fs, s2c(`{"method":"command/exec/outputDelta","params":{"processId":`+jsonString(id)+`,"stream":"stdout","deltaBase64":"`+base64.StdEncoding.EncodeToString([]byte(part))+`","capReached":false}}`))
		}
		return fs
	case "percent":
		return []Frame{s2c(outputDelta(id, "GET /oauth/callback?state=x&next="+url.PathEscape(text)+" 302\n"))}
	case "json-in-json":
		inner, _ := json.Marshal(map[string]string{"api_key": text})
		outer, _ := json.Marshal(map[string]string{"config": string(inner)})
		return []Frame{s2c(outputDelta(id, "$ cat settings.json\n"+string(outer)+"\n"))}
	case "u-escapes":
		line := outputDelta(id, "$ cat secret.txt\n"+text+"\n")
		return []Frame{s2c(uEscape(line, text))}
	case "base64-wrap-60", "base64-wrap-76":
		n := 60
		if p == "base64-wrap-76" {
			n = 76
		}
		return []Frame{s2c(outputDelta(id, "$ base64 -w "+fmt.Sprint(n)+" secret.txt\n"+wrap(base64.StdEncoding.EncodeToString([]byte(text+"\n")), n)+"\n"))}
	case "ids":
		// The secret as a JSON-RPC id (a request, its response, an error response)
		// and as the id-like fields of a notification (thread, turn, item ids).
		v := jsonString(text)
		return []Frame{
			{"c2s", `{"id":` + v + `,"method":"thread/start","params":{"cwd":"/work"}}`},
			s2c(`{"id":` + v + `,"result":{"thread":{"id":` + v + `}}}`),
			{"c2s", `{"id":` + v + `,"method":"turn/start","params":{"threadId":` + v + `,"input":[]}}`},
			s2c(`{"id":` + v + `,"error":{"code":-32600,"message":"unknown thread"}}`),
			s2c(`{"method":"item/started","params":{"threadId":` + v + `,"turnId":` + v + `,"item":{"type":"commandExecution","id":` + v + `,"command":"ls","cwd":"/work","status":"inProgress"}}}`),
		}
	}
	panic("unknown placement " + p)
}

// uEscape writes every fifth letter or digit of text inside the JSON line as a
// \u00XX escape (valid JSON that spells it differently).
func uEscape(line, text string) string {
	enc := jsonString(text)
	enc = enc[1 : len(enc)-1]
	var b strings.Builder
	n := 0
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		if c == '\\' && i+1 < len(enc) {
			b.WriteString(enc[i : i+2])
			i++
			continue
		}
		if isAlnumByte(c) {
			if n++; n%5 == 0 {
				fmt.Fprintf(&b, `\u%04x`, c)
				continue
			}
		}
		b.WriteByte(c)
	}
	return strings.Replace(line, enc, b.String(), 1)
}

func isAlnumByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
