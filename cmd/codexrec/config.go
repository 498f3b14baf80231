package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
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

// target is a flag a setting sets: on command cmd, flag name; value maps the
// setting's value to the flag's (nil: as it is).
type target struct {
	cmd, flag string
	value     func(string) string
}

func not(v string) string {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return v // the flag refuses it
	}
	return strconv.FormatBool(!b)
}

// settingTargets maps a setting's key to the flags it sets. Keys backed by an
// environment variable the shim reads (mode, dir, name, codex, log) set that
// variable instead (setEnvDefaults).
var settingTargets = map[string][]target{
	"match.mode":              {{"replay", "match", nil}},
	"match.unordered":         {{"replay", "unordered", nil}},
	"match.strict":            {{"replay", "strict", nil}},
	"match.ignore":            {{"replay", "ignore", nil}},
	"match.match_only":        {{"replay", "match-only", nil}},
	"repeats.enabled":         {{"replay", "no-repeats", not}},
	"repeats.idempotent":      {{"replay", "idempotent", nil}},
	"stale.max_age":           {{"replay", "max-age", nil}, {"check", "max-age", nil}},
	"stale.min_codex":         {{"replay", "min-codex", nil}, {"check", "min-codex", nil}},
	"stale.action":            {{"replay", "stale", nil}},
	"sanitize.secret_envs":    {{"record", "secret-env", nil}, {"sanitize", "secret-env", nil}},
	"sanitize.secret_files":   {{"record", "secret-file", nil}, {"sanitize", "secret-file", nil}},
	"sanitize.allow":          {{"record", "allow", nil}, {"sanitize", "allow", nil}},
	"sanitize.allow_files":    {{"record", "allow-file", nil}, {"sanitize", "allow-file", nil}},
	"sanitize.maps":           {{"record", "map", nil}, {"sanitize", "map", nil}},
	"sanitize.salt":           {{"record", "salt", nil}, {"sanitize", "salt", nil}},
	"check.fail_on":           {{"check", "fail-on", nil}},
	"check.disable":           {{"check", "disable", nil}},
	"check.expect_methods":    {{"check", "expect-method", nil}},
	"check.forbid_methods":    {{"check", "forbid-method", nil}},
	"check.max_turn_duration": {{"check", "max-turn-duration", nil}},
	"check.expect_approval":   {{"check", "expect-approval", nil}},
}

// targetsOf is settingTargets plus per-method rules (replay --ignore METHOD:POINTER).
func targetsOf(key string) (ts []target, method string) {
	if rest, ok := strings.CutPrefix(key, "match.methods."); ok {
		i := strings.LastIndex(rest, ".")
		if i < 0 {
			return nil, ""
		}
		flagName := map[string]string{"ignore": "ignore", "match_only": "match-only"}[rest[i+1:]]
		if flagName == "" {
			return nil, ""
		}
		return []target{{"replay", flagName, nil}}, rest[:i]
	}
	return settingTargets[key], ""
}

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
		path, err := config.Find(explicit, os.Getenv, ".")
		if err != nil {
			loaded.err = err
			return
		}
		var f *config.File
		if path != "" {
			if f, err = config.Load(path); err != nil {
				loaded.err = err
				return
			}
		}
		loaded.path = path
		loaded.settings = config.Resolve(f, path, os.Getenv)
		for _, s := range loaded.settings {
			for _, sp := range config.Specs {
				if sp.Key == s.Key && sp.Env != "" && s.Source.Kind == "file" && settingTargets[s.Key] == nil {
					os.Setenv(sp.Env, s.Values[0])
				}
			}
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
	for _, s := range loaded.settings {
		ts, method := targetsOf(s.Key)
		for _, t := range ts {
			if t.cmd != cmd || fs.Lookup(t.flag) == nil {
				continue
			}
			for _, v := range s.Values {
				if t.value != nil {
					v = t.value(v)
				}
				if method != "" {
					v = method + ":" + v
				}
				// A bad value is the flag's to refuse: say where it came from.
				if err := fs.Set(t.flag, v); err != nil {
					loaded.err = fmt.Errorf("%s %s: %w", s.Source, s.Key, err)
				}
			}
		}
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
	for _, st := range loaded.settings {
		vals, src := st.Values, st.Source.String()
		ts, method := targetsOf(st.Key)
		for _, t := range ts {
			v, ok := fromFlags[t.flag]
			if !ok || t.cmd != cmd {
				continue
			}
			delete(fromFlags, t.flag)
			if isList(st.Key) {
				// A list flag adds to what the file or the environment holds (per-method
				// rules: those for this method).
				for _, x := range v {
					if method == "" || strings.HasPrefix(x, method+":") {
						vals = append(vals, strings.TrimPrefix(x, method+":"))
					}
				}
				src += " + flag --" + t.flag
				continue
			}
			if t.value != nil {
				v = []string{t.value(v[0])}
			}
			vals, src = v, "flag --"+t.flag
		}
		fmt.Fprintf(std.out, "%s = %s  # %s\n", displayKey(st.Key), tomlValue(st.Key, vals), src)
	}
	// Flags that set what the file and the environment leave at its default.
	keys := slices.Sorted(maps.Keys(settingTargets))
	for _, key := range keys {
		for _, t := range settingTargets[key] {
			v, ok := fromFlags[t.flag]
			if !ok || t.cmd != cmd {
				continue
			}
			if t.value != nil {
				v = []string{t.value(v[0])}
			}
			fmt.Fprintf(std.out, "%s = %s  # flag --%s\n", key, tomlValue(key, v), t.flag)
			delete(fromFlags, t.flag)
		}
	}
	return nil
}

// isList reports whether a setting holds a list.
func isList(key string) bool {
	if strings.HasPrefix(key, "match.methods.") {
		return true
	}
	for _, sp := range config.Specs {
		if sp.Key == key {
			return sp.List
		}
	}
	return false
}

// displayKey quotes the method of a per-method key, as TOML writes it.
func displayKey(key string) string {
	rest, ok := strings.CutPrefix(key, "match.methods.")
	if !ok {
		return key
	}
	i := strings.LastIndex(rest, ".")
	return "match.methods." + strconv.Quote(rest[:i]) + rest[i:]
}

// tomlValue renders values as TOML: a list for list keys, else one scalar.
func tomlValue(key string, vals []string) string {
	list := isList(key)
	q := make([]string, len(vals))
	for i, v := range vals {
		if _, err := strconv.ParseBool(v); err == nil && !list {
			q[i] = v
		} else {
			q[i] = strconv.Quote(v)
		}
	}
	if list {
		return "[" + strings.Join(q, ", ") + "]"
	}
	if len(q) == 0 {
		return `""`
	}
	return q[0]
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
