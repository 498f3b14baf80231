package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/wire"
)

func init() {
	registerRecordExtension(20, func(fs *flag.FlagSet) recordExtension {
		e := &sanitizeExtension{flags: &sanitizeFlags{}}
		fs.BoolVar(&e.off, "no-sanitize", false, "record frames as they are (the leak guard still runs)")
		fs.BoolVar(&e.noGuard, "no-leak-guard", false, "publish the recording even if it holds secret-shaped values (dangerous)")
		e.flags.register(fs, true)
		return e
	})
}

// sanitizeFlags are the flags record, sanitize and scan share.
type sanitizeFlags struct {
	secretEnvs, secretFiles, maps, allow, allowFiles multiFlag
	salt                                             string
}

func (s *sanitizeFlags) register(fs *flag.FlagSet, rewrite bool) {
	fs.Var(&s.secretEnvs, "secret-env", "also treat environment variable `NAME`'s value as a secret (repeatable; "+strings.Join(sanitize.DefaultSecretEnvs, ", ")+" always are)")
	fs.Var(&s.secretFiles, "secret-file", "treat each line of `PATH` as a secret value (repeatable)")
	fs.Var(&s.allow, "allow", "a value matching `REGEX` is a known false positive of the shape rules (repeatable)")
	fs.Var(&s.allowFiles, "allow-file", "read --allow regular expressions from `PATH`, one per line (# comments)")
	if rewrite {
		fs.Var(&s.maps, "map", "map a path to a placeholder, given as `FROM=TO`: FROM is replaced by TO in every string (repeatable; cwd, home, temp dir and CODEX_HOME are mapped by default)")
		fs.StringVar(&s.salt, "salt", "", "key placeholders with `SALT`, so the same secret gets the same placeholder in every recording made with it")
	}
}

// options builds the sanitizer options from the flags and the environment, and the
// names of the secret variables that were set (for the header; never the values).
func (s *sanitizeFlags) options(cwd string) (sanitize.Options, []string, error) {
	opts := sanitize.Options{Salt: s.salt}
	var names []string
	for _, n := range append(append([]string(nil), sanitize.DefaultSecretEnvs...), s.secretEnvs...) {
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

// sanitizeExtension is record's sanitizing stage: it rewrites each frame before it is
// written, annotates each secret it replaced, and runs the leak guard on the finished
// file before it is published.
type sanitizeExtension struct {
	flags        *sanitizeFlags
	off, noGuard bool
	z            *sanitize.Sanitizer
	info         recorder.SanitizeInfo
	counts       map[string]int
}

// newSanitizeExtension is the sanitizing stage built from options rather than flags
// (capture passes its own maps, such as its temporary workspace and CODEX_HOME, in
// front of sanitize.DefaultMaps). secretEnvs name the variables behind opts.Secrets.
func newSanitizeExtension(opts sanitize.Options, secretEnvs []string) (*sanitizeExtension, error) {
	z, err := sanitize.New(opts)
	if err != nil {
		return nil, err
	}
	return &sanitizeExtension{z: z, info: sanitizeInfo(z, secretEnvs)}, nil
}

func sanitizeInfo(z *sanitize.Sanitizer, secretEnvs []string) recorder.SanitizeInfo {
	return recorder.SanitizeInfo{Rules: sanitize.RuleNames(), Maps: z.MapNames(), SecretEnvs: secretEnvs, Salted: z.Salted()}
}

// Sanitizer is the configured sanitizer once Setup has run (capture uses it for
// segment commands).
func (e *sanitizeExtension) Sanitizer() *sanitize.Sanitizer { return e.z }

func (e *sanitizeExtension) Setup(h *recorder.Header) error {
	if e.z == nil {
		cwd, err := os.Getwd()
		if err != nil {
			return err
		}
		if e.off {
			cwd = "" // no maps: the guard needs only the secrets
		}
		opts, names, err := e.flags.options(cwd)
		if err != nil {
			return err
		}
		if e.z, err = sanitize.New(opts); err != nil {
			return err
		}
		e.info = sanitizeInfo(e.z, names)
	}
	if e.off {
		return nil
	}
	sanitizeHeader(e.z, h)
	info := e.info
	h.Sanitize = &info
	return nil
}

// sanitizeHeader rewrites the free text a header holds: the command and the notes.
func sanitizeHeader(z *sanitize.Sanitizer, h *recorder.Header) {
	h.Command, h.Notes = z.Strings(h.Command), z.Strings(h.Notes)
}

func (e *sanitizeExtension) Attach(w *recorder.Writer) {
	if e.noGuard {
		return
	}
	w.BeforePublish = func(tmp string) error { return guardFile(e.z, tmp, w.Path()) }
}

// guardFile runs the leak guard on tmp, reporting leaks under the name published.
func guardFile(z *sanitize.Sanitizer, tmp, published string) error {
	err := z.Guard(tmp)
	var le *sanitize.LeakError
	if errors.As(err, &le) {
		le.File = published
		return &exitError{exitLeak, le}
	}
	return err
}

func (e *sanitizeExtension) Frame(f *wire.Frame, _ *recorder.Writer) ([]recorder.Entry, error) {
	if e.off {
		return nil, nil
	}
	// The proxy classified the line already: JSON validity need not be checked again.
	out, reds := e.z.FrameClassified(f.Line, f.Dir != wire.Stderr && f.Msg.Kind.IsJSON())
	f.Line = out
	return e.entries(f, reds), nil
}

// RewriteEntry sanitizes the free text of entries other stages wrote about a frame
// (a validation finding may quote a value).
func (e *sanitizeExtension) RewriteEntry(en *recorder.Entry) {
	if e.off || en.Type == recorder.TypeRedaction {
		return
	}
	en.Reason, en.Detail = e.z.Text(en.Reason), e.z.Text(en.Detail)
}

func (e *sanitizeExtension) entries(f *wire.Frame, reds []sanitize.Redaction) []recorder.Entry {
	if len(reds) == 0 {
		return nil
	}
	if e.counts == nil {
		e.counts = map[string]int{}
	}
	entries := make([]recorder.Entry, len(reds))
	for i, r := range reds {
		e.counts[r.Rule]++
		entries[i] = recorder.Entry{Type: recorder.TypeRedaction, Seq: f.Seq, Time: f.Time, Dir: f.Dir,
			Msg: wire.Message{Method: f.Msg.Method}, Rule: r.Rule, Pointer: r.Pointer, Detail: r.Placeholder}
	}
	return entries
}

func (e *sanitizeExtension) Finish(_ *recorder.Writer, stderr io.Writer) error {
	if len(e.counts) > 0 {
		fmt.Fprintf(stderr, "codexrec: sanitize: %s\n", countSummary(e.counts))
	}
	return nil
}

// countSummary is "3 secrets redacted (openai-key 2, known-secret 1)".
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
