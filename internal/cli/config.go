package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/codexrec/codexrec/config"
)

// Config binds the config file's settings (package config) onto the flags of the
// commands that take them (Command.Config): read once per process, set before the
// command line is parsed so that a flag given there overrides a scalar and adds to
// a list. Bindings, the caller's table, names the flags.
type Config struct {
	Flag, Usage string // the flag naming the file, on every command taking settings
	Bindings    config.Bindings

	once     sync.Once
	path     string
	settings []config.Setting
	err      error
	off      bool // flags alone: Print parsing the command line by itself
}

// Load reads the config file (explicit, else the one config.Read finds from the
// working directory) and resolves it against the environment, once; then it sets
// the environment variables of the settings no flag takes (EnvDefaults: those the
// environment leaves unset).
func (c *Config) Load(explicit string) error {
	c.once.Do(func() {
		c.path, c.settings, c.err = config.Read(explicit, os.Getenv, ".")
		for k, v := range c.Bindings.EnvDefaults(c.settings) {
			os.Setenv(k, v)
		}
	})
	return c.applied()
}

// Apply sets the flags of command cmd in fs that the loaded settings name. A value
// a flag refuses is kept for RunCommand to report with where it came from.
func (c *Config) Apply(cmd string, fs *flag.FlagSet) {
	if c.off {
		return
	}
	if err := c.Bindings.Apply(c.settings, cmd, fs); err != nil {
		c.err = err
	}
}

// applied is the error of loading or applying the settings, if any.
func (c *Config) applied() error {
	if c == nil || c.err == nil {
		return nil
	}
	return fmt.Errorf("config: %w", c.err)
}

// load loads the file for a command taking settings, from its flag among args
// (before "--").
func (c *Config) load(cmd *Command, args []string) error {
	if c == nil || !cmd.Config {
		return nil
	}
	explicit := ""
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		for _, p := range []string{"--" + c.Flag, "-" + c.Flag} {
			if args[i] == p && i+1 < len(args) {
				explicit = args[i+1]
			} else if len(args[i]) > len(p) && args[i][:len(p)+1] == p+"=" {
				explicit = args[i][len(p)+1:]
			}
		}
	}
	return c.Load(explicit)
}

// Print writes the effective settings for command cmd given flags args (cmd nil:
// the settings alone), one "key = value  # source" line each after a line naming
// the file read, or as one JSON document {"File", "Settings": [config.Line...]}.
func (c *Config) Print(w io.Writer, cmd *Command, args []string, asJSON bool) error {
	lines, err := c.effective(cmd, args)
	switch {
	case err != nil:
		return err
	case asJSON:
		b, err := json.MarshalIndent(struct {
			File     string
			Settings []config.Line
		}{c.path, lines}, "", "  ")
		if err == nil {
			_, err = fmt.Fprintf(w, "%s\n", b)
		}
		return err
	case c.path == "":
		fmt.Fprintf(w, "# no config file (%s from the working directory upwards, --%s or %s)\n", config.FileName, c.Flag, config.EnvConfig)
	default:
		fmt.Fprintf(w, "# config file: %s\n", c.path)
	}
	for _, l := range lines {
		src := l.Source
		switch {
		case l.Option == "":
		case l.Added:
			src += " + flag --" + l.Option
		default:
			src = "flag --" + l.Option
		}
		fmt.Fprintf(w, "%s = %s  # %s\n", l.Key, l.Value(), src)
	}
	return nil
}

// effective merges the settings with the flags args of command cmd, given alone.
func (c *Config) effective(cmd *Command, args []string) ([]config.Line, error) {
	given := map[string][]string{}
	name := ""
	if cmd != nil {
		name = cmd.Name
		c.off = true // the flags given alone
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String(c.Flag, "", "")
		cmd.Flags(fs)
		c.off = false
		if err := fs.Parse(args); err != nil {
			return nil, Usagef("%s: %v", name, err)
		}
		fs.Visit(func(f *flag.Flag) {
			if m, ok := f.Value.(*Strings); ok {
				given[f.Name] = *m
			} else {
				given[f.Name] = []string{f.Value.String()}
			}
		})
	}
	return c.Bindings.Effective(c.settings, name, given), nil
}
