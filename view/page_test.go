package view_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/webdriver"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// TestPageInBrowser opens the page of a real approvals session in headless Chromium,
// expands a frame, filters, navigates by keyboard and collapses a turn, asserting on
// the DOM at each step; a screenshot is kept as an artifact.
func TestPageInBrowser(t *testing.T) {
	rec := fixture(t, "0.171.0/approval-accept.jsonl")
	// The capture records no schema findings or redactions for a clean session, so
	// one of each is added here on real frames, to see them highlighted.
	approval := seqOf(t, rec, wire.ServerToClient, "item/commandExecution/requestApproval")
	initResp := seqOf(t, rec, wire.ServerToClient, "initialize")
	rec.Entries = insertAfter(rec.Entries, approval, recorder.Entry{Type: recorder.TypeFinding, Seq: approval,
		Dir: wire.ServerToClient, Rule: "undeclared-field", Severity: "warning", Pointer: "/params/startedAtMs", Reason: "not in the schema"})
	rec.Entries = insertAfter(rec.Entries, initResp, recorder.Entry{Type: recorder.TypeRedaction, Seq: initResp,
		Dir: wire.ServerToClient, Rule: "path-map", Pointer: "/result/codexHome", Detail: "<codex-home>"})
	url, _ := writePage(t, rec, "approvals.html")

	b := webdriver.StartT(t)
	if err := b.Navigate(url); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "the page", "document.body.dataset.ready === '1'")

	// Every frame is on the page: a row each, or inside a run of deltas shown as one row.
	var represented int
	if err := b.Exec(&represented, `var n = 0; document.querySelectorAll('#list .row').forEach(function (r) {
		var run = r.querySelector('.badge.run'); n += run ? parseInt(run.textContent.slice(1), 10) : 1; }); return n;`); err != nil {
		t.Fatal(err)
	}
	if want := len(rec.Frames()) + countType(rec, recorder.TypeExit) + countType(rec, recorder.TypeSegment); represented != want {
		t.Errorf("rows represent %d frames and events, want %d", represented, want)
	}
	// Two lanes: the client's frames in the third column, the server's in the fourth.
	if got := domText(t, b, `return [getComputedStyle(document.querySelector('.row.c2s .bubble')).gridColumnStart,
		getComputedStyle(document.querySelector('.row.s2c .bubble')).gridColumnStart].join(',')`); got != "3,4" {
		t.Errorf("lanes: c2s, s2c bubbles in grid columns %s, want 3,4", got)
	}
	// Requests are joined to their responses.
	if got := domText(t, b, fmt.Sprintf(`return document.querySelector('.row[data-seq="%d"] .pair').textContent`, initResp)); !strings.HasPrefix(got, "↩ #1 ") {
		t.Errorf("initialize response's pair link = %q, want ↩ #1 ...", got)
	}
	// Findings and redactions are marked on their frames.
	if got := domText(t, b, fmt.Sprintf(`var r = document.querySelector('.row[data-seq="%d"]'); return r.className + ' ' + r.textContent`, approval)); !strings.Contains(got, "has-finding") || !strings.Contains(got, "⚑ undeclared-field") {
		t.Errorf("finding not highlighted on #%d: %q", approval, got)
	}
	if got := domText(t, b, fmt.Sprintf(`var r = document.querySelector('.row[data-seq="%d"]'); return r.className + ' ' + r.textContent`, initResp)); !strings.Contains(got, "has-redaction") || !strings.Contains(got, "✂ path-map") {
		t.Errorf("redaction not highlighted on #%d: %q", initResp, got)
	}

	// Expand the initialize request: its pretty-printed JSON is the recorded message.
	row, err := b.Find(`.row[data-seq="1"]`)
	if err != nil {
		t.Fatal(err)
	}
	if err := row.Click(); err != nil {
		t.Fatal(err)
	}
	pre := domText(t, b, `var d = document.querySelector('.row[data-seq="1"] + .detail pre.json'); return d ? d.textContent : ''`)
	if !strings.Contains(pre, "\n  \"method\": \"initialize\"") {
		t.Errorf("expanded frame #1 is not pretty JSON:\n%s", pre)
	}
	var same bool
	if err := b.Exec(&same, `var d = document.querySelector('.row[data-seq="1"] + .detail pre.json').textContent;
		var data = JSON.parse(document.getElementById('codexrec-data').textContent);
		var f = data.sessions[0].frames.find(function (f) { return f.d && f.s === 1; });
		return JSON.stringify(JSON.parse(d)) === JSON.stringify(JSON.parse(f.j));`); err != nil || !same {
		t.Errorf("expanded JSON differs from the recorded message (err %v)", err)
	}

	// Filter: only frames mentioning the approval remain.
	filter, err := b.Find("#filter")
	if err != nil {
		t.Fatal(err)
	}
	if err := filter.Type("requestApproval" + webdriver.KeyEnter); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "the filter", `document.getElementById('status').textContent.indexOf(' of ') > 0 && document.querySelectorAll('#list .row').length < 10`)
	var seqs []int64
	if err := b.Exec(&seqs, `return Array.from(document.querySelectorAll('#list .row')).map(function (r) { return Number(r.dataset.seq); })`); err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, e := range rec.Frames() {
		if strings.Contains(strings.ToLower(string(e.Line)+" "+e.Msg.Method), "requestapproval") {
			want = append(want, e.Seq)
		}
	}
	if fmt.Sprint(seqs) != fmt.Sprint(want) {
		t.Errorf("filtered rows %v, want frames %v", seqs, want)
	}

	// Keyboard: Enter in the filter selected the first line (the turn's heading);
	// j moves to the request, p jumps to the response joined to it, Enter expands it.
	if err := b.Keys("j"); err != nil {
		t.Fatal(err)
	}
	if got := domText(t, b, `return document.querySelector('#list .sel').dataset.seq`); got != fmt.Sprint(approval) {
		t.Errorf("after j the selection is #%s, want the approval request #%d", got, approval)
	}
	if err := b.Keys("p" + webdriver.KeyEnter); err != nil {
		t.Fatal(err)
	}
	answer := domText(t, b, `return document.querySelector('#list .sel').dataset.seq`)
	if answer == fmt.Sprint(approval) || answer == "" {
		t.Errorf("p did not move to the response (selection #%s)", answer)
	}
	if got := domText(t, b, `var d = document.querySelector('#list .sel + .detail pre.json'); return d ? d.textContent : ''`); !strings.Contains(got, `"decision"`) {
		t.Errorf("Enter on the approval's answer did not show its decision:\n%s", got)
	}
	shot, err := b.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	artifact(t, "view-approvals-filtered.png", shot)

	// Clear the filter and collapse the turn holding the approval.
	if err := b.Exec(nil, `var f = document.getElementById('filter'); f.value = ''; f.focus();`); err != nil {
		t.Fatal(err)
	}
	if err := b.Keys(webdriver.KeyEnter); err != nil {
		t.Fatal(err)
	}
	before := domInt(t, b, `return document.querySelectorAll('#list .row').length`)
	if err := b.Exec(nil, fmt.Sprintf(`var r = document.querySelector('.row[data-seq="%d"]'); var g = r;
		while (g && !g.classList.contains('group')) g = g.previousElementSibling; g.click(); document.querySelector('.group[aria-expanded="false"]').scrollIntoView();`, approval)); err != nil {
		t.Fatal(err)
	}
	after := domInt(t, b, `return document.querySelectorAll('#list .row').length`)
	if after >= before || domInt(t, b, fmt.Sprintf(`return document.querySelectorAll('.row[data-seq="%d"]').length`, approval)) != 0 {
		t.Errorf("collapsing the turn: %d rows before, %d after, approval row still shown?", before, after)
	}
	if got := domText(t, b, `return document.querySelector('.group[aria-expanded="false"] .label').textContent`); !strings.Contains(got, "turn ") {
		t.Errorf("collapsed heading %q is not a turn", got)
	}
	shot, err = b.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	artifact(t, "view-approvals-collapsed.png", shot)
}

func seqOf(t *testing.T, rec *recorder.Recording, dir wire.Direction, method string) int64 {
	t.Helper()
	for _, e := range rec.Frames(dir) {
		if e.Msg.Method == method {
			return e.Seq
		}
	}
	t.Fatalf("%s: no %s %s frame", rec.Name, dir, method)
	return 0
}

func insertAfter(es []recorder.Entry, seq int64, add recorder.Entry) []recorder.Entry {
	for i, e := range es {
		if e.Type == recorder.TypeFrame && e.Seq == seq {
			add.Time = e.Time
			return append(es[:i+1], append([]recorder.Entry{add}, es[i+1:]...)...)
		}
	}
	return es
}

func countType(rec *recorder.Recording, typ recorder.EntryType) int {
	n := 0
	for _, e := range rec.Entries {
		if e.Type == typ {
			n++
		}
	}
	return n
}

var _ = json.Valid
