package main

import (
	"flag"

	"github.com/codexrec/codexrec/diff"
)

func init() {
	register(&command{name: "schema", args: "SUBCOMMAND [flags] [args] (subcommands: diff)",
		summary: "work with the protocol's JSON Schemas: schema diff OLD NEW compares two versions"})
}

// schemaCommands are the subcommands of `codexrec schema`.
var schemaCommands = map[string]*command{
	"diff": {name: "schema diff", args: "[--json] [--fail-on LEVEL] [--experimental] OLD NEW", flags: schemaDiffFlags, run: runSchemaDiff, interspersed: true,
		summary: "compare two protocol versions (embedded versions such as 0.163.0, or folders from `codex app-server generate-json-schema`), classifying each change as breaking, warning or info for a client"},
}

type schemaDiffConfig struct {
	opts           diff.SchemaOptions
	listRules      bool
	failOn, colour string
}

func schemaDiffFlags(fs *flag.FlagSet) any {
	c := &schemaDiffConfig{}
	fs.BoolVar(&c.opts.JSON, "json", false, "write the report as JSON")
	fs.BoolVar(&c.opts.Experimental, "experimental", false, "compare the experimental sets (methods behind experimentalApi) instead of the stable ones")
	fs.StringVar(&c.failOn, "fail-on", "info", "exit 1 when a change of this `level` or worse is found: "+failOnHelp+" (info: any change; error: breaking)")
	fs.StringVar(&c.colour, "color", "auto", "colour the text report: auto, always, never")
	fs.BoolVar(&c.listRules, "list-rules", false, "list the rule ids and their tiers, then exit")
	return c
}

func runSchemaDiff(cfg any, args []string, std stdio) error {
	c := cfg.(*schemaDiffConfig)
	if c.listRules {
		return diff.WriteSchemaRules(std.out)
	}
	if len(args) != 2 {
		return usagef("want two schema versions or folders, OLD and NEW")
	}
	level, err := parseFailOn(c.failOn)
	if err != nil {
		return usagef("%v", err)
	}
	o := c.opts
	if o.Colour, err = wantColour(c.colour, std); err != nil {
		return err
	}
	o.Out = std.out
	r, err := diff.Schemas(args[0], args[1], o)
	failOn, gate := level.tier()
	return verdict(err, false, err == nil && gate && r.Reaches(failOn))
}
