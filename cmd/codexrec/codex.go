package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/internal/codexbin"
)

func init() {
	register(&cli.Command{Name: "codex", Subcommands: codexCommands, Args: "SUBCOMMAND [flags] [args] (subcommands: install, list, path)",
		Summary: "install real codex binaries from the npm registry into codexrec's cache, list them, print their paths"})
}

// codexCommands are the subcommands of `codexrec codex`.
var codexCommands = map[string]*cli.Command{
	"install": {Name: "codex install", Args: "[--registry URL] [--platform OS-ARCH] [-q] VERSION...", Flags: codexInstallFlags, Run: runCodexInstall, Interspersed: true,
		Summary: "download the native codex binary of each VERSION (the @openai/codex platform package, its sha512 checked against the registry's integrity) into the cache unless it is there, and print its path"},
	"list": {Name: "codex list", Args: "[--json]", Run: runCodexList, Interspersed: true, Operands: cli.None(),
		Flags: func(fs *flag.FlagSet) any {
			return fs.Bool("json", false, "print a JSON array of {version, path, installed} (pinned versions not installed too)")
		},
		Summary: "list the codex versions installed in the cache (and a clone's .cache/codex), with their paths"},
	"path": {Name: "codex path", Args: "VERSION", Run: runCodexPath, Operands: cli.One("codex version"),
		Summary: "print the path of an installed codex binary (exit 2, saying how to install it, when it is missing)"},
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

func runCodexInstall(cfg any, args []string, std cli.IO) (err error) {
	c := cfg.(*codexInstallConfig)
	if len(args) == 0 {
		return cli.Usagef("want one or more codex versions (pinned: %s)", strings.Join(codexbin.Versions, ", "))
	}
	if c.platform != "" {
		if c.Platform, err = codexbin.PlatformNamed(c.platform); err != nil {
			return cli.Usagef("--platform %v", err)
		}
	}
	if !c.quiet {
		c.Progress = cli.Own(std.Err) // its carriage returns rewrite the line: the tool's own text
	}
	ctx, stop := cli.Interruptible()
	defer stop()
	var log io.Writer
	if !c.quiet {
		log = std.Log
	}
	return codexbin.InstallAll(ctx, args, c.Options, std.Out, log)
}

func runCodexList(asJSON any, args []string, std cli.IO) error {
	missing, err := codexbin.WriteList(std.Out, *asJSON.(*bool))
	if len(missing) > 0 && !*asJSON.(*bool) {
		fmt.Fprintf(std.Err, "pinned but not installed: %s (codexrec codex install %s)\n", strings.Join(missing, ", "), strings.Join(missing, " "))
	}
	return err
}

func runCodexPath(_ any, args []string, std cli.IO) error {
	p, err := findCodex(args[0], false, false, std)
	if err == nil {
		fmt.Fprintln(std.Out, p)
	}
	return err
}

// findCodex returns the binary of version, installing it first when install is
// set; a missing one says how to install it (and that --install would, when orFlag).
func findCodex(version string, install, orFlag bool, std cli.IO) (string, error) {
	ctx, stop := cli.Interruptible()
	defer stop()
	p, err := codexbin.FindOrInstall(ctx, version, install, codexbin.Options{Registry: codexbin.Registry(), Progress: cli.Own(std.Err)})
	if !errors.Is(err, codexbin.ErrNotInstalled) {
		return p, err
	}
	also := map[bool]string{true: ", or pass --install"}[orFlag]
	return "", fmt.Errorf("codex %s is not installed: codexrec codex install %s installs it%s (%w; looked in %s)",
		version, version, also, codexbin.ErrNotInstalled, strings.Join(codexbin.Caches(), ", "))
}
