// Package upgrade judges what a Codex upgrade changes for a client: given each
// recording's pair of sessions (before and after, as rerun made them) and the schema
// diff of the two versions, it says per recording same, changed or breaking, with the
// fields each method gained, lost or retyped, and writes the report as text or JSON.
// Run does the whole upgrade: it reruns each recording on both versions through
// fixtures (capture's machinery) first. It draws no HTML (package view) and parses
// no flags.
package upgrade

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/sanitize"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// Status is a recording's verdict.
type Status string

const (
	Same     Status = "same"     // equal after normalisation (moves of asynchronous messages aside)
	Changed  Status = "changed"  // the server answers differently
	Breaking Status = "breaking" // a request the new server rejects, a schema break in a method used, or a failed rerun
)

// Report is an upgrade's outcome.
type Report struct {
	From       string             `json:"from"`
	To         string             `json:"to"`
	Schema     *diff.SchemaReport `json:"schema"`
	Recordings []Recording        `json:"recordings"`
}

// Recording is one recording's result.
type Recording struct {
	Name   string `json:"name"`
	Old    string `json:"old"` // the session on From (the recording itself, or its rerun)
	New    string `json:"new"` // its rerun on To
	Status Status `json:"status"`
	// Why lists what made it breaking: rejected requests, schema breaks, a failure.
	Why []string `json:"why,omitempty"`
	// Methods are the per-method field changes the diff found.
	Methods []MethodChange `json:"methods,omitempty"`
	// Notes are what rerun could not reconstruct or where it went its own way.
	Notes []string `json:"notes,omitempty"`
	// Diff is the pair's diff (nil when a rerun failed); DiffPage the file of its
	// HTML view, when one was written.
	Diff     *diff.Report `json:"diff,omitempty"`
	DiffPage string       `json:"diffPage,omitempty"`
}

