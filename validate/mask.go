package validate

import (
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
)

// Printable is f with every text that came from the wire masked, for printing: what
// validate and record's validation summary print (method names, pointers, reasons) may
// come from a recording made unsanitized, or from a live session before its
// sanitize stage; stdout and stderr must not carry secrets.
func Printable(f schema.Finding) schema.Finding {
	f.Method, f.Pointer, f.Reason = sanitize.MaskText(f.Method), sanitize.MaskText(f.Pointer), sanitize.MaskText(f.Reason)
	return f
}
