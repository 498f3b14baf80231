package main

import (
	"flag"

	"github.com/codexrec/codexrec/config"
	"github.com/codexrec/codexrec/internal/cli"
)

func init() {
	register(&cli.Command{
		Config:  true,
		Name:    "config",
		Args:    "[--config FILE] [--json] [replay|record|check|sanitize [FLAGS...]] (what follows the command is its flags)",
		Summary: "print the effective settings of .codexrec.toml, the environment and (given a command) its flags, each with where it came from",
		Flags:   func(fs *flag.FlagSet) any { return fs.Bool("json", false, "print the settings as one JSON document") },
		Run:     runConfig,
	})
}

// settings binds the config file's settings to the flags below. Keys backed by an
// environment variable the shim reads (mode, dir, name, codex, log) set that
// variable instead (config.Bindings.EnvDefaults).
var settings = &cli.Config{Flag: "config", Usage: "read settings from `FILE` instead of .codexrec.toml found from the working directory upwards (or $CODEXREC_CONFIG; docs/config.md)",
	Bindings: config.Bindings{
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
	}}

// on is the target of flag name on command cmd.
func on(cmd, name string) config.Target { return config.Target{Command: cmd, Name: name} }

// runConfig prints the effective settings: key, value, source.
func runConfig(asJSON any, args []string, std cli.IO) error {
	if err := settings.Load(""); err != nil {
		return err
	}
	var c *cli.Command
	if len(args) > 0 {
		x, ok := app.Commands[args[0]]
		if !ok || !x.Config || x.Flags == nil {
			return cli.Usagef("no command %q takes settings (want replay, record, check or sanitize)", args[0])
		}
		c, args = x, args[1:]
	}
	return settings.Print(std.Out, c, args, *asJSON.(*bool))
}
