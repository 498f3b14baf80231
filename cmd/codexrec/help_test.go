package main_test

import (
	"strings"
	"testing"
)

// TestHelpAndBadFlags: help goes to stdout with exit 0; a bad flag or argument is
// one line on stderr that points to the command's help, with exit 2.
func TestHelpAndBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		stdout   string // contained in stdout
		stderr   string // all of stderr, when code is 2
		noStdout bool
	}{
		{args: []string{"help"}, code: 0, stdout: "commands:"},
		{args: []string{"help", "record"}, code: 0, stdout: "usage: codexrec record"},
		{args: []string{"record", "--help"}, code: 0, stdout: "-no-sanitize"},
		{args: []string{"help", "schema", "diff"}, code: 0, stdout: "-experimental"},
		{args: []string{"schema", "diff", "-h"}, code: 0, stdout: "-experimental"},
		{args: []string{"help", "scenario", "from-recording"}, code: 0, stdout: "usage: codexrec scenario from-recording"},
		{args: []string{"record", "--bogus"}, code: 2, noStdout: true,
			stderr: "codexrec record: flag provided but not defined: -bogus (see codexrec help record)\n"},
		{args: []string{"schema", "diff", "--bogus", "0.163.0", "0.171.0"}, code: 2, noStdout: true,
			stderr: "codexrec schema diff: flag provided but not defined: -bogus (see codexrec help schema diff)\n"},
		{args: []string{"validate", "--fail-on", "sometimes", "x.jsonl"}, code: 2, noStdout: true,
			stderr: "codexrec validate: --fail-on \"sometimes\": want info, warning, error or never (see codexrec help validate)\n"},
		{args: []string{"help", "nosuch"}, code: 2, noStdout: true, stderr: "codexrec: no command \"nosuch\" (see codexrec help)\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runCodexrec(t, "", nil, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			if !strings.Contains(string(r.stdout), tc.stdout) || (tc.noStdout && len(r.stdout) > 0) {
				t.Errorf("stdout %q, want it to contain %q", r.stdout, tc.stdout)
			}
			if tc.code == 2 && string(r.stderr) != tc.stderr {
				t.Errorf("stderr %q, want exactly %q", r.stderr, tc.stderr)
			}
			if tc.code == 0 && len(r.stderr) > 0 {
				t.Errorf("help wrote to stderr: %q", r.stderr)
			}
		})
	}
}

// TestErrorsPrintMasked: an error line quotes what it was given (here a file name
// holding a secret and a terminal escape); it reaches the terminal masked.
func TestErrorsPrintMasked(t *testing.T) {
	const secret = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"
	name := "missing-" + secret + "\x1b]0;x\x07.jsonl"
	for _, cmd := range []string{"validate", "check", "diff", "summary", "sanitize"} {
		args := []string{cmd, name}
		switch cmd {
		case "diff":
			args = append(args, name)
		case "sanitize":
			args = append(args, "-o", "out.jsonl")
		}
		r := runCodexrec(t, t.TempDir(), nil, args...)
		if r.code != 2 || strings.Contains(string(r.stderr), secret) || strings.ContainsAny(string(r.stderr), "\x1b\x07") {
			t.Errorf("%s: exit %d, stderr %q: want exit 2, the secret masked, the escape shown", cmd, r.code, r.stderr)
		}
		if !strings.Contains(string(r.stderr), "<redacted:") {
			t.Errorf("%s: stderr %q does not say where it masked", cmd, r.stderr)
		}
	}
}
