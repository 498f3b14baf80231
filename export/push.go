package export

import (
	"bytes"
	"context"
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
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("OTLP endpoint %q: want http://HOST:PORT[/PATH]", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	var body bytes.Buffer
	if err := WriteOTLP(&body, recs, opts); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), &body)
	if err != nil {
		return fmt.Errorf("OTLP endpoint: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("OTLP endpoint: %w", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		first, _, _ := strings.Cut(strings.TrimSpace(string(answer)), "\n")
		return fmt.Errorf("OTLP endpoint %s answered %s: %.200s", u.Redacted(), resp.Status, first)
	}
	return nil
}
