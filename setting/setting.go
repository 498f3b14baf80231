// Package setting is the one error the libraries return for an option they
// refuse: which field of their Options, with which other field, the value and
// why. It does not know how a user gave the option (a flag, a config key, an
// environment variable): whoever offers the option says it in their terms.
package setting

import (
	"fmt"
	"strings"
)

// Reason is an error that says why in a word or two ("is required"), read
// between the field and the other one (Error.With) when there is one. Each call
// makes a distinct reason, for errors.Is.
func Reason(words string) error { return &reason{words} }

type reason struct{ words string }

func (r *reason) Error() string { return r.words }

// The reasons the libraries share; a library adds its own with Reason.
var (
	// ErrRequired: the field is empty and must not be.
	ErrRequired = Reason("is required")
	// ErrNeeds: the field goes only with the other one.
	ErrNeeds = Reason("goes only with")
	// ErrExcludes: the field and the other one exclude each other.
	ErrExcludes = Reason("excludes")
	// ErrNegative: a size or a count below zero.
	ErrNegative = Reason("is negative")
	// ErrRange: a number out of the field's range.
	ErrRange = Reason("is out of range")
)

// An Error is an option that cannot be used as given, or with another: Setting
// names the field at fault (as the Options struct spells it), With the other
// field when two do not go together, Value what the field holds when the reason
// does not say it, and Err why: one of the reasons above, the library's own, or
// the value's parse error.
type Error struct {
	Setting, With, Value string
	Err                  error
}

func (e *Error) Error() string {
	msg := e.Setting + ": " + e.Err.Error()
	if _, ok := e.Err.(*reason); ok {
		msg = strings.TrimSpace(e.Setting + " " + e.Err.Error() + " " + e.With)
	}
	if e.Value != "" {
		msg += fmt.Sprintf(" (%q)", e.Value)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }
