package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/codexrec/codexrec/internal/codexbin"
)

// codexCommands are the subcommands of `codexrec codex`.
var codexCommands = map[string]*command{}

func init() {
	register(&command{
		name:    "codex",
		args:    "SUBCOMMAND [flags] [args] (subcommands: install, list, path)",
		summary: "install real codex binaries from the npm registry into codexrec's cache, list them, print their paths",
		run:     runCodex,
	})
	codexCommands["install"] = &command{
		name:         "codex install",
		args:         "[--registry URL] [--platform OS-ARCH] [-q] VERSION...",
		summary:      "download the native codex binary of each VERSION (the @openai/codex platform package, its sha512 checked against the registry's integrity) into the cache unless it is there, and print its path",
		flags:        codexInstallFlags,
		run:          runCodexInstall,
		interspersed: true,
	}
	codexCommands["list"] = &command{
		name:    "codex list",
		args:    "",
		summary: "list the codex versions installed in the cache (and a clone's .cache/codex), with their paths",
		run:     runCodexList,
	}
	codexCommands["path"] = &command{
		name:    "codex path",
		args:    "VERSION",
		summary: "print the path of an installed codex binary (exit 2, saying how to install it, when it is missing)",
		run:     runCodexPath,
	}
}

func runCodex(_ any, args []string, std stdio) error {
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range codexCommands {
			if !yield(n) {
				return
			}
		}
	})
	if len(args) == 0 {
		return usagef("want a subcommand: %s", strings.Join(names, ", "))
	}
	c, ok := codexCommands[args[0]]
	if !ok {
		return usagef("unknown subcommand %q (want %s)", args[0], strings.Join(names, ", "))
	}
	return runCommand(c, args[1:], std)
}

type codexInstallConfig struct {
	registry, platform string
	quiet              bool
}

func codexInstallFlags(fs *flag.FlagSet) any {
	c := &codexInstallConfig{}
	fs.StringVar(&c.registry, "registry", codexbin.Registry(), "the npm registry `URL` (default from $"+codexbin.RegistryEnv+")")
	fs.StringVar(&c.platform, "platform", "", "install the binary of another platform `OS-ARCH` (linux-x64, linux-arm64, darwin-x64, darwin-arm64) into VERSION-OS-ARCH")
	fs.BoolVar(&c.quiet, "q", false, "no progress line on stderr")
	return c
}

func runCodexInstall(cfg any, args []string, std stdio) error {
	c := cfg.(*codexInstallConfig)
	if len(args) == 0 {
		return usagef("want one or more codex versions (pinned: %s)", strings.Join(codexbin.Versions, ", "))
	}
	o := codexbin.Options{Registry: c.registry}
	if !c.quiet {
		o.Progress = own(std.err) // its carriage returns rewrite the line: the tool's own text
	}
	if c.platform != "" {
		p, err := codexbin.PlatformNamed(c.platform)
		if err != nil {
			return usagef("--platform %v", err)
		}
		o.Platform = p
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	for _, v := range args {
		inst, err := codexbin.Install(ctx, v, o)
		if err != nil {
			return &exitError{exitUsage, err}
		}
		if inst.Downloaded && !c.quiet {
			fmt.Fprintf(std.err, "codexrec codex: installed codex %s (%.1f MB, %s)\n", v, float64(inst.Bytes)/1e6, inst.Integrity)
		}
		fmt.Fprintln(std.out, inst.Path)
	}
	return nil
}

func runCodexList(_ any, args []string, std stdio) error {
	if len(args) > 0 {
		return usagef("unexpected arguments %q", args)
	}
	found, missing, err := codexbin.List()
	if err != nil {
		return usageOrIO(err)
	}
	for _, b := range found {
		fmt.Fprintf(std.out, "%-10s %s\n", b.Version, b.Path)
	}
	if len(missing) > 0 {
		fmt.Fprintf(std.err, "pinned but not installed: %s (codexrec codex install %s)\n", strings.Join(missing, ", "), strings.Join(missing, " "))
	}
	return nil
}

func runCodexPath(_ any, args []string, std stdio) error {
	if len(args) != 1 {
		return usagef("want one codex version")
	}
	p, err := codexbin.Find(args[0])
	if err != nil {
		return &exitError{exitUsage, installAdvice(err, args[0], false)}
	}
	fmt.Fprintln(std.out, p)
	return nil
}

// installAdvice says how to install a missing version (and that --install would,
// when orFlag), and where it was looked for.
func installAdvice(err error, version string, orFlag bool) error {
	if err == nil || !errors.Is(err, codexbin.ErrNotInstalled) {
		return err
	}
	also := ""
	if orFlag {
		also = ", or pass --install"
	}
	return fmt.Errorf("codex %s is not installed: codexrec codex install %s installs it%s (%w; looked in %s)",
		version, version, also, codexbin.ErrNotInstalled, strings.Join(codexbin.Caches(), ", "))
}

// findCodex returns the binary of version, installing it first when install is set.
func findCodex(version string, install bool, std stdio) (string, error) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	p, err := codexbin.FindOrInstall(ctx, version, install, codexbin.Options{Registry: codexbin.Registry(), Progress: own(std.err)})
	return p, installAdvice(err, version, true)
}
