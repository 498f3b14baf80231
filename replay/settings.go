package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// Settings are a Server's matching, pacing and fault settings as a user writes
// them (a command line, a config file). The zero value is the Server's defaults
// with no patience at all (Patience 0 means never).
type Settings struct {
	Match     string   // ParseMode; "" is params
	Ignore    []string // ParseRules(RuleIgnore, ...)
	MatchOnly []string // ParseRules(RuleMatchOnly, ...)
	Faults    []string // ParseFault each
	Speed     float64  // 0 or more
	// Patience is Server.Patience, except that 0 means never (not the default).
	Patience time.Duration
}

// A SettingError is a setting Apply refused: Name is the setting ("match",
// "ignore", "match-only", "fault", "speed", "patience"), Value the value refused
// when the error does not say it, Err why.
type SettingError struct {
	Name, Value string
	Err         error
}

func (e *SettingError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %v", e.Name, e.Err)
	}
	return fmt.Sprintf("%s %s: %v", e.Name, e.Value, e.Err)
}

func (e *SettingError) Unwrap() error { return e.Err }

// Apply parses the settings into s: Mode, Rules and Faults (appended), Speed and
// Patience. The first setting that does not parse is a *SettingError.
func (st Settings) Apply(s *Server) error {
	var mode Mode // "": the zero Mode, params
	if st.Match != "" {
		var err error
		if mode, err = ParseMode(st.Match); err != nil {
			return &SettingError{Name: "match", Err: err}
		}
	}
	if st.Speed < 0 {
		return &SettingError{"speed", strconv.FormatFloat(st.Speed, 'g', -1, 64), fmt.Errorf("want 0 or more")}
	}
	if st.Patience < 0 {
		return &SettingError{"patience", st.Patience.String(), fmt.Errorf("want 0 (never) or more")}
	}
	s.Mode, s.Speed, s.Patience = mode, st.Speed, st.Patience
	if s.Patience == 0 {
		s.Patience = -1 // the Server's zero is its default
	}
	for _, r := range []struct {
		kind  RuleKind
		specs []string
	}{{RuleIgnore, st.Ignore}, {RuleMatchOnly, st.MatchOnly}} {
		rules, err := ParseRules(r.kind, r.specs)
		if err != nil {
			return &SettingError{Name: r.kind.String(), Err: err}
		}
		s.Rules = append(s.Rules, rules...)
	}
	for _, f := range st.Faults {
		fault, err := ParseFault(f)
		if err != nil {
			return &SettingError{Name: "fault", Err: err}
		}
		s.Faults = append(s.Faults, fault)
	}
	return nil
}

// ServeSignals is Serve with the process's signals: the first on sigs ends the
// replay as a hangup (Server.Hangup: as if the client had closed its input), a
// second aborts it. The caller chooses the signals; s.Hangup is replaced.
func (s *Server) ServeSignals(ctx context.Context, in io.Reader, out io.Writer, sigs <-chan os.Signal) error {
	hangup := make(chan struct{})
	ctx, abort := context.WithCancel(ctx)
	defer abort()
	go func() {
		select {
		case <-sigs:
			close(hangup)
		case <-ctx.Done():
			return
		}
		select {
		case <-sigs:
			abort()
		case <-ctx.Done():
		}
	}()
	s.Hangup = hangup
	return s.Serve(ctx, in, out)
}
