// Package publicapi holds the tests of codexrec's public boundary: another module
// can require the public packages and record and replay with them, and no exported
// declaration of a public package mentions a type from internal/. It has no code.
package publicapi
