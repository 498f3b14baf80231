#!/usr/bin/env bash
# add-codex-version.sh VERSION: embed the protocol schemas of codex VERSION (stable and
# --experimental) in the schema package. Installs the binary into the git-ignored cache
# when missing (scripts/install-codex.sh), then updates schema/versions/. Commit the
# result; `go generate ./schema` regenerates every embedded version the same way.
set -euo pipefail
version=${1:?usage: scripts/add-codex-version.sh VERSION}
cd "$(dirname "$0")/../schema"
go run ./internal/schemagen -dir versions "$version"
