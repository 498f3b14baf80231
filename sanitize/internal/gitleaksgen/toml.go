package main

import (
	"fmt"
	"strconv"
	"strings"
)

// table is one TOML table: its header ("rules", "rules.allowlists", "allowlist") and
// its keys. Values are strings, float64s or []any.
type table struct {
	name string
	line int
	keys map[string]any
}

// parseTOML reads the subset of TOML gitleaks' config uses: [table] and [[array]]
// headers, key = value with basic, literal and multi-line literal strings, numbers,
// booleans and (multi-line) arrays of those. Anything else is an error naming its
// line, so a new construct in an upgraded config stops the generator rather than
// being skipped.
func parseTOML(src string) ([]table, error) {
	p := &parser{src: src, line: 1}
	tables := []table{{name: "", keys: map[string]any{}}}
	for {
		p.skipSpaceAndComments(true)
		if p.eof() {
			return tables, nil
		}
		if p.peek() == '[' {
			array := strings.HasPrefix(p.src[p.pos:], "[[")
			open, close := "[", "]"
			if array {
				open, close = "[[", "]]"
			}
			end := strings.Index(p.src[p.pos:], close)
			if end < 0 {
				return nil, p.errorf("unterminated table header")
			}
			name := strings.TrimSpace(p.src[p.pos+len(open) : p.pos+end])
			tables = append(tables, table{name: name, line: p.line, keys: map[string]any{}})
			p.pos += end + len(close)
			continue
		}
		key := p.bareKey()
		if key == "" {
			return nil, p.errorf("want a key, table header or comment")
		}
		p.skipSpaceAndComments(false)
		if p.eof() || p.peek() != '=' {
			return nil, p.errorf("want = after %s", key)
		}
		p.pos++
		p.skipSpaceAndComments(false)
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		t := &tables[len(tables)-1]
		if _, dup := t.keys[key]; dup {
			return nil, p.errorf("duplicate key %s", key)
		}
		t.keys[key] = v
	}
}

type parser struct {
	src       string
	pos, line int
}

func (p *parser) eof() bool  { return p.pos >= len(p.src) }
func (p *parser) peek() byte { return p.src[p.pos] }

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("gitleaks.toml line %d: %s", p.line, fmt.Sprintf(format, args...))
}

func (p *parser) skipSpaceAndComments(newlines bool) {
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == '\n' && newlines:
			p.pos++
			p.line++
		case c == '#':
			for !p.eof() && p.peek() != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *parser) bareKey() string {
	start := p.pos
	for !p.eof() {
		c := p.peek()
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *parser) value() (any, error) {
	if p.eof() {
		return nil, p.errorf("missing value")
	}
	rest := p.src[p.pos:]
	switch {
	case strings.HasPrefix(rest, "'''"):
		end := strings.Index(rest[3:], "'''")
		if end < 0 {
			return nil, p.errorf("unterminated ''' string")
		}
		s := rest[3 : 3+end]
		// A newline right after the opening delimiter is not part of the string.
		s = strings.TrimPrefix(strings.TrimPrefix(s, "\r"), "\n")
		p.line += strings.Count(rest[:3+end+3], "\n")
		p.pos += 3 + end + 3
		return s, nil
	case rest[0] == '\'':
		end := strings.IndexAny(rest[1:], "'\n")
		if end < 0 || rest[1+end] != '\'' {
			return nil, p.errorf("unterminated ' string")
		}
		p.pos += end + 2
		return rest[1 : 1+end], nil
	case rest[0] == '"':
		if strings.HasPrefix(rest, `"""`) {
			return nil, p.errorf(`""" strings are not supported`)
		}
		i := 1
		for i < len(rest) && rest[i] != '"' && rest[i] != '\n' {
			if rest[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(rest) || rest[i] != '"' {
			return nil, p.errorf("unterminated \" string")
		}
		s, err := strconv.Unquote(rest[:i+1])
		if err != nil {
			return nil, p.errorf("string %s: %v", rest[:i+1], err)
		}
		p.pos += i + 1
		return s, nil
	case rest[0] == '[':
		p.pos++
		var arr []any
		for {
			p.skipSpaceAndComments(true)
			if p.eof() {
				return nil, p.errorf("unterminated array")
			}
			if p.peek() == ']' {
				p.pos++
				return arr, nil
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			p.skipSpaceAndComments(true)
			if !p.eof() && p.peek() == ',' {
				p.pos++
			}
		}
	default:
		end := strings.IndexAny(rest, " \t\r\n,]#")
		if end < 0 {
			end = len(rest)
		}
		tok := rest[:end]
		p.pos += end
		switch tok {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return nil, p.errorf("value %q is not a string, number, boolean or array", tok)
		}
		return f, nil
	}
}
