package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/validate"
)

// stageFlags are the flags of the record pipeline's stages (validation,
// sanitizing, leak guard), shared by record and capture: they map to a
// record.Session.
type stageFlags struct {
	version, schemaDir string
	failOn             string
	noValidate         bool
	noSanitize         bool
	noGuard            bool
	san                sanitizeFlags
}

func (s *stageFlags) register(fs *flag.FlagSet, versionFlag bool) {
	if versionFlag {
		schemaFlags(fs, &s.version, &s.schemaDir)
	} else {
		fs.StringVar(&s.schemaDir, "schema-dir", "", "use the schemas in `DIR` (from codex app-server generate-json-schema --out DIR) instead of the embedded ones")
	}
	fs.StringVar(&s.failOn, "fail-on", "never", "exit 1 after the session when schema findings of this `level` occurred: "+failOnHelp)
	fs.BoolVar(&s.noValidate, "no-validate", false, "do not validate frames against the protocol schema")
	fs.BoolVar(&s.noSanitize, "no-sanitize", false, "record frames as they are (the leak guard still runs)")
	fs.BoolVar(&s.noGuard, "no-leak-guard", false, "publish the recording even if it holds secret-shaped values (dangerous)")
	s.san.register(fs, true)
}

// session builds the pipeline from the flags. cwd, when set, is mapped to a
// placeholder with home, temp dir and CODEX_HOME; custom, when set, amends the
// sanitizer's options last (capture maps its temporary workspace and salts).
func (s *stageFlags) session(cwd string, custom func(*sanitize.Options)) (*record.Session, error) {
	if _, err := parseFailOn(s.failOn); err != nil {
		return nil, usagef("%v", err)
	}
	sess := &record.Session{}
	if !s.noValidate {
		sess.Validator = &schema.SessionValidator{Version: s.version, Dir: s.schemaDir, Classified: true}
	}
	if s.noSanitize {
		cwd = "" // no maps: the guard needs only the secrets
	}
	opts, names, err := s.san.options(cwd)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if custom != nil && !s.noSanitize {
		custom(&opts)
	}
	z, err := sanitize.New(opts)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if !s.noSanitize {
		sess.Sanitizer, sess.SecretNames = z, names
	}
	if !s.noGuard {
		sess.Guard = z
	}
	return sess, nil
}

// report prints what the session found on stderr and returns the exit status the
// findings call for under --fail-on (nil when none).
func (s *stageFlags) report(stderr io.Writer, cmd string, r record.Report) error {
	level, _ := parseFailOn(s.failOn)
	if len(r.Redactions) > 0 {
		fmt.Fprintf(stderr, "codexrec %s: sanitize: %s\n", cmd, countSummary(r.Redactions))
	}
	if s.noValidate {
		return nil
	}
	for _, n := range r.Notes {
		fmt.Fprintf(stderr, "codexrec %s: %s\n", cmd, sanitize.MaskText(n))
	}
	if len(r.Findings) == 0 {
		if r.Schema.Schema != "" {
			fmt.Fprintf(stderr, "codexrec %s: schema %s: no findings\n", cmd, sanitize.MaskText(r.Schema.Schema))
		}
		return nil
	}
	fmt.Fprintf(stderr, "codexrec %s: schema %s: %s\n", cmd, sanitize.MaskText(r.Schema.Schema), validate.CountFindings(r.Findings))
	const show = 10
	failed := false
	for i, f := range r.Findings {
		if level.fails(f.Rule) {
			failed = true
		}
		if i < show {
			f := validate.Printable(f)
			fmt.Fprintf(stderr, "  %d %s %s %s %s: %s\n", f.Seq, f.Dir, orDash(f.Method), f.Rule, validate.PointerText(f.Pointer), f.Reason)
		}
	}
	if len(r.Findings) > show {
		fmt.Fprintf(stderr, "  ... and %d more (codexrec validate FILE lists them all)\n", len(r.Findings)-show)
	}
	if failed {
		return &exitError{code: exitFindings, err: fmt.Errorf("schema findings at or above --fail-on %s", s.failOn)}
	}
	return nil
}

