#!/usr/bin/env bash
# Compares, per placement, the recall of codexrec's sanitizer and leak guard on the
# generated secret corpus with gitleaks' on the same unsanitized recording
# (TestGenCorpusVsGitleaks in sanitize/). gitleaks is not a dependency of the module:
# a gitleaks binary on PATH (or the one given) is used, else the pinned version is
# installed into a temporary GOBIN.
#
#   scripts/gitleaks-compare.sh [GITLEAKS_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
version=v8.30.1 # the version sanitize/gitleaks_rules.go was generated from
bin=${1:-$(command -v gitleaks || true)}
tmp=
if [[ -z $bin ]]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	echo "installing gitleaks $version into $tmp" >&2
	(cd "$tmp" && GOBIN="$tmp" GOFLAGS=-mod=mod go install "github.com/zricethezav/gitleaks/v8@$version")
	bin=$tmp/gitleaks
fi
v=$("$bin" version)
[[ -n $tmp ]] && v=$version # go install builds know no version
case $v in *"build process"*) v="unknown (a go install build)" ;; esac
echo "gitleaks: $bin ($v)" >&2
CODEXREC_GITLEAKS=$bin CODEXREC_GITLEAKS_VERSION=$v go test ./sanitize -run '^TestGenCorpusVsGitleaks$' -count=1 -v |
	sed 's/^        //' | sed -n '/^gitleaks /,/near misses/p; /FAIL/p; /^ok/p'
