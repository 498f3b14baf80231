package secretcorpus

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// RecordedFrame is one frame line of a recording, as JudgeGen reads it.
type recordedFrame struct {
	Type string          `json:"type"`
	Dir  string          `json:"dir"`
	Msg  json.RawMessage `json:"msg"`
	Raw  *string         `json:"raw"`
}

// JudgeGen decides one generated case from the recording lines its frames became
// (frame lines in order, with whatever annotations follow them). For a secret it
// returns where a piece survived ("" when none did), looking in every string of
// every line, in each string decoded (percent-encoding, JSON inside the string,
// base64 runs, wrapped base64 joined across lines, two levels deep) and in the
// concatenation of the case's deltas per stream and of its stderr lines. For a near
// miss it reports whether a frame was recorded other than as it was sent.
func JudgeGen(c GenCase, lines [][]byte) (leak string, falsePositive bool) {
	var strs []string
	streams := map[string]*strings.Builder{}
	appendTo := func(k, s string) {
		b := streams[k]
		if b == nil {
			b = &strings.Builder{}
			streams[k] = b
		}
		b.WriteString(s)
	}
	var frames []recordedFrame
	for _, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		strs = append(strs, string(line))
		var v any
		if json.Unmarshal(line, &v) == nil {
			collect(v, &strs)
		}
		var f recordedFrame
		if json.Unmarshal(line, &f) != nil || f.Type != "frame" {
			continue
		}
		frames = append(frames, f)
		if f.Dir == "stderr" && f.Raw != nil {
			appendTo("stderr", *f.Raw+"\n")
			continue
		}
		var m struct {
			Params struct {
				ItemID, ProcessID, Stream string
				Delta, DeltaBase64        *string
			}
		}
		if json.Unmarshal(f.Msg, &m) != nil {
			continue
		}
		p := m.Params
		switch {
		case p.Delta != nil:
			appendTo(f.Dir+"/"+p.ItemID, *p.Delta)
		case p.DeltaBase64 != nil:
			d, _ := base64.StdEncoding.DecodeString(*p.DeltaBase64)
			appendTo(f.Dir+"/"+p.ProcessID+"/"+p.Stream, string(d))
		}
	}
	if c.Secret == nil {
		if len(frames) != len(c.Frames) {
			return "", true
		}
		for i, f := range frames {
			want := c.Frames[i].Line
			got := string(f.Msg)
			if f.Dir == "stderr" && f.Raw != nil {
				got = *f.Raw
			}
			if got != want {
				return "", true
			}
		}
		return "", false
	}
	for _, b := range streams {
		strs = append(strs, b.String())
	}
	hay := decodedViews(strs, 2)
	for _, p := range c.Secret.Pieces {
		for _, h := range hay {
			if strings.Contains(h, p) {
				return "piece " + Mask(p), false
			}
		}
	}
	return "", false
}

// decodedViews returns strs with, depth levels deep, their percent-decoding, the
// strings of JSON they hold, and their base64 runs decoded (wrapped lines joined).
func decodedViews(strs []string, depth int) []string {
	out := append([]string(nil), strs...)
	level := strs
	for range depth {
		var next []string
		for _, s := range level {
			if strings.Contains(s, "%") {
				if d := percentDecode(s); d != s {
					next = append(next, d)
				}
			}
			if t := strings.TrimSpace(s); len(t) > 1 && (t[0] == '{' || t[0] == '[' || t[0] == '"') {
				var v any
				if json.Unmarshal([]byte(t), &v) == nil {
					collect(v, &next)
				}
			}
			for _, l := range strings.Split(s, "\n") {
				if i := strings.Index(l, "{"); i >= 0 {
					var v any
					if json.Unmarshal([]byte(l[i:]), &v) == nil {
						collect(v, &next)
					}
				}
			}
			joined := joinWrapped(s)
			next = append(next, withDecoded([]string{joined})[1:]...)
			if joined != s {
				next = append(next, joined)
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// percentDecode decodes %XX sequences, leaving anything else as it is.
func percentDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// joinWrapped removes the line breaks between lines made only of base64 characters
// (base64 -w N output), so a wrapped run decodes whole.
func joinWrapped(s string) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if i+1 < len(lines) && !(isB64Line(l) && isB64Line(lines[i+1])) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func isB64Line(l string) bool {
	if len(l) < 4 {
		return false
	}
	for i := 0; i < len(l); i++ {
		if !isB64(l[i]) {
			return false
		}
	}
	return true
}

// JudgeGenFile judges a whole recording made from the frames of cases in any order
// (record -- CMD echoing them): it returns, per secret case, where a piece survived
// anywhere in the file (in the same views as JudgeGen, with deltas joined per stream
// and stderr lines joined), and per near miss whether one of its frames is missing
// from the file as it was sent (its message embedded byte for byte, or its text line
// as a JSON string).
func JudgeGenFile(recording []byte, cases []GenCase) (leaks map[int]string, falsePositives map[int]bool) {
	var strs []string
	streams := map[string]*strings.Builder{}
	appendTo := func(k, s string) {
		b := streams[k]
		if b == nil {
			b = &strings.Builder{}
			streams[k] = b
		}
		b.WriteString(s)
	}
	for _, line := range bytes.Split(recording, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v any
		if json.Unmarshal(line, &v) == nil {
			collect(v, &strs)
		}
		var f recordedFrame
		if json.Unmarshal(line, &f) != nil || f.Type != "frame" {
			continue
		}
		if f.Raw != nil {
			appendTo(f.Dir+"/text", *f.Raw+"\n")
		}
		var m struct {
			Params struct {
				ItemID, ProcessID, Stream string
				Delta, DeltaBase64        *string
			}
		}
		if json.Unmarshal(f.Msg, &m) != nil {
			continue
		}
		p := m.Params
		switch {
		case p.Delta != nil:
			appendTo(f.Dir+"/"+p.ItemID, *p.Delta)
		case p.DeltaBase64 != nil:
			d, _ := base64.StdEncoding.DecodeString(*p.DeltaBase64)
			appendTo(f.Dir+"/"+p.ProcessID+"/"+p.Stream, string(d))
		}
	}
	for _, b := range streams {
		strs = append(strs, b.String())
	}
	hay := decodedViews(strs, 2)
	// Every piece is looked for in one pass over the views: pieces by their first 8
	// bytes.
	type want struct {
		c     int
		piece string
	}
	byPrefix := map[string][]want{}
	for i, c := range cases {
		if c.Secret == nil {
			continue
		}
		for _, p := range c.Secret.Pieces {
			byPrefix[p[:8]] = append(byPrefix[p[:8]], want{i, p})
		}
	}
	leaks = map[int]string{}
	for _, h := range hay {
		for k := 0; k+8 <= len(h); k++ {
			for _, w := range byPrefix[h[k:k+8]] {
				if _, done := leaks[w.c]; !done && strings.HasPrefix(h[k:], w.piece) {
					leaks[w.c] = "piece " + Mask(w.piece)
				}
			}
		}
	}
	falsePositives = map[int]bool{}
	for i, c := range cases {
		if c.Secret != nil {
			continue
		}
		for _, f := range c.Frames {
			form := []byte(f.Line)
			if !json.Valid(form) {
				form = []byte(jsonString(f.Line))
			}
			if !bytes.Contains(recording, form) {
				falsePositives[i] = true
			}
		}
	}
	return leaks, falsePositives
}
