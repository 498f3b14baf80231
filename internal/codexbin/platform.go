package codexbin

import (
	"fmt"
	"path/filepath"
	"runtime"
)

// Platform is one platform codex ships a native binary for: the npm package's version
// suffix (@openai/codex@VERSION-SUFFIX) and the Rust target triple naming the folder
// under vendor/ that holds the binary.
type Platform struct {
	GOOS, GOARCH string
	NPM          string // "linux-x64"
	Triple       string // "x86_64-unknown-linux-musl"
}

// Platforms are the platforms Install knows.
var Platforms = []Platform{
	{"linux", "amd64", "linux-x64", "x86_64-unknown-linux-musl"},
	{"linux", "arm64", "linux-arm64", "aarch64-unknown-linux-musl"},
	{"darwin", "amd64", "darwin-x64", "x86_64-apple-darwin"},
	{"darwin", "arm64", "darwin-arm64", "aarch64-apple-darwin"},
}

// PlatformFor returns the platform of goos and goarch.
func PlatformFor(goos, goarch string) (Platform, error) {
	for _, p := range Platforms {
		if p.GOOS == goos && p.GOARCH == goarch {
			return p, nil
		}
	}
	return Platform{}, fmt.Errorf("codex ships no binary for %s/%s (known: linux and darwin on amd64 and arm64)", goos, goarch)
}

// HostPlatform is the running platform.
func HostPlatform() (Platform, error) { return PlatformFor(runtime.GOOS, runtime.GOARCH) }

// dir is the cache folder of version: the version for the running platform, the npm
// version (VERSION-SUFFIX) for another one.
func (p Platform) dir(cache, version string) string {
	if h, err := HostPlatform(); err == nil && h == p {
		return filepath.Join(cache, version)
	}
	return filepath.Join(cache, version+"-"+p.NPM)
}

// rel is the binary's path inside the unpacked package.
func (p Platform) rel() string {
	return filepath.Join("package", "vendor", p.Triple, "bin", "codex")
}

func (p Platform) binaryIn(cache, version string) string {
	return filepath.Join(p.dir(cache, version), p.rel())
}
