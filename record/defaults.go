package record

import (
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
)

// Defaults describe the pipeline codexrec's record runs: validation against the
// session's Codex version (schema's policy, Classified), sanitizing of the recorded
// copy, and the leak guard before publishing. The zero value is all three, with the
// default secret variables and no path maps; each stage can be turned off.
type Defaults struct {
	Version, SchemaDir string // the schema to validate against (default: the policy's choice)
	NoValidate         bool
	NoSanitize         bool // record frames as they crossed (the guard still runs)
	NoGuard            bool // publish without the final scan
	Sanitize           sanitize.Config
	// Amend, when set, changes the sanitizer's options last (unless NoSanitize): a
	// capture maps its temporary workspace and salts its placeholders.
	Amend func(*sanitize.Options)
}

// Session is a new Session with the stages d describes. Errors are d's settings
// that cannot be used (a *sanitize.SettingError, a bad allow expression).
func (d Defaults) Session() (*Session, error) {
	s := &Session{}
	if !d.NoValidate {
		s.Validator = &schema.SessionValidator{Version: d.Version, Dir: d.SchemaDir, Classified: true}
	}
	c := d.Sanitize
	if d.NoSanitize {
		c.Cwd = "" // no maps: the guard needs only the secrets
	}
	opts, names, err := c.Options()
	if err != nil {
		return nil, err
	}
	if d.Amend != nil && !d.NoSanitize {
		d.Amend(&opts)
	}
	z, err := sanitize.New(opts)
	if err != nil {
		return nil, err
	}
	if !d.NoSanitize {
		s.Sanitizer, s.SecretNames = z, names
	}
	if !d.NoGuard {
		s.Guard = z
	}
	return s, nil
}
