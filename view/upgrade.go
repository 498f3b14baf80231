package view

import (
	"bytes"
	"fmt"
	"html/template"
	"io"

	"github.com/codexrec/codexrec/upgrade"
)

// upgradePage is a static page (no script): the summary table, the schema diff's
// counts and each recording's reasons and changes, linking each pair's diff page.
var upgradePage = template.Must(template.New("upgrade").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>codexrec upgrade {{.R.From}} to {{.R.To}}</title>
<style>{{.CSS}}
table.upgrade { border-collapse: collapse; margin: 1em 0; }
table.upgrade th, table.upgrade td { padding: .2em .8em; text-align: left; border-bottom: 1px solid #8884; }
.st-same { color: #2a7a2a; } .st-changed { color: #a66a00; } .st-breaking { color: #b00020; font-weight: bold; }
section.rec { margin: 1em 0; } section.rec ul { margin: .2em 0; }
</style></head>
<body><main>
<h1>codex {{.R.From}} → {{.R.To}}</h1>
{{with .R.Schema}}<p>Schema diff: {{.Breaking}} breaking, {{.Warning}} warning, {{.Info}} info; {{len .MethodsAdded}} method(s) added, {{len .MethodsRemoved}} removed.</p>{{end}}
<p>{{index .Counts "same"}} same, {{index .Counts "changed"}} changed, {{index .Counts "breaking"}} breaking.</p>
<table class="upgrade"><thead><tr><th>recording</th><th>status</th><th>fields added</th><th>removed</th><th>retyped</th><th>methods changed</th><th>diff</th></tr></thead><tbody>
{{range .Rows}}<tr><td>{{.Name}}</td><td class="st-{{.Status}}">{{.Status}}</td><td>{{.Added}}</td><td>{{.Removed}}</td><td>{{.Retyped}}</td><td>{{.Methods}}</td><td>{{if .Page}}<a href="{{.Page}}">diff</a>{{end}}</td></tr>
{{end}}</tbody></table>
{{range .R.Recordings}}{{if or .Why .Methods .Notes}}<section class="rec"><h2>{{.Name}}: <span class="st-{{.Status}}">{{.Status}}</span></h2>
{{if .Why}}<ul>{{range .Why}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Methods}}<ul>{{range .Methods}}<li><code>{{.Dir}} {{.Kind}} {{.Method}}</code>{{if .Added}} added {{range .Added}}<code>{{.}}</code> {{end}}{{end}}{{if .Removed}} removed {{range .Removed}}<code>{{.}}</code> {{end}}{{end}}{{if .Retyped}} retyped {{range .Retyped}}<code>{{.}}</code> {{end}}{{end}}{{if .Other}} {{.Other}} other change(s){{end}}</li>{{end}}</ul>{{end}}
{{if .Notes}}<ul>{{range .Notes}}<li>note: {{.}}</li>{{end}}</ul>{{end}}
</section>{{end}}{{end}}
{{with .R.Schema}}<h2>Schema changes ({{.Old}} → {{.New}})</h2>
<table class="upgrade"><thead><tr><th>tier</th><th>rule</th><th>subject</th><th>path</th></tr></thead><tbody>
{{range .Changes}}<tr><td>{{.Tier}}</td><td>{{.Rule}}</td><td>{{.Subject}}</td><td><code>{{.Path}}</code></td></tr>
{{end}}</tbody></table>{{end}}
</main></body></html>
`))

type upgradeRow struct {
	Name, Status, Methods, Page string
	Added, Removed, Retyped     int
}

// WriteUpgradeHTML writes an upgrade report as one self-contained page in the diff
// view's style: the summary table (linking each pair's diff page, when written), each
// recording's reasons and changes, and the schema diff.
func WriteUpgradeHTML(w io.Writer, r *upgrade.Report) error {
	var rows []upgradeRow
	for _, rec := range r.Recordings {
		row := upgradeRow{Name: rec.Name, Status: string(rec.Status), Page: rec.DiffPage}
		seen := map[string]bool{}
		for _, m := range rec.Methods {
			row.Added += len(m.Added)
			row.Removed += len(m.Removed)
			row.Retyped += len(m.Retyped)
			if !seen[m.Method] {
				seen[m.Method] = true
				if row.Methods != "" {
					row.Methods += ", "
				}
				row.Methods += m.Method
			}
		}
		rows = append(rows, row)
	}
	counts := map[string]int{}
	for s, n := range r.Counts() {
		counts[string(s)] = n
	}
	var buf bytes.Buffer
	err := upgradePage.Execute(&buf, struct {
		R      *upgrade.Report
		CSS    template.CSS
		Rows   []upgradeRow
		Counts map[string]int
	}{r, template.CSS(pageCSS), rows, counts})
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}
