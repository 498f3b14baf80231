package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

func init() {
	register(&command{
		name:         "summary",
		args:         "FILE",
		summary:      "print a recording's header, frame counts, methods and the agent's replies",
		run:          runSummary,
		interspersed: true,
	})
}

func runSummary(_ any, args []string, std stdio) error {
	if len(args) != 1 {
		return usagef("want exactly one recording")
	}
	rec, err := recorder.ReadFile(args[0])
	if err != nil {
		return err
	}
	warnProblems(std.err, "summary", recordingProblems{rec})
	h := rec.Header
	w := std.out
	fmt.Fprintf(w, "recording  %s\n", args[0])
	fmt.Fprintf(w, "codex      %s\n", orDash(h.CodexVersion))
	if h.Scenario != "" {
		fmt.Fprintf(w, "scenario   %s\n", h.Scenario)
	}
	counts := map[wire.Direction]int{}
	methods := map[string]int{}
	var replies []string
	var delta strings.Builder
	findings := 0
	for _, e := range rec.Entries {
		switch e.Type {
		case recorder.TypeFinding:
			findings++
		case recorder.TypeFrame:
			counts[e.Dir]++
			if e.Dir == wire.Stderr {
				continue
			}
			if e.Msg.Method != "" {
				methods[e.Dir.String()+" "+e.Msg.Kind.String()+" "+e.Msg.Method]++
			}
			switch e.Msg.Method {
			case "item/agentMessage/delta":
				delta.WriteString(gjson.GetBytes(e.JSON(), "params.delta").Str)
			case "item/completed":
				item := gjson.GetBytes(e.JSON(), "params.item")
				if item.Get("type").Str == "agentMessage" {
					replies = append(replies, item.Get("text").Str)
					delta.Reset()
				}
			}
		}
	}
	if delta.Len() > 0 {
		replies = append(replies, delta.String())
	}
	fmt.Fprintf(w, "frames     c2s %d, s2c %d, stderr %d\n", counts[wire.ClientToServer], counts[wire.ServerToClient], counts[wire.Stderr])
	if findings > 0 {
		fmt.Fprintf(w, "findings   %d\n", findings)
	}
	if t := rec.Trailer; t != nil {
		fmt.Fprintf(w, "ended      %s, exit code %d, %.2fs\n", t.Ended, t.ExitCode, t.Duration)
	} else {
		fmt.Fprintf(w, "ended      (no trailer: the recording was cut short)\n")
	}
	keys := make([]string, 0, len(methods))
	for k := range methods {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintln(w, "methods")
	for _, k := range keys {
		fmt.Fprintf(w, "  %4d  %s\n", methods[k], k)
	}
	for _, r := range replies {
		fmt.Fprintf(w, "agent      %q\n", r)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
