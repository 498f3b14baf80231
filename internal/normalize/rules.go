package normalize

import "strings"

// catPathRewrite marks members holding a path that may be stable once learned roots
// are replaced (path, instructionSources, *Path); see walker.pathValue.
const catPathRewrite = "\x00path-rewrite"

// keyCategory is the built-in mask category of a member named key ("" for none).
// top is true for the members of the message object itself.
func keyCategory(key string, top bool) string {
	switch key {
	case "id":
		if top {
			return "request-id"
		}
		return maskNone
	case "requestId":
		return "request-id"
	case "userAgent":
		return "user-agent"
	case "cliVersion":
		return "version"
	case "processId", "pid":
		return "process"
	case "serverName", "hostname", "hostName", "host":
		return "host"
	case "installationId":
		return "installation"
	case "codexHome", "cwd":
		return "path"
	case "path", "instructionSources":
		return catPathRewrite
	case "timestamp":
		return "time"
	}
	switch {
	case endsWithWord(key, "At"), endsWithWord(key, "AtMs"), endsWithWord(key, "Timestamp"):
		return "time"
	case containsFold(key, "duration"), containsFold(key, "elapsed"):
		return "duration"
	case endsWithWord(key, "Path"):
		return catPathRewrite
	case endsWithWord(key, "Dir"), endsWithWord(key, "Home"), endsWithWord(key, "Root"), endsWithWord(key, "Roots"):
		return "path"
	}
	return maskNone
}

// endsWithWord reports whether key ends with the camel-case word w after at least
// one lower-case letter or digit (createdAt, not At or Format).
func endsWithWord(key, w string) bool {
	if len(key) <= len(w) || !strings.HasSuffix(key, w) {
		return false
	}
	c := key[len(key)-len(w)-1]
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// containsFold reports whether s contains the lower-case ASCII sub in any case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// idKind is the symbol kind for ids found in member key of an object that is itself
// the value of member parent: threadId -> thread, thread.id -> thread, turnIds -> turn.
func idKind(key, parent string) string {
	switch {
	case key == "id":
		switch parent {
		case "", "params", "result", "data":
			return "id"
		}
		return lastWord(singular(parent))
	case strings.HasSuffix(key, "Ids") && len(key) > 3:
		return lastWord(key[:len(key)-3])
	case strings.HasSuffix(key, "Id") && len(key) > 2:
		return lastWord(key[:len(key)-2])
	}
	return ""
}

func singular(s string) string {
	if len(s) > 3 && s[len(s)-1] == 's' && s[len(s)-2] != 's' {
		return s[:len(s)-1]
	}
	return s
}

// lastWord is the last camel-case word of s, lower-cased: parentThread -> thread.
func lastWord(s string) string {
	i := len(s) - 1
	for i > 0 && !(s[i] >= 'A' && s[i] <= 'Z') {
		i--
	}
	return strings.ToLower(s[i:])
}

// isDateTime reports whether s is an RFC 3339 date-time (2026-11-29T10:36:51Z,
// with optional fraction and offset).
func isDateTime(s string) bool {
	if len(s) < 20 || len(s) > 40 || !hasDateAt(s, 0) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') {
		return false
	}
	t := s[11:]
	if len(t) < 9 || !digits(t[0:2]) || t[2] != ':' || !digits(t[3:5]) || t[5] != ':' || !digits(t[6:8]) {
		return false
	}
	t = t[8:]
	if t[0] == '.' {
		i := 1
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		t = t[i:]
	}
	return t == "Z" || t == "z" || len(t) == 6 && (t[0] == '+' || t[0] == '-') && digits(t[1:3]) && t[3] == ':' && digits(t[4:6])
}

// hasDate reports whether s contains a YYYY-MM-DD or YYYY/MM/DD date.
func hasDate(s string) bool {
	for i := 0; i+10 <= len(s); i++ {
		if hasDateAt(s, i) {
			return true
		}
	}
	return false
}

func hasDateAt(s string, i int) bool {
	if i+10 > len(s) {
		return false
	}
	d := s[i : i+10]
	return digits(d[0:4]) && (d[4] == '-' || d[4] == '/') && d[7] == d[4] && digits(d[5:7]) && digits(d[8:10])
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// uuidAt reports whether a UUID (8-4-4-4-12 hex digits) starts at s[i] and is not part
// of a longer run of hex digits.
func uuidAt(s string, i int) bool {
	if i+36 > len(s) || (i > 0 && isHex(s[i-1])) || (i+36 < len(s) && isHex(s[i+36])) {
		return false
	}
	for j := 0; j < 36; j++ {
		c := s[i+j]
		switch j {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

// firstUUID is the index of the first UUID in s, or -1.
func firstUUID(s string) int {
	if len(s) < 36 || strings.IndexByte(s, '-') < 0 {
		return -1
	}
	for i := 0; i+36 <= len(s); i++ {
		if uuidAt(s, i) {
			return i
		}
	}
	return -1
}

// replaceUUIDs replaces every UUID in s by sym(uuid).
func replaceUUIDs(s string, sym func(string) string) string {
	i := firstUUID(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i+36 <= len(s) { // from the first UUID: the text before it has none
		if uuidAt(s, i) {
			b.WriteString(s[last:i])
			b.WriteString(sym(s[i : i+36]))
			i += 36
			last = i
			continue
		}
		i++
	}
	b.WriteString(s[last:])
	return b.String()
}

// stripRedactionHashes turns <redacted:RULE:HASH> into <redacted:RULE>: the hash is
// salted per recording.
func stripRedactionHashes(s string) string {
	const open = "<redacted:"
	if !strings.Contains(s, open) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := s[i+len(open):]
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		body := rest[:end]
		if c := strings.IndexByte(body, ':'); c >= 0 {
			body = body[:c]
		}
		b.WriteString(s[:i])
		b.WriteString(open + body + ">")
		s = rest[end+1:]
	}
}