// countSummary is "3 secret(s) redacted (openai-key 2, known-secret 1)".
func countSummary(counts map[string]int) string {
	rules := make([]string, 0, len(counts))
	total := 0
	for r, n := range counts {
		rules = append(rules, r)
		total += n
	}
	sort.Strings(rules)
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("%s %d", r, counts[r])
	}
	return fmt.Sprintf("%d secret(s) redacted (%s)", total, strings.Join(parts, ", "))
}

// sanitizeFlags are the flags record, sanitize and scan share.
type sanitizeFlags struct {
	secretEnvs, secretFiles, maps, allow, allowFiles multiFlag
	salt                                             string
}

func (s *sanitizeFlags) register(fs *flag.FlagSet, rewrite bool) {
	fs.Var(&s.secretEnvs, "secret-env", "also treat environment variable `NAME`'s value as a secret (repeatable; "+strings.Join(sanitize.DefaultSecretEnvs(), ", ")+" always are)")
	fs.Var(&s.secretFiles, "secret-file", "treat each line of `PATH` as a secret value (repeatable)")
	fs.Var(&s.allow, "allow", "a value matching `REGEX` is a known false positive of the shape rules (repeatable)")
	fs.Var(&s.allowFiles, "allow-file", "read --allow regular expressions from `PATH`, one per line (# comments)")
	if rewrite {
		fs.Var(&s.maps, "map", "map a path to a placeholder, given as `FROM=TO`: FROM is replaced by TO in every string (repeatable; cwd, home, temp dir and CODEX_HOME are mapped by default)")
		fs.StringVar(&s.salt, "salt", "", "key placeholders with `SALT`, so the same secret gets the same placeholder in every recording made with it")
	}
}

// sanitizer is the sanitizer the flags and the environment describe (see options),
// with the names of the secret variables that were set; a bad flag is a usage error.
func (s *sanitizeFlags) sanitizer(cwd string) (*sanitize.Sanitizer, []string, error) {
	opts, names, err := s.options(cwd)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	z, err := sanitize.New(opts)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	return z, names, nil
}

// options builds the sanitizer options from the flags and the environment, and the
// names of the secret variables that were set (for the header; never the values).
func (s *sanitizeFlags) options(cwd string) (sanitize.Options, []string, error) {
	opts := sanitize.Options{Salt: s.salt}
	var names []string
	for _, n := range append(append([]string(nil), sanitize.DefaultSecretEnvs()...), s.secretEnvs...) {
		v := os.Getenv(n)
		if v == "" || slices.Contains(names, n) {
			continue
		}
		if len(v) < sanitize.MinSecretLen && !slices.Contains(s.secretEnvs, n) {
			continue // a default variable holding a few characters is no credential
		}
		names = append(names, n)
		opts.Secrets = append(opts.Secrets, sanitize.Secret{Name: n, Value: v})
	}
	for _, p := range s.secretFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			return opts, nil, fmt.Errorf("--secret-file: %w", err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				opts.Secrets = append(opts.Secrets, sanitize.Secret{Name: fmt.Sprintf("--secret-file line %d", i+1), Value: line})
			}
		}
	}
	var maps []sanitize.Map
	for _, m := range s.maps {
		from, to, ok := strings.Cut(m, "=")
		if !ok {
			return opts, nil, fmt.Errorf("--map %q: want FROM=TO", m)
		}
		maps = append(maps, sanitize.Map{From: from, To: to})
	}
	opts.Maps = maps
	if cwd != "" {
		opts.Maps = append(opts.Maps, sanitize.DefaultMaps(cwd, os.Getenv)...)
	}
	opts.Allow = append(opts.Allow, s.allow...)
	for _, p := range s.allowFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			return opts, nil, fmt.Errorf("--allow-file: %w", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				opts.Allow = append(opts.Allow, line)
			}
		}
	}
	return opts, names, nil
}
