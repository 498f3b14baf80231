package sanitize_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
	"github.com/codexrec/codexrec/sanitize"
)

// referenceDelta is how a delta was read before deltaRaw: with gjson, decoding all of
// it.
func referenceDelta(line []byte) (string, []byte, bool) {
	p := gjson.GetBytes(line, "params")
	if !p.Exists() {
		p = gjson.GetBytes(line, "msg.params")
	}
	if !p.IsObject() {
		return "", nil, false
	}
	stream := p.Get("itemId").Str
	if stream == "" {
		if pid := p.Get("processId").Str; pid != "" {
			stream = pid + "/" + p.Get("stream").Str
		}
	}
	if stream == "" {
		return "", nil, false
	}
	if d := p.Get("delta"); d.Type == gjson.String {
		return stream, []byte(d.Str), true
	}
	if d := p.Get("deltaBase64"); d.Type == gjson.String {
		dec, err := base64.StdEncoding.DecodeString(d.Str)
		return stream, dec, err == nil
	}
	return "", nil, false
}

// TestDeltaStartAgrees: locating a delta in place and decoding only its start reads
// what gjson read, for every cut of escaped and base64 text.
func TestDeltaStartAgrees(t *testing.T) {
	text := "a\tb \"q\" \\ \u00e9 \u2028 end\n" + strings.Repeat("x\\y\n", 5)
	b64 := base64.StdEncoding.EncodeToString([]byte(text))
	lines := []string{
		`{"method":"item/agentMessage/delta","params":{"threadId":"t","itemId":"msg_1","delta":` + q(text) + `}}`,
		`{"type":"frame","seq":3,"msg":{"method":"item/commandExecution/outputDelta","params":{"itemId":"c\u0031","delta":"a\u00e9\/b\\\"c\ud83d\ude00"}}}` + "\n",
		`{"method":"command/exec/outputDelta","params":{"processId":"p1","stream":"stdout","deltaBase64":"` + b64 + `"}}`,
		`{"method":"command/exec/outputDelta","params":{"processId":"p1","stream":"stdout","deltaBase64":"` + b64[:len(b64)-1] + `"}}`,
		`{"method":"command/exec/outputDelta","params":{"processId":"p1","stream":"stdout","deltaBase64":"QQ==QUFB"}}`,
		`{"method":"command/exec/outputDelta","params":{"processId":"p1","stream":"stdout","deltaBase64":"QUJD\/w=="}}`,
		`{"params":{"itemId":"x","delta":5}}`,
		`{"params":[1,{"itemId":"x","delta":"y"}]}`,
		`{"params" : { "nested" : {"a":[1,"}"]} , "itemId" : "i" , "delta" : "z\"}" } }`,
		`{"params":{"delta":"no stream"}}`,
		`not json`,
	}
	for _, l := range lines {
		ws, wt, wok := referenceDelta([]byte(l))
		for n := 0; n <= len(wt)+2; n++ {
			s, got, ok := sanitize.DeltaStart([]byte(l), n)
			want := wt[:min(n, len(wt))]
			if !wok {
				ws, want = "", nil // the stream of what is no delta is not read
			}
			if s != ws || ok != wok || string(got) != string(want) {
				t.Fatalf("%s, first %d: got %q %q %v, want %q %q %v", l, n, s, got, ok, ws, want, wok)
			}
		}
	}
}

// TestLookaheadStandsIn: the small line Lookahead keeps of a next frame makes
// FrameFollowedBy give what the frame itself gives, with a secret cut between a
// delta and the next, as text and as base64, long and short.
func TestLookaheadStandsIn(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "lookahead"})
	if err != nil {
		t.Fatal(err)
	}
	secret := providerSecret(t, "github-classic")
	long := strings.Repeat("line \"quoted\"\tand tabbed\n", 200)
	redacted := 0
	for _, text := range []string{"token: " + secret + "\n", "token: " + secret + "\n" + long} {
		for k := 1; k < len(text) && k < 60; k++ {
			for _, lines := range [][]string{corpus.SplitAt(text, "item", k), corpus.SplitBase64At(text, "proc", k)} {
				first, next := []byte(lines[0]), []byte(lines[1])
				for _, n := range [][]byte{next, []byte(`{"id":3,"result":{}}`)} {
					z.ForgetStreams()
					want, wantReds := z.FrameFollowedBy(first, true, n)
					z.ForgetStreams()
					got, gotReds := z.FrameFollowedBy(first, true, sanitize.Lookahead(n))
					if string(got) != string(want) || len(gotReds) != len(wantReds) {
						t.Fatalf("cut at %d of a %d-byte text: with Lookahead %d bytes, %d redactions; with the frame %d bytes, %d", k, len(text), len(got), len(gotReds), len(want), len(wantReds))
					}
					redacted += len(wantReds)
				}
			}
		}
	}
	if redacted == 0 {
		t.Fatal("no cut made the first delta redact anything: the case tests nothing")
	}
}
