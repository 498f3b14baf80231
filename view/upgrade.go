package view

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/codexrec/codexrec/upgrade"
)

// upgradeCSS adds the summary table's look to the diff view's style sheet.
const upgradeCSS = `
table.upgrade { border-collapse: collapse; margin: 1em 0; }
table.upgrade th, table.upgrade td { padding: .2em .8em; text-align: left; border-bottom: 1px solid #8884; }
.st-same { color: #2a7a2a; } .st-changed { color: #a66a00; } .st-breaking { color: #b00020; font-weight: bold; }
section.rec { margin: 1em 0; } section.rec ul { margin: .2em 0; }
`

// WriteUpgradeHTML writes an upgrade report as one self-contained, static page in the
// diff view's style: the summary table (linking each pair's diff page, when written),
// each recording's reasons and changes, and the schema diff. Every recorded or
// reported text is escaped.
func WriteUpgradeHTML(w io.Writer, r *upgrade.Report) error {
	e := html.EscapeString
	var b bytes.Buffer
	title := "codexrec upgrade " + r.From + " to " + r.To
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` + "\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	b.WriteString("<title>" + e(title) + "</title>\n<style>" + pageCSS + upgradeCSS + "</style></head>\n<body><main>\n")
	fmt.Fprintf(&b, "<h1>codex %s → %s</h1>\n", e(r.From), e(r.To))
	if s := r.Schema; s != nil {
		fmt.Fprintf(&b, "<p>Schema diff: %d breaking, %d warning, %d info; %d method(s) added, %d removed.</p>\n",
			s.Breaking, s.Warning, s.Info, len(s.MethodsAdded), len(s.MethodsRemoved))
	}
	c := r.Counts()
	fmt.Fprintf(&b, "<p>%d same, %d changed, %d breaking.</p>\n", c[upgrade.Same], c[upgrade.Changed], c[upgrade.Breaking])
	b.WriteString(`<table class="upgrade"><thead><tr><th>recording</th><th>status</th><th>fields added</th><th>removed</th><th>retyped</th><th>methods changed</th><th>diff</th></tr></thead><tbody>` + "\n")
	for _, rec := range r.Recordings {
		var a, rm, rt int
		var methods []string
		seen := map[string]bool{}
		for _, m := range rec.Methods {
			a, rm, rt = a+len(m.Added), rm+len(m.Removed), rt+len(m.Retyped)
			if !seen[m.Method] {
				seen[m.Method] = true
				methods = append(methods, m.Method)
			}
		}
		link := ""
		if rec.DiffPage != "" {
			link = `<a href="` + e(rec.DiffPage) + `">diff</a>`
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td class=\"st-%s\">%s</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td></tr>\n",
			e(rec.Name), e(string(rec.Status)), e(string(rec.Status)), a, rm, rt, e(strings.Join(methods, ", ")), link)
	}
	b.WriteString("</tbody></table>\n")
	for _, rec := range r.Recordings {
		if len(rec.Why)+len(rec.Methods)+len(rec.Notes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "<section class=\"rec\"><h2>%s: <span class=\"st-%s\">%s</span></h2>\n<ul>\n", e(rec.Name), e(string(rec.Status)), e(string(rec.Status)))
		for _, y := range rec.Why {
			b.WriteString("<li>" + e(y) + "</li>\n")
		}
		for _, m := range rec.Methods {
			fmt.Fprintf(&b, "<li><code>%s %s %s</code>", e(m.Dir), e(m.Kind), e(m.Method))
			for _, part := range []struct {
				label string
				ptrs  []string
			}{{"added", m.Added}, {"removed", m.Removed}, {"retyped", m.Retyped}} {
				if len(part.ptrs) > 0 {
					b.WriteString(" " + part.label)
					for _, p := range part.ptrs {
						b.WriteString(" <code>" + e(p) + "</code>")
					}
				}
			}
			if m.Other > 0 {
				fmt.Fprintf(&b, " %d other change(s)", m.Other)
			}
			b.WriteString("</li>\n")
		}
		for _, n := range rec.Notes {
			b.WriteString("<li>note: " + e(n) + "</li>\n")
		}
		b.WriteString("</ul></section>\n")
	}
	if s := r.Schema; s != nil {
		fmt.Fprintf(&b, "<h2>Schema changes (%s → %s)</h2>\n", e(s.Old), e(s.New))
		b.WriteString(`<table class="upgrade"><thead><tr><th>tier</th><th>rule</th><th>subject</th><th>path</th></tr></thead><tbody>` + "\n")
		for _, ch := range s.Changes {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td><code>%s</code></td></tr>\n", e(ch.Tier.String()), e(ch.Rule), e(ch.Subject), e(ch.Path))
		}
		b.WriteString("</tbody></table>\n")
	}
	b.WriteString("</main></body></html>\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	return nil
}
