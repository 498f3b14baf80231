// Package view presents recordings to people: a per-frame human summary, frames grouped
// by thread and turn with requests joined to their responses, a terminal timeline and a
// self-contained HTML page. It reads recordings through the recorder package and never
// changes them; it does not validate, sanitize or compare (see schema, sanitize, diff).
package view
