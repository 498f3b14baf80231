package sanitize

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ScanReport is what the leak guard found in each file ScanFiles was given, in order;
// its JSON form is one document with the total.
type ScanReport struct {
	Leaks int        `json:"leaks"` // in all files
	Files []ScanFile `json:"files"`
}

// ScanFile is the guard's findings in one file (an empty Leaks when clean).
type ScanFile struct {
	File  string     `json:"file"`
	Leaks []ScanLeak `json:"leaks"`
}

// ScanLeak is a Leak as ScanReport's JSON writes it (masked previews only).
type ScanLeak struct {
	Rule    string `json:"rule"`
	Line    int    `json:"line"`
	Seq     int64  `json:"seq,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Preview string `json:"preview"`
	leak    Leak
}

// ScanFiles runs the leak guard (Guard) over each file. A file that cannot be read
// ends the scan with its error and the report so far.
func (z *Sanitizer) ScanFiles(paths []string) (ScanReport, error) {
	report := ScanReport{Files: []ScanFile{}}
	for _, path := range paths {
		err := z.Guard(path)
		var le *LeakError
		f := ScanFile{File: path, Leaks: []ScanLeak{}}
		switch {
		case errors.As(err, &le):
			for _, l := range le.Leaks {
				f.Leaks = append(f.Leaks, ScanLeak{l.Rule, l.Line, l.Seq, l.Pointer, l.Preview, l})
			}
			report.Leaks += len(le.Leaks)
		case err != nil:
			return report, err
		}
		report.Files = append(report.Files, f)
	}
	return report, nil
}

// WriteText writes one line per leak: "FILE: LEAK".
func (r ScanReport) WriteText(w io.Writer) error {
	for _, f := range r.Files {
		for _, l := range f.Leaks {
			if _, err := fmt.Fprintf(w, "%s: %s\n", f.File, l.leak); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteJSON writes the report as one indented JSON document.
func (r ScanReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
