package secretcorpus

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// Case is one secret (or near miss) in one placement: the lines a client sends
// (`record -- cat` echoes each back, so the recording holds them in both directions).
type Case struct {
	Provider, Placement string
	Lines               []string
	Secret              *Secret   // nil for a near miss
	Negative            *Negative // nil for a secret
}

// Placements are the names of the placements every secret gets, in order; PEM blocks
// also get "pem-3-deltas".
var Placements = []string{"output", "prose", "diff", "env-map", "dotenv", "json-dump", "yaml", "delta-base64", "kubectl", "split-two", "split-prefix"}

// jsonString encodes s as serde_json does (no HTML escaping).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func outputDelta(item, delta string) string {
	return `{"method":"item/commandExecution/outputDelta","params":{"threadId":"thr_corpus","turnId":"turn_1","itemId":` + jsonString(item) + `,"delta":` + jsonString(delta) + `}}`
}

func agentDelta(item, delta string) string {
	return `{"method":"item/agentMessage/delta","params":{"threadId":"thr_corpus","turnId":"turn_1","itemId":` + jsonString(item) + `,"delta":` + jsonString(delta) + `}}`
}

// snake is ENV_NAME as a YAML key, camel as a JSON key.
func snake(env string) string { return strings.ToLower(env) }

func camel(env string) string {
	parts := strings.Split(strings.ToLower(env), "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// Cases returns every secret in every placement. ids keep items apart: each case's
// deltas belong to their own item or process.
func Cases() []Case {
	var out []Case
	for i, s := range Secrets() {
		s := s
		for _, p := range Placements {
			out = append(out, Case{Provider: s.Provider, Placement: p, Secret: &s, Lines: place(s, p, fmt.Sprintf("c%d-%s", i, p))})
		}
		if s.PEM {
			out = append(out, Case{Provider: s.Provider, Placement: "pem-3-deltas", Secret: &s, Lines: SplitDeltas(s.Value, fmt.Sprintf("c%d-pem", i), 3)})
		}
	}
	return out
}

// SplitDeltas cuts text into n command-output deltas of one item.
func SplitDeltas(text, item string, n int) []string {
	var lines []string
	for k := range n {
		lines = append(lines, outputDelta(item, text[k*len(text)/n:(k+1)*len(text)/n]))
	}
	return lines
}

// SplitAt is text cut at k into two agent-message deltas of one item.
func SplitAt(text, item string, k int) []string {
	return []string{agentDelta(item, text[:k]), agentDelta(item, text[k:])}
}

// SplitBase64At is text cut at k into two command/exec deltaBase64 frames of one
// process's stdout.
func SplitBase64At(text, process string, k int) []string {
	f := func(b string) string {
		return `{"method":"command/exec/outputDelta","params":{"processId":` + jsonString(process) + `,"stream":"stdout","deltaBase64":"` + base64.StdEncoding.EncodeToString([]byte(b)) + `","capReached":false}}`
	}
	return []string{f(text[:k]), f(text[k:])}
}

func place(s Secret, p, id string) []string {
	v := s.Value
	switch p {
	case "output":
		return []string{outputDelta(id, "$ cat ~/.config/deploy/credentials\n"+v+"\n")}
	case "prose":
		return []string{agentDelta(id, "I found this credential in your shell history: "+v+" - you should rotate it.")}
	case "diff":
		return []string{`{"method":"turn/diff/updated","params":{"threadId":"thr_corpus","turnId":` + jsonString(id) + `,"diff":` +
			jsonString("diff --git a/.env b/.env\n--- a/.env\n+++ b/.env\n@@ -1,2 +1,2 @@\n NODE_ENV=production\n-"+s.Env+"=\n+"+s.Env+"="+v+"\n") + `}}`}
	case "env-map":
		return []string{`{"id":"` + id + `","method":"command/exec","params":{"command":["./deploy.sh"],"env":{` + jsonString(s.Env) + `:` + jsonString(v) + `}}}`}
	case "dotenv":
		val := v
		if s.PEM {
			val = `"` + v + `"`
		}
		return []string{outputDelta(id, "$ cat .env\nNODE_ENV=production\n"+s.Env+"="+val+"\nPORT=8080\n")}
	case "json-dump":
		return []string{outputDelta(id, "$ cat config.json\n{\n  \"service\": \"billing\",\n  "+jsonString(camel(s.Env))+": "+jsonString(v)+",\n  \"port\": 8080\n}\n")}
	case "yaml":
		val := v
		if s.PEM {
			val = "|\n    " + strings.ReplaceAll(v, "\n", "\n    ")
		}
		return []string{outputDelta(id, "$ cat config.yaml\nservice:\n  name: billing\n  "+snake(s.Env)+": "+val+"\n  port: 8080\n")}
	case "delta-base64":
		return []string{`{"method":"command/exec/outputDelta","params":{"processId":` + jsonString(id) + `,"stream":"stdout","deltaBase64":"` +
			base64.StdEncoding.EncodeToString([]byte("export "+s.Env+"='"+v+"'\n")) + `","capReached":false}}`}
	case "kubectl":
		return []string{outputDelta(id, "$ kubectl get secret app -o yaml\napiVersion: v1\ndata:\n  "+s.Env+": "+base64.StdEncoding.EncodeToString([]byte(v))+"\nkind: Secret\nmetadata:\n  name: app\n  namespace: default\ntype: Opaque\n")}
	case "split-two":
		text := "The key is " + v + " and it works."
		return SplitAt(text, id, len("The key is ")+len(v)/2)
	case "split-prefix":
		text := "key: " + v + "\n"
		return SplitAt(text, id, len("key: ")+2)
	}
	panic("unknown placement " + p)
}
