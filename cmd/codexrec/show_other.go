//go:build !unix

package main

import "os"

// unlinked cannot tell on this platform: a follower then waits for the rename.
func unlinked(os.FileInfo) bool { return false }
