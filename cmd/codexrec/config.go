package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/codexrec/codexrec/config"
)

func init() {
	register(&command{
		name:    "config",
		args:    "[--config FILE] [replay|record|check|sanitize [FLAGS...]]",
		summary: "print the effective settings of .codexrec.toml, the environment and (given a command) its flags, each with where it came from",
		flags:   func(fs *flag.FlagSet) any { return nil },
		run:     runConfig,
	})
}

// configCommands are the commands whose flags .codexrec.toml (or --config) sets.
var configCommands = map[string]bool{"replay": true, "record": true, "check": true, "sanitize": true, "shim": true, "config": true}

// settingTargets maps a setting's key to the flags it sets. Keys backed by an
// environment variable the shim reads (mode, dir, name, codex, log) set that
// variable instead (config.Bindings.EnvDefaults).
var settingTargets = config.Bindings{
	"match.mode":                 {on("replay", "match")},
	"match.unordered":            {on("replay", "unordered")},
	"match.strict":               {on("replay", "strict")},
	"match.ignore":               {on("replay", "ignore")},
	"match.match_only":           {on("replay", "match-only")},
	"match.methods.*.ignore":     {on("replay", "ignore")},
	"match.methods.*.match_only": {on("replay", "match-only")},
	"repeats.enabled":            {{Command: "replay", Name: "no-repeats", Invert: true}},
	"repeats.idempotent":         {on("replay", "idempotent")},
	"stale.max_age":              {on("replay", "max-age"), on("check", "max-age")},
	"stale.min_codex":            {on("replay", "min-codex"), on("check", "min-codex")},
	"stale.action":               {on("replay", "stale")},
	"sanitize.secret_envs":       {on("record", "secret-env"), on("sanitize", "secret-env")},
	"sanitize.secret_files":      {on("record", "secret-file"), on("sanitize", "secret-file")},
	"sanitize.allow":             {on("record", "allow"), on("sanitize", "allow")},
	"sanitize.allow_files":       {on("record", "allow-file"), on("sanitize", "allow-file")},
	"sanitize.maps":              {on("record", "map"), on("sanitize", "map")},
	"sanitize.salt":              {on("record", "salt"), on("sanitize", "salt")},
	"check.fail_on":              {on("check", "fail-on")},
	"check.disable":              {on("check", "disable")},
	"check.expect_methods":       {on("check", "expect-method")},
	"check.forbid_methods":       {on("check", "forbid-method")},
	"check.max_turn_duration":    {on("check", "max-turn-duration")},
	"check.expect_approval":      {on("check", "expect-approval")},
}

// on is the target of flag name on command cmd.
func on(cmd, name string) config.Target { return config.Target{Command: cmd, Name: name} }

// loaded is the configuration of this process, read once.
var loaded struct {
	once     sync.Once
	path     string
	settings []config.Setting
	err      error
	off      bool // config's own flag parsing: flags alone
}

// loadConfig reads the config file (explicit, else CODEXREC_CONFIG, else found from
// the working directory upwards) and resolves it against the environment, once;
// then it sets the shim's environment variables the environment leaves unset.
func loadConfig(explicit string) error {
	loaded.once.Do(func() {
		loaded.path, loaded.settings, loaded.err = config.Read(explicit, os.Getenv, ".")
		for k, v := range settingTargets.EnvDefaults(loaded.settings) {
			os.Setenv(k, v)
		}
	})
	if loaded.err != nil {
		return &exitError{exitUsage, fmt.Errorf("config: %w", loaded.err)}
	}
	return nil
}

// configFlag returns the value of --config among a command's arguments (before
// "--"), or "".
func configFlag(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		for _, p := range []string{"--config", "-config"} {
			if a == p && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, p+"="); ok {
				return v
			}
		}
	}
	return ""
}

// applyConfig sets the flags of command cmd in fs that the loaded settings name,
// before the command line is parsed: a flag given there overrides a scalar and adds
// to a list.
func applyConfig(cmd string, fs *flag.FlagSet) {
	if loaded.off {
		return
	}
	// A bad value is the flag's to refuse; the error says where it came from.
	if err := settingTargets.Apply(loaded.settings, cmd, fs); err != nil {
		loaded.err = err
	}
}

// runConfig prints the effective settings: key, value, source.
func runConfig(_ any, args []string, std stdio) error {
	if err := loadConfig(""); err != nil {
		return err
	}
	if loaded.path == "" {
		fmt.Fprintln(std.out, "# no config file (.codexrec.toml from the working directory upwards, --config or CODEXREC_CONFIG)")
	} else {
		fmt.Fprintf(std.out, "# config file: %s\n", loaded.path)
	}
	fromFlags := map[string][]string{}
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
		c, ok := commands[cmd]
		if !ok || !configCommands[cmd] || c.flags == nil {
			return usagef("no command %q takes settings (want replay, record, check or sanitize)", cmd)
		}
		loaded.off = true
		fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("config", "", "")
		c.flags(fs)
		loaded.off = false
		if err := fs.Parse(args[1:]); err != nil {
			return usagef("%s: %v", cmd, err)
		}
		fs.Visit(func(f *flag.Flag) {
			if m, ok := f.Value.(*multiFlag); ok {
				fromFlags[f.Name] = *m
			} else {
				fromFlags[f.Name] = []string{f.Value.String()}
			}
		})
	}
	for _, l := range settingTargets.Effective(loaded.settings, cmd, fromFlags) {
		src := l.Source
		switch {
		case l.Option == "":
		case l.Added:
			src += " + flag --" + l.Option
		default:
			src = "flag --" + l.Option
		}
		fmt.Fprintf(std.out, "%s = %s  # %s\n", l.Key, l.Value(), src)
	}
	return nil
}

// configuredFlags registers c's flags in fs with the settings of the config file
// (for the commands that take settings) as their values, ready for the command
// line to override.
func configuredFlags(c *command, fs *flag.FlagSet, args []string) (any, error) {
	if configCommands[c.name] {
		if err := loadConfig(configFlag(args)); err != nil {
			return nil, err
		}
	}
	if c.flags == nil {
		return nil, nil
	}
	cfg := c.flags(fs)
	if loaded.err != nil {
		return nil, &exitError{exitUsage, fmt.Errorf("config: %w", loaded.err)}
	}
	return cfg, nil
}
