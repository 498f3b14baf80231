package export

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/codexrec/codexrec/recorder"
)

// PushTimeout bounds each wait of a push on an OTLP endpoint (to take more of the
// body, or to answer) when the context has no deadline.
const PushTimeout = 30 * time.Second

// ErrEndpointFormat is Run's refusal of an endpoint with a format other than OTLP.
var ErrEndpointFormat = errors.New("an OTLP endpoint takes the otlp format")

// RunOptions say where Run sends an export. The zero value of each field but
// Format writes to Run's writer, masked, with no warnings.
type RunOptions struct {
	Options
	Format Format
	// Out is a new file to write (WriteFile); "" or "-" is Run's writer.
	Out     string
	Replace bool // replace an existing Out
	// Endpoint, when set, is an OTLP/HTTP receiver the traces are posted to
	// (PushOTLPFiles, with Client) instead of being written.
	Endpoint string
	Client   *http.Client // nil is http.DefaultClient
	// Warn, when set, is told each recording's structural problems once read.
	Warn func(name string, problems []recorder.Problem)
}

// Run exports the recordings at paths as o says: posted to o.Endpoint, written to
// the new file o.Out (an existing one is an error wrapping fs.ErrExist unless
// Replace), or streamed to w.
func Run(ctx context.Context, w io.Writer, paths []string, o RunOptions) error {
	switch {
	case o.Endpoint != "" && o.Format != OTLP:
		return ErrEndpointFormat
	case o.Endpoint != "":
		stall := time.Duration(0)
		if _, ok := ctx.Deadline(); !ok {
			stall = PushTimeout
		}
		return PushOTLPFiles(ctx, o.Client, o.Endpoint, paths, o.Options, stall, o.Warn)
	case o.Out != "" && o.Out != "-":
		return WriteFile(o.Out, o.Replace, o.Format, paths, o.Options, o.Warn)
	}
	bw := bufio.NewWriter(w)
	if err := WriteFiles(bw, o.Format, paths, o.Options, o.Warn); err != nil {
		return err
	}
	return bw.Flush()
}
