package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/setting"
)

// Expand replaces each directory among paths by the recordings under it, sorted
// (recorder.Files: a pipe named *.jsonl is left out), so a whole fixtures tree can
// be checked. "-" (standard input), a file, a path that cannot be read and a
// directory holding no recording stay as they are: reading them reports the
// problem.
func Expand(paths []string) []string {
	var out []string
	for _, a := range paths {
		fi, err := os.Stat(a)
		if a == "-" || err != nil || !fi.IsDir() {
			out = append(out, a)
			continue
		}
		found, _ := recorder.Files(a) // an unreadable part is left out
		if len(found) == 0 {
			out = append(out, a)
		}
		out = append(out, found...)
	}
	return out
}

// SettingError is a rule setting that could not be used: Setting is "Disable" or
// "Severity", Value the entry.
type SettingError = setting.Error

// ParseSettings reads rule settings as a user writes them: ids to disable and
// RULE=LEVEL overrides, each entry one or a comma-separated list. The maps are
// Checker's Disable and Severity.
func ParseSettings(disable, severity []string) (map[string]bool, map[string]Severity, error) {
	disabled := map[string]bool{}
	for _, v := range disable {
		for _, id := range strings.Split(v, ",") {
			id = strings.TrimSpace(id)
			if _, ok := LookupRule(id); !ok {
				return nil, nil, &SettingError{Setting: "Disable", Value: id, Err: fmt.Errorf("no rule %q", id)}
			}
			disabled[id] = true
		}
	}
	sevs := map[string]Severity{}
	for _, v := range severity {
		for _, kv := range strings.Split(v, ",") {
			id, level, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok {
				return nil, nil, &SettingError{Setting: "Severity", Value: kv, Err: fmt.Errorf("want RULE=LEVEL")}
			}
			if _, ok := LookupRule(id); !ok {
				return nil, nil, &SettingError{Setting: "Severity", Value: kv, Err: fmt.Errorf("no rule %q", id)}
			}
			sev, err := ParseSeverity(level)
			if err != nil {
				return nil, nil, &SettingError{Setting: "Severity", Value: kv, Err: err}
			}
			sevs[id] = sev
		}
	}
	return disabled, sevs, nil
}

// CheckPaths checks the recordings the arguments name (Expand: a directory's
// recordings, "-" the one read from stdin), in order. A recording that cannot be
// read is passed to skipped, when set, and joined into the error; the others are
// still checked.
func (c *Checker) CheckPaths(args []string, stdin io.Reader, skipped func(error)) ([]*Result, error) {
	results, errs, _ := c.checkPaths(context.Background(), args, stdin, skipped)
	return results, errs
}

// checkPaths is CheckPaths stopping between recordings once ctx is done (done is
// ctx's error then).
func (c *Checker) checkPaths(ctx context.Context, args []string, stdin io.Reader, skipped func(error)) (results []*Result, errs, done error) {
	for _, path := range Expand(args) {
		if err := ctx.Err(); err != nil {
			return results, errs, err
		}
		var res *Result
		var err error
		if path == "-" {
			res, err = c.Check(stdin, "-")
		} else {
			res, err = c.CheckFile(path)
		}
		if err != nil {
			if skipped != nil {
				skipped(err)
			}
			errs = errors.Join(errs, err)
			continue
		}
		results = append(results, res)
	}
	return results, errs, nil
}
