package view_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/upgrade"
	"github.com/codexrec/codexrec/view"
)

// TestUpgradePageEscapes: names, reasons, pointers and notes come from recordings and
// servers; the page shows them as text and runs nothing.
func TestUpgradePageEscapes(t *testing.T) {
	evil := `<script>alert(1)</script>"'&`
	r := &upgrade.Report{From: "0.163.0", To: "0.171.0",
		Schema: &diff.SchemaReport{Old: "0.163.0", New: "0.171.0", Breaking: 1,
			Changes: []diff.SchemaChange{{Rule: "field-removed", Tier: diff.TierBreaking, Subject: evil, Path: "/" + evil}}},
		Recordings: []upgrade.Recording{{Name: evil, Status: upgrade.Breaking, Why: []string{evil}, Notes: []string{evil},
			DiffPage: `x.html" onclick="alert(1)`,
			Methods:  []upgrade.MethodChange{{Dir: "s2c", Kind: "response", Method: evil, Added: []string{"/" + evil}, Other: 2}}}}}
	var b bytes.Buffer
	if err := view.WriteUpgradeHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script") || strings.Contains(page, `" onclick=`) {
		t.Errorf("unescaped markup in the page:\n%s", page)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;&#34;&#39;&amp;", "0 same, 0 changed, 1 breaking", `class="st-breaking"`, "2 other change(s)", "Schema changes (0.163.0 → 0.171.0)"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
