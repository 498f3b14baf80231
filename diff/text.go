package diff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/codexrec/codexrec/sanitize"
	"io"
	"strings"
)

// ANSI colours for terminal output.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// painter colours text when enabled.
type painter bool

func (p painter) paint(colour, s string) string {
	if !p {
		return s
	}
	return colour + s + ansiReset
}

// WriteText writes the report for people: the summary first, then the changes
// grouped by direction and method. colour adds ANSI colours (for a terminal).
func (r *Report) WriteText(w io.Writer, colour bool) error {
	bw := bufio.NewWriter(w)
	p := painter(colour)
	side := func(label string, s SessionInfo) {
		fmt.Fprintf(bw, "%s %s", label, sanitize.MaskText(s.Name))
		var extra []string
		if s.CodexVersion != "" {
			extra = append(extra, "codex "+s.CodexVersion)
		}
		if s.Scenario != "" {
			extra = append(extra, "scenario "+s.Scenario)
		}
		if len(extra) > 0 {
			fmt.Fprintf(bw, " (%s)", strings.Join(extra, ", "))
		}
		fmt.Fprintln(bw)
	}
	side("old:", r.Old)
	side("new:", r.New)
	if r.Same {
		fmt.Fprintln(bw, p.paint(ansiBold, "summary: the same after normalisation"))
	} else {
		fmt.Fprintln(bw, p.paint(ansiBold, "summary: different"))
	}
	for _, d := range r.Directions {
		fmt.Fprintf(bw, "  %-4s messages %d old, %d new: %d aligned (%d changed), %d added, %d removed",
			d.Dir, d.Old, d.New, d.Aligned, d.Changed, d.Added, d.Removed)
		if d.Moved > 0 {
			fmt.Fprintf(bw, ", %d moved", d.Moved)
		}
		fmt.Fprintln(bw)
	}
	for _, m := range r.MethodsAdded {
		fmt.Fprintf(bw, "  %s %s %s %s (%d)\n", p.paint(ansiGreen, "+ only in new:"), m.Dir, m.Kind, sanitize.MaskText(m.Method), m.Count)
	}
	for _, m := range r.MethodsRemoved {
		fmt.Fprintf(bw, "  %s %s %s %s (%d)\n", p.paint(ansiRed, "- only in old:"), m.Dir, m.Kind, sanitize.MaskText(m.Method), m.Count)
	}
	if len(r.Groups) > 0 {
		fmt.Fprintln(bw, p.paint(ansiBold, "changes:"))
	}
	for _, g := range r.Groups {
		fmt.Fprintln(bw, p.paint(ansiCyan, fmt.Sprintf("  %s %s %s", g.Dir, g.Kind, sanitize.MaskText(g.Method))))
		for _, c := range g.Changes {
			fmt.Fprintf(bw, "    %s\n", c.line(p))
		}
	}
	return bw.Flush()
}

// line renders one change: a marker, the pointer, what changed, and where it was seen.
func (c *Change) line(p painter) string {
	var mark, colour, text string
	switch c.Change {
	case Added:
		mark, colour, text = "+", ansiGreen, "added "+c.New
	case Removed:
		mark, colour, text = "-", ansiRed, "removed (was "+c.Old+")"
	case TypeChanged:
		mark, colour, text = "!", ansiYellow, fmt.Sprintf("type changed: %s → %s", c.Old, c.New)
	case ValueChanged:
		mark, colour, text = "~", ansiYellow, fmt.Sprintf("%s → %s", c.Old, c.New)
	case EnumAdded:
		mark, colour, text = "+", ansiGreen, "new value "+c.New
	case EnumRemoved:
		mark, colour, text = "-", ansiRed, "value gone "+c.Old
	case ItemTypeAdded:
		mark, colour, text = "+", ansiGreen, "new item type "+c.New
	case ItemTypeRemoved:
		mark, colour, text = "-", ansiRed, "item type gone "+c.Old
	case MessageAdded:
		mark, colour, text = "+", ansiGreen, "message only in new: "+c.New
	case MessageRemoved:
		mark, colour, text = "-", ansiRed, "message only in old: "+c.Old
	case MessageMoved:
		mark, colour, text = "↕", ansiYellow, "the same message, at another place in the sequence"
	default:
		mark, colour, text = "?", "", string(c.Change)
	}
	where := c.Pointer
	if where != "" {
		where += " "
	}
	// Values come from recordings, which may not be sanitized: printed masked and
	// with terminal controls escaped.
	return fmt.Sprintf("%s %s %s", p.paint(colour, mark), sanitize.MaskText(where+text), c.seen())
}

// seen says how often a change occurred and where first: [×3, seq 12→14].
func (c *Change) seen() string {
	var parts []string
	if c.Count > 1 {
		parts = append(parts, fmt.Sprintf("×%d", c.Count))
	}
	switch {
	case c.OldSeq != 0 && c.NewSeq != 0:
		parts = append(parts, fmt.Sprintf("seq %d→%d", c.OldSeq, c.NewSeq))
	case c.OldSeq != 0:
		parts = append(parts, fmt.Sprintf("old seq %d", c.OldSeq))
	case c.NewSeq != 0:
		parts = append(parts, fmt.Sprintf("new seq %d", c.NewSeq))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// writeJSON writes v as one indented JSON document, <, > and & as they are: the
// one JSON form of both reports.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
