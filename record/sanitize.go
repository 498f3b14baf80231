package record

import (
	"io"
	"os"
	"path/filepath"

	"github.com/codexrec/codexrec/recorder"
)

// SanitizeFile writes a copy of the recording at src to a new recording at dst
// through s (its Sanitizer, then its Guard before publishing: CopyFile). warning is
// the source's structural problems in one line (recorder.Reader.Warning), "" when
// none.
func (s *Session) SanitizeFile(src, dst string, o recorder.Options) (warning string, err error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	rd, err := recorder.NewReader(in, src)
	if err != nil {
		return "", err
	}
	err = s.CopyFile(dst, rd, o)
	return rd.Warning(), err
}

// SanitizeTo is SanitizeFile with the copy written to w: it is published (after
// the guard, which may redact it) into a private directory, then copied to w and
// removed. A copy the guard refused is not written.
func (s *Session) SanitizeTo(w io.Writer, src string) (warning string, err error) {
	tmp, err := os.MkdirTemp("", "codexrec-sanitize-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	dst := filepath.Join(tmp, filepath.Base(src))
	warning, err = s.SanitizeFile(src, dst, recorder.Options{})
	if f, openErr := os.Open(dst); openErr == nil {
		defer f.Close()
		if _, cpErr := io.Copy(w, f); cpErr != nil && err == nil {
			err = cpErr
		}
	}
	return warning, err
}
