package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/setting"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/wsreplay"
)

func init() {
	register(&cli.Command{
		Config:  true,
		Name:    "replay",
		Args:    "[flags] FILE|DIR/ [-- COMMAND [ARGS...]]  |  --listen URL [--loop] [--url-file F] FILE|DIR",
		Summary: "serve a recording on stdin/stdout in place of codex app-server (a fake server for tests), or over WebSocket with --listen",
		Flags:   replayFlags,
		Run:     runReplay,
		// Flags may follow FILE; "-- COMMAND" stays for --mode record, auto or passthrough.
		Interspersed: true,
		DashCommand:  true,
	})
}

type replayConfig struct {
	mode, tokenFile string
	stderr          bool
	memoryMiB       int64
	srv             replay.Server        // the flags' server settings
	set             replay.Settings      // the flags' matching, pacing and faults
	o               dropin.ReplayOptions // the flags' runner settings
	stale           staleFlags
}

func replayFlags(fs *flag.FlagSet) any {
	c := &replayConfig{}
	fs.StringVar(&c.mode, "mode", "replay", "`MODE`: replay, auto (replay FILE if it exists, else record it from -- COMMAND; never records when CI is set), record, passthrough\nor extend (replay FILE, then run -- COMMAND from the first message FILE lacks and record the rest into it; refused when CI is set; see docs/extend.md)")
	fs.StringVar(&c.set.Match, "match", "params", "`MODE` of matching client messages: strict, params (normalised) or method")
	fs.Var((*cli.Strings)(&c.set.Ignore), "ignore", "leave the value at JSON `POINTER` out when matching (repeatable; [METHOD:]POINTER, * any index or key, ** any depth:\n/params/input/*/text, turn/start:/params/clientUserMessageId; see docs/match-rules.md)")
	fs.Var((*cli.Strings)(&c.set.MatchOnly), "match-only", "compare only the values at JSON `POINTER` (repeatable; [METHOD:]POINTER, as --ignore)")
	fs.BoolVar(&c.srv.NoRepeats, "no-repeats", false, "refuse a request sent more often than recorded (by default one of an idempotent method, model/list, config/read..., is answered again as recorded; docs/repeats.md)")
	fs.Var((*cli.Strings)(&c.srv.Idempotent), "idempotent", "also answer a repeated `METHOD` as recorded (repeatable)")
	c.stale.register(fs, true)
	fs.BoolVar(&c.srv.Unordered, "unordered", false, "let requests of different threads arrive in another order than recorded")
	fs.Float64Var(&c.set.Speed, "speed", 0, "0 answers as fast as possible, 1 keeps the recorded gaps, 2 halves them")
	fs.IntVar(&c.o.Segment, "segment", 1, "serve server lifetime `N` of a recording with restarts")
	fs.BoolVar(&c.srv.Strict, "strict", false, "require every recorded client message, initialized too (by default a recorded notification the client never sends is skipped and reported)")
	fs.BoolVar(&c.srv.FailFast, "fail-fast", false, "exit at the first client message that matches nothing")
	fs.BoolVar(&c.srv.AllowUnused, "allow-unused", false, "do not fail when the client ends before sending every recorded message")
	fs.BoolVar(&c.stderr, "stderr", false, "replay the server's recorded stderr lines on stderr")
	fs.StringVar(&c.srv.Paths.Cwd, "cwd", "", "serve the recording's <cwd> placeholder as `DIR` when the client sends no cwd (default: the working directory; see docs/replay.md)")
	fs.DurationVar(&c.set.Patience, "patience", replay.DefaultPatience, "send a server frame recorded after a client message the client has not sent once the client was silent this `long` (0: never; see docs/replay.md)")
	fs.Var((*cli.Strings)(&c.set.Faults), "fault", "inject a fault `RULE`, KIND[:METHOD[#N]][=VALUE] (repeatable; see docs/replay.md), KIND one of\ndelay, drop, duplicate, reorder, eof, completed-early, overloaded, garbage")
	fs.StringVar(&c.o.Listen, "listen", "", "serve WebSocket clients on `URL` (ws://HOST:PORT, port 0 picks one, or unix://PATH): each connection gets a fresh replay of FILE, or of DIR's recordings in connection order")
	fs.BoolVar(&c.o.Loop, "loop", false, "with --listen: start over once every recording has been served")
	fs.StringVar(&c.o.URLFile, "url-file", "", "with --listen: write the bound URL to `FILE` once clients may connect")
	fs.StringVar(&c.tokenFile, "ws-token-file", "", "with --listen: the bearer token (first line of `FILE`) a client must send when the recording's did (default: any bearer token)")
	fs.Int64Var(&c.memoryMiB, "memory-budget", 512, "with --listen: `MiB` of messages held in memory across all connections (0: the default); past it, reads and replies wait")
	fs.IntVar(&c.o.Connections, "connections", 0, "with --listen: exit once `N` connections have been replayed (0: at SIGINT or SIGTERM)")
	settings.Apply("replay", fs)
	return c
}

