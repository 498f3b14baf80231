package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Escapes are the terminal attacks a malicious server (or an edited recording) can
// plant in any string: an OSC 52 clipboard write, an OSC window title, a CSI clear
// screen, the 8-bit C1 CSI, a carriage return and a bidi override.
var Escapes = []string{
	"\x1b]52;c;b3duZWQ=\x07",
	"\x1b]0;owned\x1b\\",
	"\x1b[2J",
	"\u009b31m",
	"\r",
	"\u202e",
}

// Secrets are secret-shaped values the sanitizer's shape rules know: what a
// recording made with sanitizing off can hold in any field.
var Secrets = []string{
	"ghp_R8x2Kq9LmZ4vT7wYb3NcH6pJ1sD5fG0aQeUi",
	"sk-proj-Qw3rT9yU1iO5pA7sD2fG4hJ6kL8zX0cV3bN5mQ1wE9rT7yU5iO3pA1sD9fG7h",
	"AKIAZ7QW3RT5YUXIO2PL",
}

// payload is one hostile string: every escape and every secret, tagged with where it
// stands so a failure names the field.
func payload(field string) string {
	return field + " " + strings.Join(Escapes, "x") + " " + strings.Join(Secrets, " ") + " end"
}

func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TerminalRecording is a recording with escapes and secrets (see Escapes, Secrets)
// in every string field a reader shows: the header's fields, method names, string
// ids, message bodies, stderr, findings, redactions, segments, exits and the
// trailer. It also holds a garbage line between frames and another after the
// trailer, and two requests with one id (the second answered after the first).
// extra more frames of deltas follow, each of size bytes.
func TerminalRecording(extra, size int) []byte {
	var b bytes.Buffer
	method := payload("method")
	id := payload("id")
	fmt.Fprintf(&b, `{"type":"header","format":1,"codexrec":%s,"started":"2026-11-29T10:00:00Z","command":[%s],"scenario":%s,"notes":[%s],"socket":{"transport":"ws","session":%s,"connection":1,"path":%s,"headers":{%s:[%s]}}}`+"\n",
		js(payload("codexrec")), js(payload("command")), js(payload("scenario")), js(payload("note")),
		js(payload("session")), js(payload("path")), js(payload("header-name")), js(payload("header-value")))
	fmt.Fprintf(&b, `{"type":"segment","t":0.001,"segment":1,"command":[%s]}`+"\n", js(payload("segment")))
	seq := 0
	frame := func(dir, kind, method, id, msg string) {
		seq++
		fmt.Fprintf(&b, `{"type":"frame","seq":%d,"t":%.3f,"dir":%q,"kind":%q`, seq, float64(seq)/1000, dir, kind)
		if method != "" {
			fmt.Fprintf(&b, `,"method":%s`, js(method))
		}
		if id != "" {
			fmt.Fprintf(&b, `,"id":%s`, js(id))
		}
		fmt.Fprintf(&b, `,"msg":%s}`+"\n", msg)
	}
	frame("c2s", "request", "initialize", "", `{"id":0,"method":"initialize","params":{"clientInfo":{"name":`+js(payload("client"))+`}}}`)
	fmt.Fprintf(&b, `{"type":"frame","seq":%d,"t":0.002,"dir":"s2c","kind":"response","method":"initialize","id":0,"msg":{"id":0,"result":{"userAgent":%s}}}`+"\n", seq+1, js(payload("userAgent")))
	seq++
	fmt.Fprintf(&b, `{"type":"meta","t":0.003,"header":{"codexVersion":%s,"schemaVersion":%s}}`+"\n", js(payload("codexVersion")), js(payload("schemaVersion")))
	// Two requests with one id, then both answers in recorded order.
	req := func(text string) string {
		return `{"id":` + js(id) + `,"method":` + js(method) + `,"params":{"text":` + js(payload(text)) + `}}`
	}
	frame("c2s", "request", method, id, req("first-request"))
	frame("c2s", "request", method, id, req("second-request"))
	fmt.Fprintf(&b, "\x00garbage %s\n", payload("garbage-line"))
	frame("s2c", "response", method, id, `{"id":`+js(id)+`,"result":{"answer":`+js(payload("first-answer"))+`}}`)
	frame("s2c", "response", method, id, `{"id":`+js(id)+`,"error":{"code":-32600,"message":`+js(payload("error-message"))+`}}`)
	frame("s2c", "notification", method, "", `{"method":`+js(method)+`,"params":{"threadId":`+js(payload("thread"))+`,"turnId":`+js(payload("turn"))+`,"itemId":`+js(payload("item"))+`,"delta":`+js(payload("delta"))+`}}`)
	seq++
	fmt.Fprintf(&b, `{"type":"frame","seq":%d,"t":0.010,"dir":"stderr","raw":%s}`+"\n", seq, js(payload("stderr")))
	seq++
	fmt.Fprintf(&b, `{"type":"frame","seq":%d,"t":0.011,"dir":"s2c","kind":"raw","reason":"not-json","raw":%s}`+"\n", seq, js(payload("raw-frame")))
	fmt.Fprintf(&b, `{"type":"finding","seq":3,"t":0.012,"dir":"c2s","rule":%s,"severity":"warning","pointer":%s,"reason":%s,"detail":%s}`+"\n",
		js(payload("rule")), js(payload("pointer")), js(payload("reason")), js(payload("detail")))
	fmt.Fprintf(&b, `{"type":"redaction","seq":3,"t":0.012,"dir":"c2s","rule":%s,"pointer":%s,"detail":%s}`+"\n",
		js(payload("redaction-rule")), js(payload("redaction-pointer")), js(payload("redaction-detail")))
	text := strings.Repeat("lorem ipsum ", size/12+1)[:size]
	for range extra {
		frame("s2c", "notification", "item/agentMessage/delta", "", `{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":`+js(text)+`}}`)
	}
	fmt.Fprintf(&b, `{"type":"exit","t":0.5,"segment":1,"exitCode":1,"signal":%s}`+"\n", js(payload("signal")))
	fmt.Fprintf(&b, `{"type":"trailer","ended":%s,"exitCode":1,"signal":%s,"error":%s,"duration":1,"frames":{"c2s":3,"s2c":%s,"stderr":1},"clientError":%s}`+"\n",
		js(payload("ended")), js(payload("trailer-signal")), js(payload("trailer-error")), strconv.Itoa(seq-4), js(payload("client-error")))
	fmt.Fprintf(&b, "\x1b]52;c;Z2FyYmFnZQ==\x07 garbage after the trailer %s\n", Secrets[0])
	return b.Bytes()
}
