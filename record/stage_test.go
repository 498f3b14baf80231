package record_test

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// TestStagedSessionKeepsEveryFrame: a session that validates and sanitizes writes on
// a goroutine of its own while the tap's validates. Across many reads, deltas held
// for their successor, a line longer than the stage copies, findings and a
// redaction, every frame is recorded once, in order, with its bytes (or, for the
// secret, its placeholder), and each annotation follows the frame it is about.
func TestStagedSessionKeepsEveryFrame(t *testing.T) {
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := &record.Session{Validator: &schema.SessionValidator{Classified: true}, Sanitizer: z, Guard: z}
	if err := s.Create(path, recorder.Header{}, recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	in.WriteString(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	for i := range 3000 {
		switch {
		case i == 1000:
			in.WriteString(`{"method":"no/such/method","params":{"big":"` + strings.Repeat("x", 3<<20) + `"}}` + "\n")
		case i == 2000:
			in.WriteString(`{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"key ` + secret + ` "}}` + "\n")
		case i%3 == 0:
			fmt.Fprintf(&in, `{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"chunk %d "}}`+"\n", i)
		default:
			fmt.Fprintf(&in, `{"method":"thread/tokenUsage/updated","params":{"n":%d}}`+"\n", i)
		}
	}
	res, err := s.Serve(nil, echo(t), strings.NewReader(in.String()), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.SplitAfter(in.String(), "\n")
	want = want[:len(want)-1]
	var c2s, s2c []string
	var lastSeq int64
	findings, redactions := 0, 0
	for _, e := range rec.Entries {
		switch e.Type {
		case recorder.TypeFrame:
			if e.Seq <= lastSeq {
				t.Fatalf("frame %d after frame %d", e.Seq, lastSeq)
			}
			lastSeq = e.Seq
			if e.Dir == wire.ClientToServer {
				c2s = append(c2s, string(e.Line))
			} else {
				s2c = append(s2c, string(e.Line))
			}
		case recorder.TypeFinding, recorder.TypeRedaction:
			// A redaction follows its frame; a finding may be known only at a later
			// frame (validation returns it then), and follows that one.
			if e.Seq > lastSeq || e.Type == recorder.TypeRedaction && e.Seq != lastSeq {
				t.Errorf("%s about frame %d follows frame %d", e.Type, e.Seq, lastSeq)
			}
			if e.Type == recorder.TypeFinding {
				findings++
			} else {
				redactions++
			}
		}
	}
	if len(c2s) != len(want) || res.Trailer.Frames["c2s"] != int64(len(want)) || res.Trailer.Frames["s2c"] != int64(len(s2c)) {
		t.Fatalf("recorded %d client frames (trailer %v), sent %d", len(c2s), res.Trailer.Frames, len(want))
	}
	for i, w := range want {
		if strings.Contains(w, secret) {
			w = strings.Replace(w, secret, "", 1)
			if strings.Contains(c2s[i], secret) || !strings.HasPrefix(c2s[i], w[:40]) {
				t.Errorf("frame %d: the secret is not redacted: %.200s", i, c2s[i])
			}
			continue
		}
		if c2s[i] != w {
			t.Fatalf("client frame %d recorded as %.200q, sent %.200q", i, c2s[i], w)
		}
	}
	if findings == 0 || redactions == 0 {
		t.Errorf("%d findings, %d redactions: the session had both to write", findings, redactions)
	}
	if bytes.Contains([]byte(strings.Join(s2c, "")), []byte(secret)) {
		t.Error("the echoed secret is recorded")
	}
}
