package dropin

import (
	"fmt"

	"github.com/codexrec/codexrec/setting"
	"github.com/codexrec/codexrec/wsproxy"
)

// The reasons of a *SettingError: setting's shared ones, and the drop-in
// runners' own.
var (
	// ErrNeeds: the setting goes only with the other one (SettingError.With).
	ErrNeeds = setting.ErrNeeds
	// ErrExcludes: the setting and the other one (With) exclude each other.
	ErrExcludes = setting.ErrExcludes
	// ErrNegative: a size or a count below zero.
	ErrNegative = setting.ErrNegative
	// ErrRange: a number out of the setting's range (a segment below 1, another
	// than 1 on a socket).
	ErrRange = setting.ErrRange
	// ErrNoCommand: the settings need a command to run, and there is none.
	ErrNoCommand = setting.Reason("is missing")
	// ErrOwnListen: the command to run on a socket chooses its own listen address
	// (Value), where the relay starts it on a private one.
	ErrOwnListen = setting.Reason("chooses its own listen address")
	// ErrListens: the command to record on stdio listens on a socket (Value)
	// instead, where a stdio proxy sees nothing.
	ErrListens = setting.Reason("listens on a socket")
)

// A SettingError is settings of RecordOptions, ReplayOptions or Standin that cannot
// be used together or as given: Setting names the field at fault ("Command" for
// the command to run), With the other field when two do not go together, Value
// what the field holds when it says why, and Err the reason: one of the errors
// above, or the value's parse error (wsproxy.ParseURL's, shim.ParseMode's).
type SettingError = setting.Error

// Socket reports whether the settings record a socket (RecordSocket): Listen is a
// URL other than stdio's.
func (o *RecordOptions) Socket() bool { return !wsproxy.IsStdio(o.Listen) }

// Validate refuses settings that do not go together for recording command (argv;
// none with Upstream): on a socket (Socket), Upstream or a command and not both, a
// command that does not choose its own --listen, URLs that parse, a MemoryBudget
// of 0 or more; on stdio, no Upstream or URLFile (they need Listen) and a command
// that does not listen on a socket. Its error is a *SettingError, the first found.
func (o *RecordOptions) Validate(command []string) error {
	own := wsproxy.ListenFlag(command[min(1, len(command)):])
	if !o.Socket() {
		for _, f := range [][2]string{{"Upstream", o.Upstream}, {"URLFile", o.URLFile}} {
			if f[1] != "" {
				return &SettingError{Setting: f[0], With: "Listen", Err: ErrNeeds}
			}
		}
		switch {
		case !wsproxy.IsStdio(own):
			return &SettingError{Setting: "Command", Value: own, Err: ErrListens}
		case len(command) == 0:
			return &SettingError{Setting: "Command", Err: ErrNoCommand}
		}
		return nil
	}
	_, listenErr := wsproxy.ParseURL(o.Listen)
	_, upErr := wsproxy.ParseURL(o.Upstream)
	switch {
	case o.Upstream == "" && len(command) == 0:
		return &SettingError{Setting: "Command", Err: ErrNoCommand}
	case o.Upstream != "" && len(command) > 0:
		return &SettingError{Setting: "Upstream", With: "Command", Err: ErrExcludes}
	case own != "":
		return &SettingError{Setting: "Command", Value: own, Err: ErrOwnListen}
	case listenErr != nil:
		return &SettingError{Setting: "Listen", Err: listenErr}
	case o.MemoryBudget < 0:
		return &SettingError{Setting: "MemoryBudget", Err: ErrNegative}
	case o.Upstream != "" && upErr != nil:
		return &SettingError{Setting: "Upstream", Err: upErr}
	}
	return nil
}

// Validate refuses settings that do not go together: without Listen, none of the
// socket's settings (Loop, URLFile, Token, Connections: they need Listen); a
// Segment of 0 or more, and with Listen 0 or 1 (a socket recording holds one
// connection); a Listen URL that parses; a MemoryBudget of 0 or more. Its error
// is a *SettingError, the first found.
func (o *ReplayOptions) Validate() error {
	if o.Segment < 0 {
		return &SettingError{Setting: "Segment", Value: fmt.Sprint(o.Segment), Err: ErrRange}
	}
	if o.Listen == "" {
		for _, f := range []struct {
			name string
			set  bool
		}{{"Loop", o.Loop}, {"URLFile", o.URLFile != ""}, {"Token", o.Token != ""}, {"Connections", o.Connections != 0}} {
			if f.set {
				return &SettingError{Setting: f.name, With: "Listen", Err: ErrNeeds}
			}
		}
		return nil
	}
	_, urlErr := wsproxy.ParseURL(o.Listen)
	switch {
	case o.Segment > 1:
		return &SettingError{Setting: "Segment", Value: fmt.Sprint(o.Segment), Err: ErrRange}
	case urlErr != nil:
		return &SettingError{Setting: "Listen", Err: urlErr}
	case o.MemoryBudget < 0:
		return &SettingError{Setting: "MemoryBudget", Err: ErrNegative}
	}
	return nil
}
