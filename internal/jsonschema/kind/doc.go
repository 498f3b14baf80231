// Package kind is the kinds of validation errors of package jsonschema (a copy of
// github.com/santhosh-tekuri/jsonschema/v6/kind v6.0.3, unchanged). It validates
// nothing itself.
package kind
