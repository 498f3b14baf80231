package replay

import (
	"context"
	"github.com/codexrec/codexrec/setting"
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

// A SettingError is a setting Apply refused: Setting is the Settings field
// ("Match", "Ignore", "MatchOnly", "Faults", "Speed", "Patience"), Value the value
// refused when the error does not say it, Err why.
type SettingError = setting.Error

// Apply parses the settings into s: Mode, Rules and Faults (appended), Speed and
// Patience. The first setting that does not parse is a *SettingError.
func (st Settings) Apply(s *Server) error {
	var mode Mode // "": the zero Mode, params
	if st.Match != "" {
		var err error
		if mode, err = ParseMode(st.Match); err != nil {
			return &SettingError{Setting: "Match", Err: err}
		}
	}
	if st.Speed < 0 {
		return &SettingError{Setting: "Speed", Value: strconv.FormatFloat(st.Speed, 'g', -1, 64), Err: setting.ErrNegative}
	}
	if st.Patience < 0 {
		return &SettingError{Setting: "Patience", Value: st.Patience.String(), Err: setting.ErrNegative}
	}
	s.Mode, s.Speed, s.Patience = mode, st.Speed, st.Patience
	if s.Patience == 0 {
		s.Patience = -1 // the Server's zero is its default
	}
	for _, r := range []struct {
		field string
		kind  RuleKind
		specs []string
	}{{"Ignore", RuleIgnore, st.Ignore}, {"MatchOnly", RuleMatchOnly, st.MatchOnly}} {
		rules, err := ParseRules(r.kind, r.specs)
		if err != nil {
			return &SettingError{Setting: r.field, Err: err}
		}
		s.Rules = append(s.Rules, rules...)
	}
	for _, f := range st.Faults {
		fault, err := ParseFault(f)
		if err != nil {
			return &SettingError{Setting: "Faults", Err: err}
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
