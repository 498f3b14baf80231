# codexrec: see README.md. `make test` is what CI runs.
CODEX_VERSIONS := 0.163.0 0.171.0
# Every version whose schemas are embedded (schema/versions); CI runs only CODEX_VERSIONS.
EMBEDDED := 0.163.0 0.164.0 0.165.0 0.166.0 0.167.2 0.168.0 0.169.0 0.171.0
NEWEST := 0.171.0
GO ?= go
BIN := bin/codexrec

.PHONY: all build test codex chromium demo bench fixtures fuzz lint cross clean matrix

all: build

# CGO_ENABLED=0: a static binary (net's and os/user's pure Go halves) starts about a
# millisecond sooner than one the dynamic loader links to libc (docs/record.md).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/codexrec

# Install the pinned real Codex binaries into .cache/codex (git-ignored) when missing:
# `codexrec codex install`, from the npm registry, sha512-checked.
codex:
	@GO=$(GO) scripts/install-codex.sh $(CODEX_VERSIONS) >/dev/null
	@scripts/install-npm-client.sh >/dev/null

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet ./...

# Install Debian's Chromium and ChromeDriver (browser tests of the HTML views) when missing.
chromium:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
		sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$sudo apt-get update -q && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; \
	fi

# The readers build everywhere; record and replay need a POSIX system for signals.
cross:
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build ./...

test: codex chromium lint cross
	CODEXREC_REQUIRE_CODEX=1 $(GO) test -race -count=1 -timeout 30m ./...

demo: build codex
	@scripts/demo.sh

# Capture every shipped scenario with every pinned codex into fixtures/hermetic.
fixtures: build codex
	@scripts/capture-fixtures.sh

# Capture every shipped scenario with every embedded codex version (installing each
# binary when missing) and write the compatibility table. Not run by CI.
matrix: build
	$(GO) run ./internal/matrixgen -codexrec $(BIN) -versions "$(EMBEDDED)" -o docs/compatibility.md

bench: build
	@scripts/bench.sh

fuzz:
	@scripts/fuzz.sh

clean:
	rm -rf bin out
