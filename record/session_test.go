package record_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// echo is a server on pipes that answers every request line with a result of the
// same id, and writes each notification back: enough protocol for the pipeline.
func echo(t *testing.T) proxy.Server {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		defer outW.Close()
		buf := make([]byte, 0, 4096)
		for {
			var b [1]byte
			if _, err := inR.Read(b[:]); err != nil {
				return
			}
			if buf = append(buf, b[0]); b[0] != '\n' {
				continue
			}
			line := buf
			buf = buf[:0]
			if i := bytes.Index(line, []byte(`"id":`)); i >= 0 {
				id := line[i+5:]
				id = id[:bytes.IndexAny(id, ",}")]
				fmt.Fprintf(outW, `{"id":%s,"result":{"userAgent":"codex_cli_rs/0.171.0 (test)"}}`+"\n", id)
				continue
			}
			outW.Write(line)
		}
	}()
	return proxy.Server{In: inW, Out: outR}
}

func TestZeroSessionPassesFramesToTaps(t *testing.T) {
	var got []string
	s := &record.Session{Taps: []func(*wire.Frame) error{func(f *wire.Frame) error {
		got = append(got, f.Dir.String()+" "+f.Msg.Method)
		return nil
	}}}
	res, err := s.Serve(nil, echo(t), strings.NewReader(`{"id":1,"method":"initialize","params":{}}`+"\n"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"c2s initialize", "s2c initialize"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("taps saw %q, want %q", got, want)
	}
	if res.Trailer.Ended != recorder.EndClientEOF {
		t.Errorf("ended %q, want client-eof", res.Trailer.Ended)
	}
}

func TestSessionWritesFindingsAndRedactions(t *testing.T) {
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
	client := `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"method":"no/such/method","params":{"key":"` + secret + `"}}` + "\n"
	var out bytes.Buffer
	res, err := s.Serve(nil, echo(t), strings.NewReader(client), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), secret) {
		t.Errorf("the wire lost the secret the client sent (the proxy must not change bytes): %q", out.String())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("the recording holds the secret")
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, e := range rec.Entries {
		if e.Type == recorder.TypeFinding || e.Type == recorder.TypeRedaction {
			rules = append(rules, string(e.Type)+":"+e.Rule)
		}
	}
	if !slicesHas(rules, "finding:unknown-method") || !slicesHasPrefix(rules, "redaction:") {
		t.Errorf("entries %q: want an unknown-method finding and a redaction", rules)
	}
	if res.Trailer.Frames["c2s"] != 2 || rec.Header.SchemaVersion != "0.171.0" {
		t.Errorf("trailer frames %v, schema %q", res.Trailer.Frames, rec.Header.SchemaVersion)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("recording mode %v, %v: want 0600", info.Mode(), err)
	}
}

// TestGuardRedactsUnsanitized: a secret the sanitizer did not remove (here there is
// no sanitizer) never costs the session: the guard redacts it in place and the
// recording is published, with a *sanitize.RedactedError that locates each finding
// and shows it masked.
func TestGuardRedactsUnsanitized(t *testing.T) {
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := &record.Session{Guard: z}
	if err := s.Create(path, recorder.Header{}, recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Serve(nil, echo(t), strings.NewReader(`{"method":"x","params":{"k":"`+secret+`"}}`+"\n"), io.Discard)
	var re *sanitize.RedactedError
	if !errors.As(err, &re) || !errors.Is(err, sanitize.ErrLeak) {
		t.Fatalf("err = %v, want a *sanitize.RedactedError", err)
	}
	if re.File != path || strings.Contains(err.Error(), secret) || len(re.Leaks) != 2 {
		t.Errorf("redacted error names %q (want %q), quotes the secret or has %d findings: %v", re.File, path, len(re.Leaks), err)
	}
	for _, l := range re.Leaks {
		if l.Seq == 0 || l.Pointer != "/msg/params/k" || l.Rule != "openai-key" {
			t.Errorf("finding not located: %+v", l)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("not published: %v", err)
	}
	if strings.Contains(string(data), secret[8:20]) || !strings.Contains(string(data), "<redacted:openai-key:") {
		t.Errorf("published recording not redacted:\n%s", data)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("recording mode %v, %v: want 0600", info.Mode(), err)
	}
}

// TestConcurrentSessions records many sessions at once in one process (the socket
// transports do): each recording holds its own frames only. Run with -race.
func TestConcurrentSessions(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			z, err := sanitize.New(sanitize.Options{})
			if err != nil {
				errs <- err
				return
			}
			s := &record.Session{Validator: &schema.SessionValidator{Classified: true}, Sanitizer: z, Guard: z}
			path := filepath.Join(dir, fmt.Sprintf("%d.jsonl", i))
			if err := s.Create(path, recorder.Header{}, recorder.Options{}); err != nil {
				errs <- err
				return
			}
			var client strings.Builder
			for j := range 50 + i {
				fmt.Fprintf(&client, `{"id":%d,"method":"initialize","params":{"session":%d}}`+"\n", j, i)
			}
			res, err := s.Serve(nil, echo(t), strings.NewReader(client.String()), io.Discard)
			if err != nil {
				errs <- err
				return
			}
			rec, err := recorder.ReadFile(path)
			if err != nil {
				errs <- err
				return
			}
			frames := 0
			for _, e := range rec.Entries {
				if e.Type == recorder.TypeFrame && e.Dir == wire.ClientToServer {
					frames++
					if !bytes.Contains(e.Line, fmt.Appendf(nil, `"session":%d}`, i)) {
						errs <- fmt.Errorf("session %d recorded another session's frame: %s", i, e.Line)
						return
					}
				}
			}
			if frames != 50+i || res.Trailer.Frames["c2s"] != int64(50+i) {
				errs <- fmt.Errorf("session %d: %d client frames recorded, trailer %v, want %d", i, frames, res.Trailer.Frames, 50+i)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func slicesHas(s []string, v string) bool { return slices.Contains(s, v) }
func slicesHasPrefix(s []string, p string) bool {
	for _, x := range s {
		if strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}
