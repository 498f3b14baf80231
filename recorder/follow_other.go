//go:build !unix

package recorder

import "os"

// unlinked cannot tell on this platform: a follower then waits for the rename.
func unlinked(os.FileInfo) bool { return false }
