package view

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Overview is what a recording holds, in a few lines: its header, frame counts,
// methods and the agent's replies (codexrec summary).
type Overview struct {
	File         string            `json:"file"`
	CodexVersion string            `json:"codexVersion,omitempty"`
	Scenario     string            `json:"scenario,omitempty"`
	Frames       map[string]int    `json:"frames"` // by direction: c2s, s2c, stderr
	Findings     int               `json:"findings"`
	Trailer      *recorder.Trailer `json:"trailer"` // nil when the recording was cut short
	Methods      []MethodCount     `json:"methods"`
	Replies      []string          `json:"replies"`
}

// MethodCount is how often a method was sent in one direction as one kind.
type MethodCount struct {
	Dir    string `json:"dir"`
	Kind   string `json:"kind"`
	Method string `json:"method"`
	Count  int    `json:"count"`
}

// NewOverview reads rec, found at file, into an Overview.
func NewOverview(file string, rec *recorder.Recording) *Overview {
	o := &Overview{File: file, CodexVersion: rec.Header.CodexVersion, Scenario: rec.Header.Scenario,
		Frames: map[string]int{}, Trailer: rec.Trailer, Methods: []MethodCount{}, Replies: []string{}}
	for _, d := range []wire.Direction{wire.ClientToServer, wire.ServerToClient, wire.Stderr} {
		o.Frames[d.String()] = 0
	}
	methods := map[string]*MethodCount{}
	var delta strings.Builder
	for _, e := range rec.Entries {
		switch e.Type {
		case recorder.TypeFinding:
			o.Findings++
		case recorder.TypeFrame:
			o.Frames[e.Dir.String()]++
			if e.Dir == wire.Stderr {
				continue
			}
			if e.Msg.Method != "" {
				k := e.Dir.String() + " " + e.Msg.Kind.String() + " " + e.Msg.Method
				if methods[k] == nil {
					methods[k] = &MethodCount{Dir: e.Dir.String(), Kind: e.Msg.Kind.String(), Method: e.Msg.Method}
				}
				methods[k].Count++
			}
			switch e.Msg.Method {
			case "item/agentMessage/delta":
				delta.WriteString(gjson.GetBytes(e.JSON(), "params.delta").Str)
			case "item/completed":
				item := gjson.GetBytes(e.JSON(), "params.item")
				if item.Get("type").Str == "agentMessage" {
					o.Replies = append(o.Replies, item.Get("text").Str)
					delta.Reset()
				}
			}
		}
	}
	if delta.Len() > 0 {
		o.Replies = append(o.Replies, delta.String())
	}
	keys := make([]string, 0, len(methods))
	for k := range methods {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o.Methods = append(o.Methods, *methods[k])
	}
	return o
}

// WriteText writes the overview as aligned lines.
func (o *Overview) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "recording  %s\n", o.File)
	fmt.Fprintf(&b, "codex      %s\n", dash(o.CodexVersion))
	if o.Scenario != "" {
		fmt.Fprintf(&b, "scenario   %s\n", o.Scenario)
	}
	fmt.Fprintf(&b, "frames     c2s %d, s2c %d, stderr %d\n", o.Frames["c2s"], o.Frames["s2c"], o.Frames["stderr"])
	if o.Findings > 0 {
		fmt.Fprintf(&b, "findings   %d\n", o.Findings)
	}
	if t := o.Trailer; t != nil {
		fmt.Fprintf(&b, "ended      %s, exit code %d, %.2fs\n", t.Ended, t.ExitCode, t.Duration)
	} else {
		fmt.Fprintf(&b, "ended      (no trailer: the recording was cut short)\n")
	}
	fmt.Fprintln(&b, "methods")
	for _, m := range o.Methods {
		fmt.Fprintf(&b, "  %4d  %s %s %s\n", m.Count, m.Dir, m.Kind, m.Method)
	}
	for _, r := range o.Replies {
		fmt.Fprintf(&b, "agent      %q\n", r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the overview as one indented JSON document.
func (o *Overview) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(o)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
