//go:build !linux

package wire

func growLarge(buf []byte) ([]byte, bool) { return nil, false }
func isLarge([]byte) bool                 { return false }
func releaseLarge([]byte)                 {}
