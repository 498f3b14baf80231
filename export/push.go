package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/codexrec/codexrec/recorder"
)

// PushOTLP sends recs as OTLP/JSON traces to an OTLP/HTTP receiver (an OpenTelemetry
// collector, Jaeger): a POST of the document WriteOTLP writes to endpoint, or to
// endpoint/v1/traces when endpoint has no path. A status other than 2xx is an error
// quoting the start of the receiver's answer.
func PushOTLP(ctx context.Context, client *http.Client, endpoint string, recs []*recorder.Recording, opts Options) error {
	return push(ctx, client, endpoint, 0, func(w io.Writer) error { return WriteOTLP(w, recs, opts) })
}

// PushOTLPFiles is PushOTLP for the recordings at paths: the body is the document
// WriteFiles writes, sent as it is written (chunked), so the recordings are never
// held whole; warn, when not nil, is told each recording's structural problems. A
// recording that cannot be read ends the request unfinished (the receiver gets no
// complete document) and is the error returned. Stall, when not 0, bounds each wait
// on the receiver (to take more of the body, or to answer once it has it all), not
// the time the recordings take to write.
func PushOTLPFiles(ctx context.Context, client *http.Client, endpoint string, paths []string, opts Options, stall time.Duration, warn func(name string, problems []recorder.Problem)) error {
	return push(ctx, client, endpoint, stall, func(w io.Writer) error { return writeOTLPFiles(w, paths, opts, warn) })
}

// stallWriter writes to a pipe whose reader is the request; the timer runs only
// while a write waits for it.
type stallWriter struct {
	w     io.Writer
	timer *time.Timer
	stall time.Duration
}

func (s *stallWriter) Write(p []byte) (int, error) {
	if s.timer == nil {
		return s.w.Write(p)
	}
	s.timer.Reset(s.stall)
	n, err := s.w.Write(p)
	s.timer.Stop()
	return n, err
}

func push(ctx context.Context, client *http.Client, endpoint string, stall time.Duration, write func(io.Writer) error) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("OTLP endpoint %q: want http://HOST:PORT[/PATH]", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	pr, pw := io.Pipe()
	sw := &stallWriter{w: pw, stall: stall}
	if stall > 0 {
		sw.timer = time.AfterFunc(stall, func() {
			cancel(fmt.Errorf("OTLP endpoint: no progress for %s", stall))
		})
		sw.timer.Stop()
		defer sw.timer.Stop()
	}
	written := make(chan error, 1)
	go func() {
		err := write(sw)
		pw.CloseWithError(err) // nil: the body ends
		if err == nil && sw.timer != nil {
			sw.timer.Reset(stall) // for the answer
		}
		written <- err
	}()
	// wrote is the writer's error once it has stopped (the pipe's reader closed
	// makes it stop).
	wrote := func() error {
		pr.CloseWithError(errors.New("request ended"))
		return <-written
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), pr)
	if err != nil {
		wrote()
		return fmt.Errorf("OTLP endpoint: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if werr := wrote(); werr != nil && !errors.Is(werr, io.ErrClosedPipe) {
			return werr
		}
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
			return cause
		}
		return fmt.Errorf("OTLP endpoint: %w", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	werr := wrote()
	if resp.StatusCode/100 != 2 {
		first, _, _ := strings.Cut(strings.TrimSpace(string(answer)), "\n")
		return fmt.Errorf("OTLP endpoint %s answered %s: %.200s", u.Redacted(), resp.Status, first)
	}
	return werr
}
