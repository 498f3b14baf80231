package dropin

import (
	"context"
	"io"

	"github.com/codexrec/codexrec/wsproxy"
)

// UseRunners sets each of s's Record, Replay, RecordSocket and ReplaySocket that is
// nil to the library's runner with rec's or rep's settings and ctx: a drop-in
// session recorded and replayed as codexrec's commands do. rec and rep are read
// when the session runs, so Override may still change them (rec.Force to record
// afresh).
func (s *Session) UseRunners(ctx context.Context, rec *RecordOptions, rep *ReplayOptions) {
	if s.Record == nil {
		s.Record = func(path string, in io.Reader) error { return rec.Record(ctx, path, s.Command, in) }
	}
	if s.Replay == nil {
		s.Replay = func(path string, in io.Reader) error { return rep.Replay(ctx, path, in) }
	}
	if s.RecordSocket == nil {
		s.RecordSocket = func(dir string) error { return rec.RecordSocket(ctx, dir, wsproxy.WithoutListen(s.Command)) }
	}
	if s.ReplaySocket == nil {
		s.ReplaySocket = func(dir string) error { return rep.ReplaySocket(ctx, dir) }
	}
}
