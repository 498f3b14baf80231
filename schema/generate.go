package schema

// Regenerate every embedded version's schemas from its real binary (installed into the
// git-ignored cache when missing). Add a version with scripts/add-codex-version.sh.
//go:generate go run ./internal/schemagen -dir versions -all
