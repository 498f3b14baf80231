package schema

// CompareVersions orders two Codex versions ("0.171.0", a pre-release suffix
// ignored) numerically: -1, 0 or 1. ValidVersion says whether one parses.
func CompareVersions(a, b string) int { return compareVersions(a, b) }

// ValidVersion reports whether v is a version CompareVersions orders ("0.171.0").
func ValidVersion(v string) bool {
	_, ok := parseVersion(v)
	return ok
}
