package view

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// maxSummary bounds a summary's length in runes; the full message is one click
// (or --raw) away.
const maxSummary = 200

// Summarize is a one-line, human reading of a frame: what was said, not how. It knows
// the app-server's common methods (turns, items, approvals, errors) and falls back to
// the message's first fields for the rest. It never returns more than maxSummary runes.
func Summarize(e *recorder.Entry) string {
	return clip(summarize(e))
}

func summarize(e *recorder.Entry) string {
	if e.Dir == wire.Stderr {
		return stripANSI(head(bytesString(wire.Content(e.Line))))
	}
	switch e.Msg.Kind {
	case wire.KindRaw:
		return e.Msg.Reason + ": " + head(bytesString(wire.Content(e.Line)))
	case wire.KindUnknown:
		return e.Msg.Reason + ": " + compact(gjson.Parse(bytesString(e.JSON())))
	}
	msg := gjson.Parse(bytesString(e.JSON()))
	switch e.Msg.Kind {
	case wire.KindError:
		s := "error"
		if c := msg.Get("error.code"); c.Exists() {
			s += " " + c.Raw
		}
		return s + ": " + msg.Get("error.message").Str
	case wire.KindResponse:
		return summarizeResult(e.Msg.Method, msg.Get("result"))
	}
	return summarizeParams(e.Msg.Method, msg.Get("params"))
}

// summarizeParams reads a request's or notification's params.
func summarizeParams(method string, p gjson.Result) string {
	switch method {
	case "initialize":
		ci := p.Get("clientInfo")
		return join(ci.Get("name").Str, ci.Get("version").Str)
	case "turn/start", "turn/steer":
		return quote(userInput(p.Get("input")))
	case "turn/started":
		return "turn " + p.Get("turn.id").Str
	case "turn/completed":
		t := p.Get("turn")
		s := "turn " + t.Get("status").Str
		if m := t.Get("error.message"); m.Exists() {
			s += ": " + m.Str
		}
		return s
	case "turn/interrupt":
		return "turn " + p.Get("turnId").Str
	case "thread/start":
		return join(p.Get("model").Str, p.Get("cwd").Str)
	case "thread/resume", "thread/read", "thread/archive", "thread/fork":
		return "thread " + p.Get("threadId").Str
	case "thread/started":
		return "thread " + p.Get("thread.id").Str
	case "thread/status/changed":
		st := p.Get("status")
		s := st.Get("type").Str
		if f := st.Get("activeFlags"); len(f.Array()) > 0 {
			s += " " + compact(f)
		}
		return s
	case "thread/tokenUsage/updated":
		return "tokens total " + p.Get("tokenUsage.total.totalTokens").Raw + ", last " + p.Get("tokenUsage.last.totalTokens").Raw
	case "item/started", "item/completed":
		return summarizeItem(p.Get("item"))
	case "item/agentMessage/delta", "item/commandExecution/outputDelta", "item/reasoning/textDelta",
		"item/reasoning/summaryTextDelta", "item/plan/delta", "item/fileChange/outputDelta":
		return quote(head(p.Get("delta").Str))
	case "item/commandExecution/requestApproval":
		return join("approve command", commandText(p.Get("command")), reason(p))
	case "execCommandApproval":
		return join("approve command", commandText(p.Get("command")), reason(p))
	case "item/fileChange/requestApproval":
		return join("approve file change", reason(p))
	case "applyPatchApproval":
		return join("approve patch", strings.Join(keys(p.Get("fileChanges")), ", "), reason(p))
	case "item/permissions/requestApproval":
		return join("approve permissions", reason(p))
	case "item/tool/requestUserInput":
		var qs []string
		for _, q := range p.Get("questions").Array() {
			qs = append(qs, q.Get("question").Str)
		}
		return join("ask user", quote(strings.Join(qs, " / ")))
	case "mcpServer/elicitation/request":
		return join("elicitation", p.Get("serverName").Str, quote(p.Get("message").Str))
	case "serverRequest/resolved":
		return "request " + p.Get("requestId").Raw + " resolved"
	case "error":
		s := "error: " + p.Get("error.message").Str
		if p.Get("willRetry").Bool() {
			s += " (will retry)"
		}
		return s
	case "warning":
		return "warning: " + p.Get("message").Str
	case "configWarning":
		return "config warning: " + p.Get("summary").Str
	case "turn/diff/updated":
		var files []string
		for _, l := range strings.Split(p.Get("diff").Str, "\n") {
			if f, ok := strings.CutPrefix(l, "+++ "); ok {
				files = append(files, strings.TrimPrefix(f, "b/"))
			}
		}
		return join("diff", strings.Join(files, ", "))
	case "account/rateLimits/updated":
		return join("rate limits", p.Get("rateLimits.limitId").Str)
	case "deprecationNotice":
		return "deprecation: " + p.Get("summary").Str
	case "mcpServer/startupStatus/updated", "mcpServer/status/updated":
		return join(p.Get("name").Str, p.Get("status").Str)
	}
	return compact(p)
}