// MethodChange counts one method's field changes in a pair's diff.
type MethodChange struct {
	Dir     string   `json:"dir"`
	Kind    string   `json:"kind"`
	Method  string   `json:"method"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Retyped []string `json:"retyped,omitempty"`
	Other   int      `json:"other,omitempty"` // value changes, moves, messages added or removed
}

// Judge classifies one pair: old and new are the recordings, r their diff, schema
// the versions' schema diff (nil for none).
func Judge(name string, old, new *recorder.Recording, r *diff.Report, schema *diff.SchemaReport) Recording {
	out := Recording{Name: name, Old: old.Name, New: new.Name, Diff: r, Status: Same}
	out.Why = append(out.Why, rejected(old, new)...)
	used := usedMethods(old)
	if schema != nil {
		for _, c := range schema.Changes {
			if c.Tier == diff.TierBreaking && used[c.Subject] {
				out.Why = append(out.Why, fmt.Sprintf("schema: %s %s %s", c.Subject, c.Rule, c.Path))
			}
		}
	}
	out.Methods = methodChanges(r)
	switch {
	case len(out.Why) > 0:
		out.Status = Breaking
	case !r.Same && !r.OnlyMoves():
		out.Status = Changed
	}
	return out
}

// Failed is the verdict on a recording whose rerun failed.
func Failed(name string, err error) Recording {
	return Recording{Name: name, Status: Breaking, Why: []string{"rerun failed: " + firstLine(err.Error())}}
}

// rejected lists client requests that got a result in old and an error in new,
// paired by method and occurrence.
func rejected(old, new *recorder.Recording) []string {
	outcomes := func(rec *recorder.Recording) map[string][]bool {
		out := map[string][]bool{}
		for _, e := range rec.Frames(wire.ServerToClient) {
			if e.Msg.Kind == wire.KindResponse || e.Msg.Kind == wire.KindError {
				if e.Msg.Method != "" {
					out[e.Msg.Method] = append(out[e.Msg.Method], e.Msg.Kind == wire.KindResponse)
				}
			}
		}
		return out
	}
	o, n := outcomes(old), outcomes(new)
	var why []string
	for _, m := range slices.Sorted(maps.Keys(o)) {
		for i, ok := range o[m] {
			if ok && i < len(n[m]) && !n[m][i] {
				why = append(why, fmt.Sprintf("%s (#%d) is rejected: %s", m, i+1, errorMessage(new, m, i)))
			}
		}
	}
	return why
}

func errorMessage(rec *recorder.Recording, method string, n int) string {
	i := 0
	for _, e := range rec.Frames(wire.ServerToClient) {
		if (e.Msg.Kind == wire.KindResponse || e.Msg.Kind == wire.KindError) && e.Msg.Method == method {
			if i == n {
				return firstLine(gjson.GetBytes(wire.Content(e.Line), "error.message").Str)
			}
			i++
		}
	}
	return ""
}

// usedMethods are the schema diff subjects of the methods a recording has
// ("client request thread/start").
func usedMethods(rec *recorder.Recording) map[string]bool {
	used := map[string]bool{}
	for _, e := range rec.Frames() {
		if e.Msg.Method == "" || (e.Msg.Kind != wire.KindRequest && e.Msg.Kind != wire.KindNotification) {
			continue
		}
		sender := "client"
		if e.Dir == wire.ServerToClient {
			sender = "server"
		}
		used[sender+" "+e.Msg.Kind.String()+" "+e.Msg.Method] = true
	}
	return used
}

func methodChanges(r *diff.Report) []MethodChange {
	var out []MethodChange
	for _, g := range r.Groups {
		mc := MethodChange{Dir: g.Dir, Kind: g.Kind, Method: g.Method}
		for _, c := range g.Changes {
			switch c.Change {
			case diff.Added:
				mc.Added = append(mc.Added, c.Pointer)
			case diff.Removed:
				mc.Removed = append(mc.Removed, c.Pointer)
			case diff.TypeChanged:
				mc.Retyped = append(mc.Retyped, c.Pointer)
			case diff.MessageMoved:
			default:
				mc.Other++
			}
		}
		if len(mc.Added)+len(mc.Removed)+len(mc.Retyped)+mc.Other > 0 {
			out = append(out, mc)
		}
	}
	return out
}

// Breaking reports whether anything is breaking: a recording, or the schema diff.
func (r *Report) Breaking() bool {
	if r.Schema != nil {
		if worst, any := r.Schema.Worst(); any && worst >= diff.TierBreaking {
			return true
		}
	}
	for _, rec := range r.Recordings {
		if rec.Status == Breaking {
			return true
		}
	}
	return false
}

// Counts returns how many recordings have each status.
func (r *Report) Counts() map[Status]int {
	out := map[Status]int{}
	for _, rec := range r.Recordings {
		out[rec.Status]++
	}
	return out
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Write writes the report for a reader: as JSON (WriteJSON), or as text
// (WriteText) with its secret-shaped values masked, since it quotes recordings
// (methods, a server's error messages).
func (r *Report) Write(w io.Writer, asJSON bool) error {
	if asJSON {
		return r.WriteJSON(w)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		return err
	}
	_, err := io.WriteString(w, sanitize.MaskText(b.String()))
	return err
}

// WriteText writes the summary table, then each recording's reasons and changes.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "codex %s -> %s\n", r.From, r.To)
	if r.Schema != nil {
		fmt.Fprintf(&b, "schema: %d breaking, %d warning, %d info; methods added %d, removed %d\n",
			r.Schema.Breaking, r.Schema.Warning, r.Schema.Info, len(r.Schema.MethodsAdded), len(r.Schema.MethodsRemoved))
	}
	b.WriteString("\n")
	b.WriteString(r.Table())
	for _, rec := range r.Recordings {
		if rec.Status == Same && len(rec.Notes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s: %s\n", rec.Name, rec.Status)
		for _, y := range rec.Why {
			fmt.Fprintf(&b, "  ! %s\n", y)
		}
		for _, m := range rec.Methods {
			fmt.Fprintf(&b, "  %s %s %s:%s\n", m.Dir, m.Kind, m.Method, m.summary())
		}
		for _, n := range rec.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Table is the summary table: per recording its status and counts.
func (r *Report) Table() string {
	var b strings.Builder
	wName := len("recording")
	for _, rec := range r.Recordings {
		wName = max(wName, len(rec.Name))
	}
	fmt.Fprintf(&b, "%-*s  %-8s  %7s  %7s  %7s  %s\n", wName, "recording", "status", "added", "removed", "retyped", "methods changed")
	for _, rec := range r.Recordings {
		var a, rm, rt int
		var methods []string
		for _, m := range rec.Methods {
			a, rm, rt = a+len(m.Added), rm+len(m.Removed), rt+len(m.Retyped)
			methods = append(methods, m.Method)
		}
		fmt.Fprintf(&b, "%-*s  %-8s  %7d  %7d  %7d  %s\n", wName, rec.Name, rec.Status, a, rm, rt, strings.Join(dedupe(methods), ", "))
	}
	c := r.Counts()
	fmt.Fprintf(&b, "%d same, %d changed, %d breaking\n", c[Same], c[Changed], c[Breaking])
	return b.String()
}

func (m MethodChange) summary() string {
	var parts []string
	if len(m.Added) > 0 {
		parts = append(parts, " added "+strings.Join(m.Added, " "))
	}
	if len(m.Removed) > 0 {
		parts = append(parts, " removed "+strings.Join(m.Removed, " "))
	}
	if len(m.Retyped) > 0 {
		parts = append(parts, " retyped "+strings.Join(m.Retyped, " "))
	}
	if m.Other > 0 {
		parts = append(parts, fmt.Sprintf(" %d other change(s)", m.Other))
	}
	return strings.Join(parts, ";")
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// firstLine is s's first line, cut at 160 bytes (a server's error may list every method).
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		i := 160
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "…"
	}
	return s
}
