package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/codexrec/codexrec/recorder"
)

// PushOTLP sends recs as OTLP/JSON traces to an OTLP/HTTP receiver (an OpenTelemetry
// collector, Jaeger): a POST of the document WriteOTLP writes to endpoint, or to
// endpoint/v1/traces when endpoint has no path. A status other than 2xx is an error
// quoting the start of the receiver's answer.
func PushOTLP(ctx context.Context, client *http.Client, endpoint string, recs []*recorder.Recording, opts Options) error {
	return push(ctx, client, endpoint, func(w io.Writer) error { return WriteOTLP(w, recs, opts) })
}

// PushOTLPFiles is PushOTLP for the recordings at paths: the body is the document
// WriteFiles writes, sent as it is written (chunked), so the recordings are never
// held whole; warn, when not nil, is told each recording's structural problems. A
// recording that cannot be read ends the request unfinished (the receiver gets no
// complete document) and is the error returned.
func PushOTLPFiles(ctx context.Context, client *http.Client, endpoint string, paths []string, opts Options, warn func(name string, problems []recorder.Problem)) error {
	return push(ctx, client, endpoint, func(w io.Writer) error { return writeOTLPFiles(w, paths, opts, warn) })
}

func push(ctx context.Context, client *http.Client, endpoint string, write func(io.Writer) error) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("OTLP endpoint %q: want http://HOST:PORT[/PATH]", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	pr, pw := io.Pipe()
	written := make(chan error, 1)
	go func() {
		err := write(pw)
		pw.CloseWithError(err) // nil: the body ends
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
		if werr := wrote(); werr != nil {
			return werr
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