// summarizeResult reads a response's result; method is the request it answers.
func summarizeResult(method string, r gjson.Result) string {
	switch method {
	case "initialize":
		return r.Get("userAgent").Str
	case "thread/start", "thread/resume", "thread/fork":
		return join("thread "+r.Get("thread.id").Str, r.Get("model").Str)
	case "turn/start":
		return "turn " + r.Get("turn.id").Str
	case "turn/steer":
		return "turn " + r.Get("turnId").Str
	case "item/commandExecution/requestApproval", "item/fileChange/requestApproval",
		"execCommandApproval", "applyPatchApproval", "item/permissions/requestApproval":
		return "decision " + decision(r.Get("decision"))
	case "mcpServer/elicitation/request":
		return "action " + r.Get("action").Str
	}
	if r.IsObject() && len(r.Map()) == 0 {
		return "ok"
	}
	return compact(r)
}

func summarizeItem(it gjson.Result) string {
	typ := it.Get("type").Str
	switch typ {
	case "agentMessage":
		return join("agentMessage", quote(it.Get("text").Str))
	case "userMessage":
		return join("userMessage", quote(userInput(it.Get("content"))))
	case "commandExecution":
		s := join("commandExecution", commandText(it.Get("command")), it.Get("status").Str)
		if c := it.Get("exitCode"); c.Exists() && c.Type != gjson.Null {
			s += ", exit " + c.Raw
		}
		return s
	case "fileChange":
		var paths []string
		for _, c := range it.Get("changes").Array() {
			paths = append(paths, c.Get("kind.type").Str+" "+c.Get("path").Str)
		}
		return join("fileChange", strings.Join(paths, ", "), it.Get("status").Str)
	case "mcpToolCall":
		s := join("mcpToolCall", it.Get("server").Str+"."+it.Get("tool").Str, it.Get("status").Str)
		if m := it.Get("error.message"); m.Exists() {
			s += ": " + m.Str
		}
		return s
	case "dynamicToolCall":
		return join("dynamicToolCall", it.Get("tool").Str, it.Get("status").Str)
	case "reasoning":
		var parts []string
		for _, s := range it.Get("summary").Array() {
			parts = append(parts, s.Str)
		}
		return join("reasoning", quote(strings.Join(parts, " ")))
	case "webSearch":
		return join("webSearch", quote(it.Get("query").Str))
	case "plan":
		return join("plan", quote(it.Get("text").Str))
	}
	return typ
}

// userInput joins the text parts of a UserInput array.
func userInput(in gjson.Result) string {
	var parts []string
	for _, x := range in.Array() {
		switch x.Get("type").Str {
		case "text":
			parts = append(parts, x.Get("text").Str)
		case "":
		default:
			parts = append(parts, "["+x.Get("type").Str+"]")
		}
	}
	return strings.Join(parts, " ")
}

// commandText is a command given as a string or an argv array.
func commandText(c gjson.Result) string {
	if c.IsArray() {
		var parts []string
		for _, a := range c.Array() {
			parts = append(parts, a.Str)
		}
		return strings.Join(parts, " ")
	}
	return c.Str
}

// decision is an approval decision: a string ("accept") or a one-key object.
func decision(d gjson.Result) string {
	if d.IsObject() {
		return strings.Join(keys(d), ",")
	}
	if d.Type == gjson.String {
		return d.Str
	}
	return d.Raw
}

func reason(p gjson.Result) string {
	if r := p.Get("reason"); r.Type == gjson.String && r.Str != "" {
		return "(" + r.Str + ")"
	}
	return ""
}

func keys(o gjson.Result) []string {
	var ks []string
	o.ForEach(func(k, _ gjson.Result) bool { ks = append(ks, k.Str); return true })
	return ks
}

// compact is a short rendering of any JSON value: the first few members of an object.
func compact(v gjson.Result) string {
	if !v.Exists() {
		return ""
	}
	if !v.IsObject() {
		return flatten(v.Raw)
	}
	var b strings.Builder
	n := 0
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "threadId", "turnId", "itemId":
			return true // shown by the grouping
		}
		if n > 0 {
			b.WriteString(" ")
		}
		b.WriteString(k.Str)
		b.WriteString("=")
		if x.Type == gjson.String {
			b.WriteString(x.Str)
		} else {
			b.WriteString(flatten(x.Raw))
		}
		n++
		return b.Len() < maxSummary
	})
	return b.String()
}

func flatten(s string) string { return strings.Join(strings.Fields(s), " ") }

func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

func quote(s string) string {
	if s == "" {
		return ""
	}
	return strconv.Quote(s)
}

// head is as much of s as a summary can show, with room for a secret that starts
// in it to be recognised whole: a 100 MB delta is not quoted and masked whole to
// show 200 characters of it.
func head(s string) string {
	n := maxSummary*4 + 4096
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clip shortens s to maxSummary runes and removes control characters, so a summary
// is always one line on a terminal.
func clip(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxSummary {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// stripANSI removes terminal escape sequences (CSI ... final byte) from stderr lines.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
