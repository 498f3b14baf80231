package sanitize

//go:generate go run ./internal/gitleaksgen -toml internal/gitleaksgen/gitleaks.toml -o gitleaks_rules.go
