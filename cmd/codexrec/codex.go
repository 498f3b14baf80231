package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/internal/codexbin"
)

func init() {
	register(&command{name: "codex", args: "SUBCOMMAND [flags] [args] (subcommands: install, list, path)",
		summary: "install real codex binaries from the npm registry into codexrec's cache, list them, print their paths"})
}

// codexCommands are the subcommands of `codexrec codex`.
var codexCommands = map[string]*command{
	"install": {name: "codex install", args: "[--registry URL] [--platform OS-ARCH] [-q] VERSION...", flags: codexInstallFlags, run: runCodexInstall, interspersed: true,
		summary: "download the native codex binary of each VERSION (the @openai/codex platform package, its sha512 checked against the registry's integrity) into the cache unless it is there, and print its path"},
	"list": {name: "codex list", args: "[--json]", run: runCodexList, interspersed: true,
		flags: func(fs *flag.FlagSet) any {
			return fs.Bool("json", false, "print a JSON array of {version, path, installed} (pinned versions not installed too)")
		},
		summary: "list the codex versions installed in the cache (and a clone's .cache/codex), with their paths"},
	"path": {name: "codex path", args: "VERSION", run: runCodexPath,
		summary: "print the path of an installed codex binary (exit 2, saying how to install it, when it is missing)"},
}

type codexInstallConfig struct {
	codexbin.Options
	platform string
	quiet    bool
}

func codexInstallFlags(fs *flag.FlagSet) any {
	c := &codexInstallConfig{}
	fs.StringVar(&c.Registry, "registry", codexbin.Registry(), "the npm registry `URL` (default from $"+codexbin.RegistryEnv+")")
	fs.StringVar(&c.platform, "platform", "", "install the binary of another platform `OS-ARCH` (linux-x64, linux-arm64, darwin-x64, darwin-arm64) into VERSION-OS-ARCH")
	fs.BoolVar(&c.quiet, "q", false, "no progress line on stderr")
	return c
}

func runCodexInstall(cfg any, args []string, std stdio) (err error) {
	c := cfg.(*codexInstallConfig)
	if len(args) == 0 {
		return usagef("want one or more codex versions (pinned: %s)", strings.Join(codexbin.Versions, ", "))
	}
	if c.platform != "" {
		if c.Platform, err = codexbin.PlatformNamed(c.platform); err != nil {
			return usagef("--platform %v", err)
		}
	}
	if !c.quiet {
		c.Progress = own(std.err) // its carriage returns rewrite the line: the tool's own text
	}
	ctx, stop := interruptible()
	defer stop()
	for _, v := range args {
		inst, err := codexbin.Install(ctx, v, c.Options)
		if err != nil {
			return err
		}
		if inst.Downloaded && !c.quiet {
			fmt.Fprintf(std.err, "codexrec codex: installed codex %s (%.1f MB, %s)\n", v, float64(inst.Bytes)/1e6, inst.Integrity)
		}
		fmt.Fprintln(std.out, inst.Path)
	}
	return nil
}

func runCodexList(asJSON any, args []string, std stdio) error {
	if len(args) > 0 {
		return usagef("unexpected arguments %q", args)
	}
	found, missing, err := codexbin.List()
	if *asJSON.(*bool) {
		type entry struct {
			Version   string `json:"version"`
			Path      string `json:"path,omitempty"`
			Installed bool   `json:"installed"`
		}
		all := []entry{}
		for _, b := range found {
			all = append(all, entry{b.Version, b.Path, true})
		}
		for _, v := range missing {
			all = append(all, entry{Version: v})
		}
		if err != nil {
			return err
		}
		return json.NewEncoder(std.out).Encode(all)
	}
	for _, b := range found {
		fmt.Fprintf(std.out, "%-10s %s\n", b.Version, b.Path)
	}
	if len(missing) > 0 {
		fmt.Fprintf(std.err, "pinned but not installed: %s (codexrec codex install %s)\n", strings.Join(missing, ", "), strings.Join(missing, " "))
	}
	return err
}

func runCodexPath(_ any, args []string, std stdio) error {
	if len(args) != 1 {
		return usagef("want one codex version")
	}
	p, err := findCodex(args[0], false, false, std)
	if err == nil {
		fmt.Fprintln(std.out, p)
	}
	return err
}

// findCodex returns the binary of version, installing it first when install is
// set; a missing one says how to install it (and that --install would, when orFlag).
func findCodex(version string, install, orFlag bool, std stdio) (string, error) {
	ctx, stop := interruptible()
	defer stop()
	p, err := codexbin.FindOrInstall(ctx, version, install, codexbin.Options{Registry: codexbin.Registry(), Progress: own(std.err)})
	if !errors.Is(err, codexbin.ErrNotInstalled) {
		return p, err
	}
	also := map[bool]string{true: ", or pass --install"}[orFlag]
	return "", fmt.Errorf("codex %s is not installed: codexrec codex install %s installs it%s (%w; looked in %s)",
		version, version, also, codexbin.ErrNotInstalled, strings.Join(codexbin.Caches(), ", "))
}
