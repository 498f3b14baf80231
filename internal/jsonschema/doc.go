// Package jsonschema compiles JSON Schemas (drafts 4, 6, 7, 2019-09 and 2020-12) and
// validates JSON values against them. It is a copy of
// github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 whose drafts' metaschemas are
// compiled on first use instead of at program start (see README.md); it knows
// nothing of Codex's schemas, which package schema loads and applies.
package jsonschema
