// Package normalize turns a JSON-RPC message into a generic value in which everything
// that varies from run to run is made comparable: generated ids become symbols by order
// of first appearance (thread#1, turn#2), and timestamps, durations, request ids, host
// names, versions and paths are masked. It is shared by diff and by replay matching;
// it does not compare messages itself beyond Equal (and EqualFilled, where sanitizer
// placeholders stand for any text), and it never sees raw frames.
//
// # Values
//
// Message returns nil, bool, json.Number, string, Object, []any, Masked or JSONText.
// An Object's members are sorted by key, so two values are equal exactly when
// Equal says so and Marshal gives the same bytes.
//
// # Built-in rules
//
// Masked (the value is replaced by a Masked naming its category; presence and null are
// kept, so a field that appears, disappears or becomes null is still a difference):
//   - request-id: the top-level "id" of a message and any "requestId".
//   - time: emittedAtMs, startedAtMs, completedAtMs, createdAt, updatedAt, recencyAt,
//     sectionEnteredAt, resetsAt and every key ending in "At", "AtMs" or "Timestamp";
//     also any string that is an RFC 3339 date-time.
//   - duration: any key containing "duration" or "elapsed" (durationMs, elapsedMs).
//   - user-agent: userAgent. version: cliVersion.
//   - process: processId, pid. host: serverName, hostname, hostName, host.
//   - installation: installationId.
//   - path: codexHome, cwd and every key ending in Dir, Home, Root or Roots (every
//     string below it). path, instructionSources and keys ending in Path are masked
//     only when still run-specific after root replacement (absolute, or carrying an id
//     or a date, as a rollout file does); otherwise they stay, with roots replaced. The
//     values of codexHome, cwd and the workspace roots are learned as path roots:
//     inside any other string they are replaced by <codexHome>, <cwd> or <root>.
//
// Rewritten inside every string:
//   - UUIDs (any version) become symbols KIND#N, numbered per kind by order of first
//     appearance in the recording, so the same id always gets the same symbol. KIND comes
//     from where the id is first seen: threadId and thread.id give "thread", turnIds
//     "turn"; elsewhere "id".
//   - Sanitizer placeholders carrying a salted hash, <redacted:RULE:HASH>, lose the
//     hash: <redacted:RULE>. Path placeholders such as <cwd> are kept: they are stable.
//
// Strings holding a JSON object or array (tool-call arguments) are parsed and
// normalised too, and become a JSONText.
//
// Options.Ignore adds JSON pointers (RFC 6901) whose values are dropped altogether,
// with "*" matching one segment and "**" any number of segments.
package normalize

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/jsonx"
)

// Options configure a Normalizer. The zero value applies the built-in rules only.
type Options struct {
	// Ignore lists JSON pointer patterns, relative to the message ("/params/item/durationMs",
	// "/params/*/id", "/**/cwd"); matching members and elements are dropped.
	Ignore []string
	// NoBuiltin turns the built-in masks and id symbols off (Ignore still applies).
	NoBuiltin bool
}

// Normalizer normalises the messages of one recording, in order. It holds the
// recording's symbol table, so use one Normalizer per recording (or per live session)
// and feed it messages in the order they were seen. It is not safe for concurrent use.
type Normalizer struct {
	ignore  []pattern
	builtin bool
	symbols map[string]string // UUID (lower case) -> symbol
	counts  map[string]int    // kind -> symbols assigned
	roots   []root            // learned path roots, longest first
	cats    map[string]string // keyCategory of nested members, by key: keys repeat
	w       walker            // reused across messages for its scratch stacks
}

type root struct{ path, placeholder string }

// ErrNotJSON is returned for a message that is not valid JSON.
var ErrNotJSON = errors.New("not valid JSON")

// New returns a Normalizer with the built-in rules and opts.
func New(opts Options) (*Normalizer, error) {
	n := &Normalizer{builtin: !opts.NoBuiltin}
	for _, p := range opts.Ignore {
		pat, err := parsePattern(p)
		if err != nil {
			return nil, err
		}
		n.ignore = append(n.ignore, pat)
	}
	return n, nil
}

// Message parses msg (one JSON-RPC message, or any JSON text) and normalises it.
func (n *Normalizer) Message(msg []byte) (any, error) {
	return n.message(msg, false)
}

// MessageInPlace is Message for a msg that is never modified afterwards: the strings
// of the value it returns are slices of msg, not of a copy (a 100 MB message then
// costs no second 100 MB).
func (n *Normalizer) MessageInPlace(msg []byte) (any, error) {
	return n.message(msg, true)
}

func (n *Normalizer) message(msg []byte, inPlace bool) (any, error) {
	if jsonx.DeeperThan(msg, jsonx.MaxDepth) {
		// Beyond what the recursive validator may safely take; kept as it is.
		return Deep(msg), nil
	}
	if !gjson.ValidBytes(msg) {
		return nil, ErrNotJSON
	}
	if n.symbols == nil {
		n.symbols = map[string]string{}
		n.counts = map[string]int{}
	}
	w := &n.w
	w.n = n
	w.depth = 0
	w.path = w.path[:0]
	if inPlace {
		return w.value(gjson.Parse(unsafe.String(unsafe.SliceData(msg), len(msg))), maskNone, "", ""), nil
	}
	return w.value(gjson.ParseBytes(msg), maskNone, "", ""), nil
}

// Symbols is the number of ids turned into symbols so far.
func (n *Normalizer) Symbols() int { return len(n.symbols) }

// symbol returns the symbol of uuid, assigning KIND#N on first sight.
func (n *Normalizer) symbol(uuid, kind string) string {
	key := strings.ToLower(uuid) // a UUID: ASCII, so no copy unless it has upper case
	if s, ok := n.symbols[key]; ok {
		return s
	}
	if kind == "" {
		kind = "id"
	}
	n.counts[kind]++
	s := kind + "#" + strconv.Itoa(n.counts[kind])
	n.symbols[key] = s
	return s
}

// category is keyCategory, memoised for nested members.
func (n *Normalizer) category(key string, top bool) string {
	if top {
		return keyCategory(key, true)
	}
	if c, ok := n.cats[key]; ok {
		return c
	}
	if n.cats == nil {
		n.cats = map[string]string{}
	}
	c := keyCategory(key, false)
	if len(n.cats) < 1<<16 {
		n.cats[key] = c
	}
	return c
}

// learnRoot remembers a path whose occurrences in other strings become placeholder.
func (n *Normalizer) learnRoot(path, placeholder string) {
	if len(path) < 4 || path[0] != '/' {
		return // too short to replace safely, or already a placeholder
	}
	for _, r := range n.roots {
		if r.path == path {
			return
		}
	}
	n.roots = append(n.roots, root{path, placeholder})
	// Longest first, so /tmp/x/y is replaced before /tmp/x.
	for i := len(n.roots) - 1; i > 0 && len(n.roots[i].path) > len(n.roots[i-1].path); i-- {
		n.roots[i], n.roots[i-1] = n.roots[i-1], n.roots[i]
	}
}

// MustNew is New for patterns known to be valid; it panics on error.
func MustNew(opts Options) *Normalizer {
	n, err := New(opts)
	if err != nil {
		panic(fmt.Sprintf("normalize: %v", err))
	}
	return n
}
