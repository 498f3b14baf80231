package main

import (
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/codexrec/codexrec/diff"
)

// schemaCommands are the subcommands of `codexrec schema`.
var schemaCommands = map[string]*command{}

func init() {
	register(&command{
		name:    "schema",
		args:    "SUBCOMMAND [flags] [args] (subcommands: diff)",
		summary: "work with the protocol's JSON Schemas: schema diff OLD NEW compares two versions",
		run:     runSchema,
	})
	schemaCommands["diff"] = &command{
		name:         "schema diff",
		args:         "[--json] [--fail-on LEVEL] [--experimental] OLD NEW",
		summary:      "compare two protocol versions (embedded versions such as 0.163.0, or folders from `codex app-server generate-json-schema`), classifying each change as breaking, warning or info for a client",
		flags:        schemaDiffFlags,
		run:          runSchemaDiff,
		interspersed: true,
	}
}

func runSchema(_ any, args []string, std stdio) error {
	if len(args) == 0 {
		return usagef("want a subcommand: %s", strings.Join(schemaCommandNames(), ", "))
	}
	c, ok := schemaCommands[args[0]]
	if !ok {
		return usagef("unknown subcommand %q (want %s)", args[0], strings.Join(schemaCommandNames(), ", "))
	}
	return runCommand(c, args[1:], std)
}

func schemaCommandNames() []string {
	var out []string
	for n := range schemaCommands {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

type schemaDiffConfig struct {
	json, experimental, listRules bool
	failOn, color                 string
}

func schemaDiffFlags(fs *flag.FlagSet) any {
	c := &schemaDiffConfig{}
	fs.BoolVar(&c.json, "json", false, "write the report as JSON")
	fs.BoolVar(&c.experimental, "experimental", false, "compare the experimental sets (methods behind experimentalApi) instead of the stable ones")
	fs.StringVar(&c.failOn, "fail-on", "info", "exit 1 when a change of this `level` or worse is found: "+failOnHelp+" (info: any change; error: breaking)")
	fs.StringVar(&c.color, "color", "auto", "colour the text report: auto, always, never")
	fs.BoolVar(&c.listRules, "list-rules", false, "list the rule ids and their tiers, then exit")
	return c
}

func runSchemaDiff(cfg any, args []string, std stdio) error {
	c := cfg.(*schemaDiffConfig)
	if c.listRules {
		for _, r := range diff.Rules() {
			fmt.Fprintf(std.out, "%-8s %s\n", r.Tier, r.Rule)
		}
		return nil
	}
	if len(args) != 2 {
		return usagef("want two schema versions or folders, OLD and NEW")
	}
	level, err := parseFailOn(c.failOn)
	if err != nil {
		return usagef("%v", err)
	}
	failOn, gate := level.tier()
	colour, err := wantColour(c.color, std)
	if err != nil {
		return err
	}
	sets := make([]*diff.SchemaSet, 2)
	for i, a := range args {
		if sets[i], err = diff.LoadSchemaArg(a, c.experimental); err != nil {
			return usageOrIO(err)
		}
	}
	r := diff.CompareSchemas(sets[0], sets[1])
	if err := writeReport(std.out, r, c.json, colour); err != nil {
		return err
	}
	if worst, any := r.Worst(); any && gate && worst >= failOn {
		return &exitError{code: exitFindings}
	}
	return nil
}
