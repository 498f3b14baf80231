package main

import (
	"flag"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/cli"
)

func init() {
	register(&cli.Command{Name: "schema", Subcommands: schemaCommands, Args: "SUBCOMMAND [flags] [args] (subcommands: diff)",
		Summary: "work with the protocol's JSON Schemas: schema diff OLD NEW compares two versions"})
}

// schemaCommands are the subcommands of `codexrec schema`.
var schemaCommands = map[string]*cli.Command{
	"diff": {Name: "schema diff", Args: "[--json] [--fail-on LEVEL] [--experimental] OLD NEW", Flags: schemaDiffFlags, Run: runSchemaDiff, Interspersed: true,
		Summary: "compare two protocol versions (embedded versions such as 0.163.0, or folders from `codex app-server generate-json-schema`), classifying each change as breaking, warning or info for a client"},
}

type schemaDiffConfig struct {
	opts      diff.SchemaOptions
	listRules bool
	failOn    *failLevel
	colour    cli.Colour
}

func schemaDiffFlags(fs *flag.FlagSet) any {
	c := &schemaDiffConfig{}
	fs.BoolVar(&c.opts.JSON, "json", false, "write the report as JSON")
	fs.BoolVar(&c.opts.Experimental, "experimental", false, "compare the experimental sets (methods behind experimentalApi) instead of the stable ones")
	c.failOn = failOnFlag(fs, cli.Info, "exit 1 when a change of this `level` or worse is found: "+failOnHelp+" (info: any change; error: breaking)")
	c.colour.Flag(fs, "colour the text report: auto, always, never")
	fs.BoolVar(&c.listRules, "list-rules", false, "list the rule ids and their tiers, then exit")
	return c
}

func runSchemaDiff(cfg any, args []string, std cli.IO) error {
	c := cfg.(*schemaDiffConfig)
	if c.listRules {
		return diff.WriteSchemaRules(std.Out)
	}
	if len(args) != 2 {
		return cli.Usagef("want two schema versions or folders, OLD and NEW")
	}
	o := c.opts
	var err error
	if o.Colour, err = c.colour.On(std.Out); err != nil {
		return err
	}
	o.Out = std.Out
	r, err := diff.Schemas(args[0], args[1], o)
	failOn, gate := c.failOn.tier()
	return verdict(err, false, err == nil && gate && r.Reaches(failOn))
}
