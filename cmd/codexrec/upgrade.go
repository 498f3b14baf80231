package main

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/codexrec/codexrec/sanitize"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/upgrade"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{
		name:         "upgrade",
		args:         "--from A --to B [--codex-from PATH] [--codex-to PATH] [--install] [--scenarios] [--rerun-both] [--json] [-o report.html] [--keep DIR] [RECORDING...]",
		summary:      "rerun recordings (or the shipped scenarios) on codex A and B, diff each pair, add the schema diff, and say what changes for the client (exit 1 when anything is breaking)",
		flags:        upgradeFlags,
		run:          runUpgrade,
		interspersed: true,
	})
}

type upgradeConfig struct {
	from, to, out, keep   string
	codexFrom, codexTo    string
	install               bool
	json, scenarios, both bool
	force, experimental   bool
}

func upgradeFlags(fs *flag.FlagSet) any {
	c := &upgradeConfig{}
	fs.StringVar(&c.from, "from", "", "the codex `VERSION` the recordings were made with (installed by `codexrec codex install`; default with --codex-from: that binary's version)")
	fs.StringVar(&c.to, "to", "", "the codex `VERSION` to upgrade to (default with --codex-to: that binary's version)")
	fs.StringVar(&c.codexFrom, "codex-from", "", "run this codex binary `PATH` for --from instead of the installed one")
	fs.StringVar(&c.codexTo, "codex-to", "", "run this codex binary `PATH` for --to instead of the installed one")
	fs.BoolVar(&c.install, "install", false, "install a missing --from or --to binary from the npm registry first")
	fs.BoolVar(&c.scenarios, "scenarios", false, "capture the shipped scenarios on both versions instead of rerunning recordings")
	fs.BoolVar(&c.both, "rerun-both", false, "rerun each recording on --from too, even when it was made with that version")
	fs.BoolVar(&c.json, "json", false, "write the report as JSON to stdout")
	fs.StringVar(&c.out, "o", "", "also write the report as a self-contained HTML page to `FILE` (each pair's diff page beside it, in FILE's name + .diffs/)")
	fs.BoolVar(&c.force, "force", false, "overwrite -o FILE if it exists")
	fs.StringVar(&c.keep, "keep", "", "keep the rerun recordings in `DIR` (default: removed)")
	fs.BoolVar(&c.experimental, "experimental", false, "compare the experimental schema sets")
	return c
}

func runUpgrade(cfg any, args []string, std stdio) error {
	c := cfg.(*upgradeConfig)
	for _, s := range []struct{ v, bin *string }{{&c.from, &c.codexFrom}, {&c.to, &c.codexTo}} {
		if *s.v == "" && *s.bin != "" {
			v, err := binaryVersion(*s.bin)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			*s.v = v
		}
	}
	if c.from == "" || c.to == "" {
		return usagef("--from and --to are required (or --codex-from and --codex-to)")
	}
	if c.scenarios == (len(args) > 0) {
		return usagef("want recordings, or --scenarios (not both)")
	}
	if c.out != "" && !c.force {
		if _, err := os.Lstat(c.out); err == nil {
			return usagef("%s exists (--force overwrites it)", c.out)
		}
	}
	work := c.keep
	if work == "" {
		tmp, err := os.MkdirTemp("", "codexrec-upgrade-")
		if err != nil {
			return usageOrIO(err)
		}
		defer os.RemoveAll(tmp)
		work = tmp
	} else if err := os.MkdirAll(work, 0o700); err != nil {
		return usageOrIO(err)
	}
	rep := &upgrade.Report{From: c.from, To: c.to}
	sr, err := schemaDiff(c.from, c.to, c.experimental)
	if err != nil {
		fmt.Fprintf(std.err, "codexrec upgrade: no schema diff: %s\n", sanitize.MaskText(err.Error()))
	}
	rep.Schema = sr

	inputs := args
	if c.scenarios {
		inputs = fixtures.Names()
	}
	pages := map[int]func(w io.Writer) error{}
	for i, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".jsonl")
		base := filepath.Join(work, fmt.Sprintf("%02d-%s", i+1, name))
		var notes []string
		old, err := c.side(in, c.from, true, base+"-"+c.from+".jsonl", &notes, std)
		var nw string
		if err == nil {
			nw, err = c.side(in, c.to, false, base+"-"+c.to+".jsonl", &notes, std)
		}
		if err != nil {
			r := upgrade.Failed(name, err)
			r.Notes = notes
			rep.Recordings = append(rep.Recordings, r)
			continue
		}
		oldRec, err1 := recorder.ReadFile(old)
		newRec, err2 := recorder.ReadFile(nw)
		oldS, newS, err3 := diff.LoadFiles(old, nw, diff.Options{})
		if err := firstErr(err1, err2, err3); err != nil {
			rep.Recordings = append(rep.Recordings, upgrade.Failed(name, err))
			continue
		}
		d := diff.Compare(oldS, newS)
		r := upgrade.Judge(name, oldRec, newRec, d, sr)
		r.Notes = notes
		if c.out != "" {
			r.DiffPage = filepath.Base(c.out) + ".diffs/" + fmt.Sprintf("%02d-%s.html", i+1, name)
			pages[len(rep.Recordings)] = func(w io.Writer) error { return view.WriteDiffHTML(w, oldRec, newRec, oldS, newS, d) }
		}
		rep.Recordings = append(rep.Recordings, r)
	}

	if c.json {
		err = rep.WriteJSON(std.out)
	} else {
		// The report quotes recordings (methods, a server's error messages): masked.
		var b strings.Builder
		if err = rep.WriteText(&b); err == nil {
			_, err = io.WriteString(std.out, sanitize.MaskText(b.String()))
		}
	}
	if err != nil {
		return err
	}
	if c.out != "" {
		if err := writeUpgradeHTML(c.out, rep, pages); err != nil {
			return usageOrIO(err)
		}
	}
	if rep.Breaking() {
		return &exitError{code: exitFindings}
	}
	return nil
}

