package replay_test

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/replay"
)

func TestSettingsApply(t *testing.T) {
	var s replay.Server
	err := replay.Settings{Match: "method", Ignore: []string{"/params/x"}, MatchOnly: []string{"turn/start:/params/input"},
		Faults: []string{"eof:turn/start"}, Speed: 2}.Apply(&s)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != replay.ModeMethod || s.Speed != 2 || s.Patience >= 0 || len(s.Rules) != 2 || len(s.Faults) != 1 {
		t.Errorf("Server %+v; want method, speed 2, no patience, 2 rules, 1 fault", s)
	}
	if err := (replay.Settings{Patience: time.Second}).Apply(&s); err != nil || s.Patience != time.Second {
		t.Errorf("patience 1s: %v, %v", s.Patience, err)
	}
	for _, tc := range []struct {
		st   replay.Settings
		want string
	}{
		{replay.Settings{Match: "fuzzy"}, "Match"},
		{replay.Settings{Speed: -1}, "Speed"},
		{replay.Settings{Patience: -time.Second}, "Patience"},
		{replay.Settings{Ignore: []string{"no-slash"}}, "Ignore"},
		{replay.Settings{MatchOnly: []string{"no-slash"}}, "MatchOnly"},
		{replay.Settings{Faults: []string{"explode"}}, "Faults"},
	} {
		var se *replay.SettingError
		if err := tc.st.Apply(&replay.Server{}); !errors.As(err, &se) || se.Setting != tc.want {
			t.Errorf("%+v: %v; want a SettingError for %s", tc.st, err, tc.want)
		}
	}
}

// TestServeSignals: one signal is a hangup (the unsent rest reported unused), a
// second one aborts. The signals are sent on the channel, as signal.Notify would.
func TestServeSignals(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	for _, n := range []int{1, 2} {
		inR, inW := io.Pipe() // the client never closes its input
		defer inW.Close()
		sigs := make(chan os.Signal, 2)
		done := make(chan error, 1)
		srv := &replay.Server{Script: sc, Log: io.Discard}
		go func() { done <- srv.ServeSignals(context.Background(), inR, io.Discard, sigs) }()
		for range n {
			sigs <- syscall.SIGTERM
		}
		select {
		case err := <-done:
			if n == 1 && !errors.Is(err, replay.ErrUnused) {
				t.Errorf("one signal: %v; want ErrUnused", err)
			}
			if n == 2 && (err == nil || errors.Is(err, replay.ErrNoMatch)) {
				t.Errorf("two signals: %v; want the replay aborted", err)
			}
		case <-time.After(waitTimeout):
			t.Fatalf("%d signal(s): Serve did not end", n)
		}
	}
}
