# codexrec: see README.md. `make test` is what CI runs.
CODEX_VERSIONS := 0.163.0 0.171.0
NEWEST := 0.171.0
GO ?= go
BIN := bin/codexrec

.PHONY: all build test codex chromium demo bench fixtures fuzz lint cross clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/codexrec

# Install the pinned real Codex binaries into .cache/codex (git-ignored) when missing.
codex:
	@for v in $(CODEX_VERSIONS); do scripts/install-codex.sh $$v >/dev/null || exit 1; done
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

bench: build
	@scripts/bench.sh

fuzz:
	@scripts/fuzz.sh

clean:
	rm -rf bin out
