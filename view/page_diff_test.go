package view_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/testing/webdriver"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

// TestDiffPageInBrowser opens diff pages of real recordings in Chromium: the aligned
// rows must agree with diff's own report (aligned, changed, added, removed per
// direction), a change in the summary must lead to its row, and a changed row must
// expand to both messages.
func TestDiffPageInBrowser(t *testing.T) {
	b := webdriver.StartT(t)
	for _, pair := range [][2]string{
		{"0.163.0/approval-accept.jsonl", "0.171.0/approval-accept.jsonl"},
		{"0.171.0/approval-accept.jsonl", "0.171.0/approval-decline.jsonl"},
	} {
		t.Run(pair[0]+" vs "+pair[1], func(t *testing.T) {
			oldRec, newRec := fixture(t, pair[0]), fixture(t, pair[1])
			oldS, err := diff.LoadFile(oldRec.Name, diff.Options{})
			if err != nil {
				t.Fatal(err)
			}
			newS, err := diff.LoadFile(newRec.Name, diff.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := diff.Compare(oldS, newS)
			path := filepath.Join(t.TempDir(), "diff.html")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := view.WriteDiffHTML(f, oldRec, newRec, oldS, newS, r); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := b.Navigate("file://" + path); err != nil {
				t.Fatal(err)
			}
			waitFor(t, b, "the page", "document.body.dataset.ready === '1'")

			var want struct{ rows, chg, add, del, mov int }
			for _, d := range r.Directions {
				want.rows += d.Aligned + d.Added + d.Removed + 2*d.Moved
				want.chg += d.Changed
				want.add += d.Added
				want.del += d.Removed
				want.mov += 2 * d.Moved // the message's place in each session
			}
			count := func(sel string) int { return domInt(t, b, `return document.querySelectorAll('`+sel+`').length`) }
			t.Logf("report: %+v", want)
			got := struct{ rows, chg, add, del, mov int }{count("#list .drow"), count(`.drow[data-mark="chg"]`),
				count(`.drow[data-mark="add"]`), count(`.drow[data-mark="del"]`), count(`.drow[data-mark="mov"]`)}
			if got != want {
				t.Errorf("page rows (all, changed, added, removed) = %+v, report says %+v", got, want)
			}
			if r.Same {
				return
			}
			if err := b.Exec(nil, `document.getElementById('only-diff').click()`); err != nil {
				t.Fatal(err)
			}
			if n := count("#list .drow"); n != want.chg+want.add+want.del+want.mov {
				t.Errorf("only differences: %d rows, want %d", n, want.chg+want.add+want.del+want.mov)
			}
			// The first change listed in the summary leads to its aligned row.
			c := r.Groups[0].Changes[0]
			line, err := b.Find(".dchange")
			if err != nil {
				t.Fatal(err)
			}
			if err := line.Click(); err != nil {
				t.Fatal(err)
			}
			sel := domText(t, b, `var s = document.querySelector('#list .sel'); return s ? s.dataset.mark + ' ' + s.textContent : ''`)
			seq := c.OldSeq
			if seq == 0 {
				seq = c.NewSeq
			}
			if !strings.Contains(sel, fmt.Sprintf("#%d", seq)) || strings.HasPrefix(sel, "same") {
				t.Errorf("clicking change %s %s selected %q, want the row of #%d", c.Change, c.Pointer, sel, seq)
			}
			// Enter expands both sides' messages.
			if err := b.Keys(webdriver.KeyEnter); err != nil {
				t.Fatal(err)
			}
			if n := count("#list .sel + .detail .dside pre"); n != 2 {
				t.Errorf("expanded diff row shows %d messages, want 2", n)
			}
			shot, err := b.Screenshot()
			if err != nil {
				t.Fatal(err)
			}
			artifact(t, "view-diff-"+strings.NewReplacer("/", "_", ".jsonl", "").Replace(pair[0]+"-vs-"+pair[1])+".png", shot)
		})
	}
}

var _ = recorder.TypeFrame