func runReplay(cfg any, args []string, std cli.IO) error {
	c := cfg.(*replayConfig)
	mode, modeErr := shim.ParseMode(c.mode)
	socket := c.o.Listen != ""
	err := cli.Refuse(cli.When(len(args) == 0, "want exactly one recording"),
		cli.When(!socket && c.tokenFile != "", needsListen),
		cli.When(socket && len(args) != 1, "--listen serves exactly one recording or directory"),
		cli.When(!socket && len(args) > 1 && (args[1] != "--" || len(args) == 2), "want exactly one recording, then optionally -- COMMAND for --mode record, auto or passthrough"),
		cli.When(!socket && modeErr != nil, fmt.Sprintf("--mode: %v", modeErr)))
	if err == nil && !socket { // the socket's settings are refused here, not in a shim's stdio session
		err = settingUsage(c.o.Validate(), c.replayHint)
	}
	if err != nil {
		return err
	}
	// --mode replay of a FILE serves it (Plain); a directory or another mode is a
	// drop-in session.
	m := &dropin.SessionOptions{Mode: mode, Replace: true, Plain: true, CommandErr: errors.New("no command to record: codexrec replay --mode " + c.mode + " FILE -- codex app-server")}
	if len(args) > 2 {
		m.Command, m.CommandErr = args[2:], nil
	}
	if err := modes(m, recordFlags(flag.NewFlagSet("record", flag.ContinueOnError)).(*recordConfig), c, std, nil); err != nil {
		return err
	}
	return runnerError(m.Run(context.Background(), args[0], std.In))
}

// options are the replay runner's settings the flags describe; std.Err receives
// the diagnostics.
func (c *replayConfig) options(std cli.IO) (_ *dropin.ReplayOptions, err error) {
	if c.o.Segment < 1 {
		return nil, cli.Usagef("--segment %d: segments are numbered from 1", c.o.Segment)
	}
	srv := c.srv
	srv.Log, srv.OptionName = std.Err, replayFlagOf
	if err := c.set.Apply(&srv); err != nil {
		return nil, settingUsage(err, nil)
	}
	if c.stderr {
		srv.Stderr = std.Err
	}
	o := c.o
	o.Server, o.Stdout, o.Stderr, o.Log = &srv, std.Out, std.Err, cli.Prefixed(std.Err, "codexrec replay: ")
	o.Stale = &c.stale.Settings
	o.MemoryBudget = c.memoryMiB << 20
	if o.Listen == "" {
		return &o, nil
	}
	if c.tokenFile != "" {
		if o.Token, err = wsreplay.ReadToken(c.tokenFile); err != nil {
			return nil, cli.ExitWith(exitUsage, fmt.Errorf("--ws-token-file: %w", err))
		}
	}
	if err := settingUsage(o.Validate(), c.replayHint); err != nil {
		return nil, err
	}
	return &o, nil
}

const needsListen = "--loop, --url-file, --ws-token-file and --connections need --listen URL"

// replayHint is replay's message for a refused setting (settingUsage).
func (c *replayConfig) replayHint(se *setting.Error) string {
	if errors.Is(se, setting.ErrNeeds) {
		return needsListen
	}
	return dropinHint(c.memoryMiB)(se)
}

// replayFlagOf names the flag of a replay setting a diagnosis suggests.
func replayFlagOf(option string) string {
	for _, p := range [][2]string{{replay.OptionIdempotent, "--idempotent "}, {replay.OptionRule, "--"}} {
		if v, ok := strings.CutPrefix(option, p[0]); ok {
			return p[1] + v
		}
	}
	return cmp.Or(map[string]string{replay.OptionNotStrict: "no --strict", replay.OptionUnordered: "--unordered",
		replay.OptionMatchParams: "--match params", replay.OptionMatchMethod: "--match method", replay.OptionStrict: "--strict",
		replay.OptionNoRepeats: "--no-repeats", replay.OptionRepeats: "no --no-repeats"}[option], option)
}
