package view

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/codexrec/codexrec/upgrade"
)

// WriteUpgradeFiles writes an upgrade's report page to path (0600) and each
// compared pair's diff page beside it, in path's name + ".diffs/", setting each
// recording's DiffPage to the link.
func WriteUpgradeFiles(path string, o *upgrade.Outcome) error {
	base := filepath.Base(path)
	for i, r := range o.Report.Recordings {
		if o.Pairs[i] != nil {
			o.Report.Recordings[i].DiffPage = base + ".diffs/" + fmt.Sprintf("%02d-%s.html", i+1, r.Name)
		}
	}
	if len(o.Pairs) > 0 {
		if err := os.MkdirAll(path+".diffs", 0o700); err != nil {
			return err
		}
	}
	for i, p := range o.Pairs {
		var b bytes.Buffer
		if err := WriteDiffHTML(&b, p.Old, p.New, p.OldSession, p.NewSession, p.Diff); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(filepath.Dir(path), o.Report.Recordings[i].DiffPage), b.Bytes(), 0o600); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	if err := WriteUpgradeHTML(&b, o.Report); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o600)
}
