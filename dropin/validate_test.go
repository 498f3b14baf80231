package dropin_test

import (
	"errors"
	"testing"

	"github.com/codexrec/codexrec/dropin"
)

// TestValidate: settings that do not go together are a *dropin.SettingError naming
// the field at fault (and the other one) with its reason; good ones pass.
func TestValidate(t *testing.T) {
	cmd := []string{"codex", "app-server"}
	for _, tc := range []struct {
		name          string
		err           error
		setting, with string
	}{
		{"record stdio", (&dropin.RecordOptions{}).Validate(cmd), "", ""},
		{"record socket", (&dropin.RecordOptions{Listen: "ws://127.0.0.1:0"}).Validate(cmd), "", ""},
		{"record upstream", (&dropin.RecordOptions{Listen: "ws://127.0.0.1:0", Upstream: "unix:///tmp/s.sock"}).Validate(nil), "", ""},
		{"upstream without listen", (&dropin.RecordOptions{Upstream: "ws://127.0.0.1:1"}).Validate(cmd), "Upstream", "Listen"},
		{"url file without listen", (&dropin.RecordOptions{URLFile: "u"}).Validate(cmd), "URLFile", "Listen"},
		{"no command", (&dropin.RecordOptions{}).Validate(nil), "Command", ""},
		{"command listens", (&dropin.RecordOptions{}).Validate(append(cmd, "--listen", "ws://127.0.0.1:1")), "Command", ""},
		{"socket without command", (&dropin.RecordOptions{Listen: "ws://127.0.0.1:0"}).Validate(nil), "Command", ""},
		{"upstream and command", (&dropin.RecordOptions{Listen: "ws://127.0.0.1:0", Upstream: "ws://127.0.0.1:1"}).Validate(cmd), "Upstream", "Command"},
		{"own listen", (&dropin.RecordOptions{Listen: "ws://127.0.0.1:0"}).Validate(append(cmd, "--listen", "unix://")), "Command", ""},
		{"bad listen", (&dropin.RecordOptions{Listen: "ws://localhost"}).Validate(cmd), "Listen", ""},
		{"record budget", (&dropin.RecordOptions{Listen: "ws://127.0.0.1:0", MemoryBudget: -1}).Validate(cmd), "MemoryBudget", ""},
		{"bad upstream", (&dropin.RecordOptions{Listen: "ws://127.0.0.1:0", Upstream: "http://x"}).Validate(nil), "Upstream", ""},
		{"replay", (&dropin.ReplayOptions{}).Validate(), "", ""},
		{"replay socket", (&dropin.ReplayOptions{Listen: "unix:///tmp/r.sock", Loop: true, Connections: 2}).Validate(), "", ""},
		{"loop without listen", (&dropin.ReplayOptions{Loop: true}).Validate(), "Loop", "Listen"},
		{"token without listen", (&dropin.ReplayOptions{Token: "t"}).Validate(), "Token", "Listen"},
		{"connections without listen", (&dropin.ReplayOptions{Connections: 1}).Validate(), "Connections", "Listen"},
		{"negative segment", (&dropin.ReplayOptions{Segment: -1}).Validate(), "Segment", ""},
		{"socket segment", (&dropin.ReplayOptions{Listen: "ws://127.0.0.1:0", Segment: 2}).Validate(), "Segment", ""},
		{"replay bad listen", (&dropin.ReplayOptions{Listen: "tcp://x"}).Validate(), "Listen", ""},
		{"replay budget", (&dropin.ReplayOptions{Listen: "ws://127.0.0.1:0", MemoryBudget: -1}).Validate(), "MemoryBudget", ""},
	} {
		var se *dropin.SettingError
		switch {
		case tc.setting == "" && tc.err != nil:
			t.Errorf("%s: %v, want none", tc.name, tc.err)
		case tc.setting != "" && (!errors.As(tc.err, &se) || se.Setting != tc.setting || se.With != tc.with):
			t.Errorf("%s: %#v, want a *SettingError of %s (with %q)", tc.name, tc.err, tc.setting, tc.with)
		}
	}
	err := (&dropin.RecordOptions{Listen: "ws://127.0.0.1:0"}).Validate(append(cmd, "--listen", "unix://"))
	var se *dropin.SettingError
	if !errors.Is(err, dropin.ErrOwnListen) || !errors.As(err, &se) || se.Value != "unix://" {
		t.Errorf("own listen: %v, want ErrOwnListen with the command's URL", err)
	}
}

// TestSettingErrorText: a refusal reads as the field and its reason.
func TestSettingErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *dropin.SettingError
		want string
	}{
		{&dropin.SettingError{Setting: "Upstream", With: "Listen", Err: dropin.ErrNeeds}, "Upstream goes only with Listen"},
		{&dropin.SettingError{Setting: "Command", Err: dropin.ErrNoCommand}, "Command is missing"},
		{&dropin.SettingError{Setting: "Segment", Value: "2", Err: dropin.ErrRange}, `Segment is out of range ("2")`},
		{&dropin.SettingError{Setting: "Listen", Err: errors.New("want ws://HOST:PORT")}, "Listen: want ws://HOST:PORT"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