// side returns the session of input on version v: on the from side the recording
// itself when it was made with v (unless --rerun-both), else its rerun (or, with
// --scenarios, a capture).
func (c *upgradeConfig) side(input, v string, from bool, out string, notes *[]string, std stdio) (string, error) {
	codex := []string{"--codex-version", v}
	if bin := map[bool]string{true: c.codexFrom, false: c.codexTo}[from]; bin != "" {
		codex = []string{"--codex", bin}
	} else if c.install {
		codex = append(codex, "--install")
	}
	var args []string
	if c.scenarios {
		args = append([]string{"capture", "--scenario", input, "-o", out, "--force"}, codex...)
	} else {
		rec, err := recorder.ReadFile(input)
		if err != nil {
			return "", err
		}
		if from && !c.both && rec.Header.CodexVersion == v {
			return input, nil
		}
		args = append(append([]string{"rerun", "-o", out, "--force"}, codex...), input)
	}
	var errBuf bytes.Buffer
	err := runCommand(commands[args[0]], args[1:], stdio{in: std.in, out: io.Discard, err: &errBuf})
	for _, l := range strings.Split(errBuf.String(), "\n") {
		if rest, ok := strings.CutPrefix(l, "codexrec rerun: "); ok {
			*notes = append(*notes, "on "+v+": "+rest)
		}
	}
	if err != nil {
		return "", fmt.Errorf("%s on codex %s: %v: %s", args[0], v, err, strings.TrimSpace(errBuf.String()))
	}
	return out, nil
}

func schemaDiff(from, to string, experimental bool) (*diff.SchemaReport, error) {
	var sets [2]*diff.SchemaSet
	for i, v := range []string{from, to} {
		nv, _, err := schema.Nearest(v)
		if err != nil {
			return nil, err
		}
		set, err := schema.Load(nv)
		if err != nil {
			return nil, err
		}
		if sets[i], err = diff.LoadSchemaSet(set, experimental, v); err != nil {
			return nil, err
		}
	}
	return diff.CompareSchemas(sets[0], sets[1]), nil
}

// writeUpgradeHTML writes the report page and each pair's diff page beside it.
func writeUpgradeHTML(path string, rep *upgrade.Report, pages map[int]func(io.Writer) error) error {
	dir := path + ".diffs"
	if len(pages) > 0 {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	for i, write := range pages {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		if err := recorder.WriteFile(filepath.Join(filepath.Dir(path), rep.Recordings[i].DiffPage), true, 0o600, bytesTo(b.Bytes())); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	if err := view.WriteUpgradeHTML(&b, rep); err != nil {
		return err
	}
	return recorder.WriteFile(path, true, 0o600, bytesTo(b.Bytes()))
}

// bytesTo is a recorder.WriteFile write function writing b.
func bytesTo(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
