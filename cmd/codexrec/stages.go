package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/sanitize"
)

// stageFlags are the flags of the record pipeline's stages (validation,
// sanitizing, leak guard), shared by record and capture: record.Defaults, the
// pipeline they describe (its Sanitize.Cwd "" maps the working directory), and
// --fail-on.
type stageFlags struct {
	record.Defaults
	failOn *failLevel
}

func (s *stageFlags) register(fs *flag.FlagSet, versionFlag bool) {
	version := &s.Version
	if !versionFlag {
		version = nil
	}
	schemaFlags(fs, version, &s.SchemaDir)
	s.failOn = failOnFlag(fs, cli.Never, "exit 1 after the session when schema findings of this `level` occurred: "+failOnHelp)
	fs.BoolVar(&s.NoValidate, "no-validate", false, "do not validate frames against the protocol schema")
	fs.BoolVar(&s.NoSanitize, "no-sanitize", false, "record frames as they are (the leak guard still runs)")
	fs.BoolVar(&s.NoGuard, "no-leak-guard", false, "publish the recording even if it holds secret-shaped values (dangerous)")
	sanitizeFlags(fs, &s.Sanitize, true)
}

// report prints what the session found on stderr and returns the exit status the
// findings call for under --fail-on (nil when none).
func (s *stageFlags) report(stderr io.Writer, cmd string, r record.Report) error {
	if more := r.WriteText(stderr, record.TextOptions{Prefix: "codexrec " + cmd + ": ", Validated: !s.NoValidate}); more > 0 {
		fmt.Fprintf(stderr, "  ... and %d more (codexrec validate FILE lists them all)\n", more)
	}
	for _, f := range r.Findings {
		if !s.NoValidate && s.failOn.fails(f.Rule) {
			return cli.ExitWith(exitFindings, fmt.Errorf("schema findings at or above --fail-on %s", s.failOn))
		}
	}
	return nil
}

// schemaFlags are shared by validate, record and capture (version nil: no
// --codex-version).
func schemaFlags(fs *flag.FlagSet, version, dir *string) {
	if version != nil {
		fs.StringVar(version, "codex-version", "", "validate against this Codex `VERSION` (default: from the initialize response's userAgent; the nearest older embedded version when it is not embedded)")
	}
	fs.StringVar(dir, "schema-dir", "", "use the schemas in `DIR` (from codex app-server generate-json-schema --out DIR) instead of the embedded ones")
}

// sanitizeFlags registers the flags record, sanitize and scan share: c's
// secrets and allowances, and with rewrite its maps and salt.
func sanitizeFlags(fs *flag.FlagSet, c *sanitize.Config, rewrite bool) {
	fs.Var((*cli.Strings)(&c.SecretEnvs), "secret-env", "also treat environment variable `NAME`'s value as a secret (repeatable; "+strings.Join(sanitize.DefaultSecretEnvs(), ", ")+" always are)")
	fs.Var((*cli.Strings)(&c.SecretFiles), "secret-file", "treat each line of `PATH` as a secret value (repeatable)")
	fs.Var((*cli.Strings)(&c.Allow), "allow", "a value matching `REGEX` is a known false positive of the shape rules (repeatable)")
	fs.Var((*cli.Strings)(&c.AllowFiles), "allow-file", "read --allow regular expressions from `PATH`, one per line (# comments)")
	if rewrite {
		fs.Var((*cli.Strings)(&c.Maps), "map", "map a path to a placeholder, given as `FROM=TO`: FROM is replaced by TO in every string (repeatable; cwd, home, temp dir and CODEX_HOME are mapped by default)")
		fs.StringVar(&c.Salt, "salt", "", "key placeholders with `SALT`, so the same secret gets the same placeholder in every recording made with it")
	}
}

// sanitizer is the sanitizer c (the flags) and the environment describe, with
// the names of the secret variables that were set; a bad flag is a usage error.
func sanitizer(c sanitize.Config, cwd string) (*sanitize.Sanitizer, []string, error) {
	c.Cwd = cwd
	z, names, err := c.New()
	if err != nil {
		return nil, nil, settingUsage(err, nil)
	}
	return z, names, nil
}
