package secretcorpus

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Real keys are made by the tools people use (ssh-keygen, openssl, gpg), not drawn
// at random: their fixed headers (OpenSSH's "AAAAAAAA" runs, PKCS#8's algorithm
// identifiers, gpg's armor checksum) are what a sanitizer meets in real output. A set
// made by those tools is committed under keys/ (test keys, used nowhere); Generate
// makes a fresh set when the tools are installed.

//go:embed keys/*
var keyFiles embed.FS

// KeyKinds names each real key kind and the generator that makes it.
var KeyKinds = []struct{ Name, Tool string }{
	{"openssh-ed25519", "ssh-keygen -t ed25519"},
	{"openssh-rsa", "ssh-keygen -t rsa -b 2048"},
	{"openssh-ecdsa", "ssh-keygen -t ecdsa"},
	{"pkcs1-rsa", "openssl genrsa -traditional 2048"},
	{"pkcs8-rsa", "openssl genpkey -algorithm RSA"},
	{"pkcs8-ed25519", "openssl genpkey -algorithm ed25519"},
	{"sec1-ec", "openssl ecparam -name prime256v1 -genkey -noout"},
	{"pkcs8-encrypted", "openssl genpkey -algorithm ed25519 -aes256"},
	{"gpg-armored", "gpg --export-secret-keys --armor"},
}

// CommittedKeys returns the committed keys by kind, made by KeyKinds' tools.
func CommittedKeys() map[string]string {
	out := map[string]string{}
	for _, k := range KeyKinds {
		b, err := keyFiles.ReadFile("keys/" + k.Name + ".pem")
		if err == nil {
			out[k.Name] = string(b)
		}
	}
	return out
}

// Keys are the committed keys by kind and, for each kind whose tool is installed, a
// key made now in dir (kind+"fresh"); missing names the tools that are not.
func Keys(ctx context.Context, dir string) (keys map[string]string, missing []string, err error) {
	keys = CommittedKeys()
	if len(keys) != len(KeyKinds) {
		return nil, nil, fmt.Errorf("committed keys: %d of %d kinds", len(keys), len(KeyKinds))
	}
	for _, k := range KeyKinds {
		key, err := GenerateKey(ctx, k.Name, dir)
		switch {
		case errors.Is(err, ErrNoTool):
			missing = append(missing, k.Tool)
		case err != nil:
			return nil, nil, err
		default:
			keys[k.Name+"+fresh"] = key
		}
	}
	return keys, missing, nil
}

// ErrNoTool says a generator is not installed.
var ErrNoTool = errors.New("key generator not installed")

// GenerateKey makes a fresh key of kind in dir with the real tool (ErrNoTool when it
// is missing).
func GenerateKey(ctx context.Context, kind, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	run := func(name string, env []string, args ...string) ([]byte, error) {
		if _, err := exec.LookPath(name); err != nil {
			return nil, fmt.Errorf("%s: %w", name, ErrNoTool)
		}
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env = append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
	sshKey := func(args ...string) (string, error) {
		p := filepath.Join(dir, kind)
		if _, err := run("ssh-keygen", nil, append([]string{"-q", "-N", "", "-C", "test@example.invalid", "-f", p}, args...)...); err != nil {
			return "", err
		}
		b, err := os.ReadFile(p)
		return string(b), err
	}
	openssl := func(args ...string) (string, error) {
		b, err := run("openssl", nil, args...)
		return string(b), err
	}
	switch kind {
	case "openssh-ed25519":
		return sshKey("-t", "ed25519")
	case "openssh-rsa":
		return sshKey("-t", "rsa", "-b", "2048")
	case "openssh-ecdsa":
		return sshKey("-t", "ecdsa")
	case "pkcs1-rsa":
		return openssl("genrsa", "-traditional", "2048")
	case "pkcs8-rsa":
		return openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048")
	case "pkcs8-ed25519":
		return openssl("genpkey", "-algorithm", "ed25519")
	case "sec1-ec":
		return openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout")
	case "pkcs8-encrypted":
		return openssl("genpkey", "-algorithm", "ed25519", "-aes256", "-pass", "pass:test-only-passphrase")
	case "gpg-armored":
		home := filepath.Join(dir, "gnupg")
		if err := os.MkdirAll(home, 0o700); err != nil {
			return "", err
		}
		env := []string{"GNUPGHOME=" + home}
		defer exec.Command("gpgconf", "--homedir", home, "--kill", "all").Run()
		if _, err := run("gpg", env, "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", "Test Key <test@example.invalid>", "ed25519", "sign", "never"); err != nil {
			return "", err
		}
		b, err := run("gpg", env, "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--armor", "--export-secret-keys")
		return string(b), err
	}
	return "", fmt.Errorf("unknown key kind %q", kind)
}

// KeyBody is the part of a PEM or armored block judged for leaks: its lines other
// than the BEGIN and END lines, armor headers and blank lines.
func KeyBody(key string) []string {
	var out []string
	for _, l := range strings.Split(key, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "-----") || strings.Contains(l, ": ") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// KeyNames lists the kinds of keys in m, sorted.
func KeyNames(m map[string]string) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
