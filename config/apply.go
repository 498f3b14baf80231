package config

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Read finds the config file (see Find), loads it and resolves it against the
// environment: the path read ("" for none) and the settings.
func Read(explicit string, getenv func(string) string, dir string) (string, []Setting, error) {
	path, err := Find(explicit, getenv, dir)
	if err != nil {
		return "", nil, err
	}
	var f *File
	if path != "" {
		if f, err = Load(path); err != nil {
			return "", nil, err
		}
	}
	return path, Resolve(f, path, getenv), nil
}

// A Target is an option of one command that a setting sets: Name is the option's
// name as the caller's flag set knows it; Invert negates a boolean setting (a
// "enabled = false" setting an option that disables).
type Target struct {
	Command, Name string
	Invert        bool
}

// Bindings maps a setting's key to the options it sets. The keys
// "match.methods.*.ignore" and "match.methods.*.match_only" stand for the rules of
// every method; their values reach the option as "METHOD:VALUE". The zero value
// binds nothing. Bindings name no option themselves: the caller's table does.
type Bindings map[string][]Target

const methodsPrefix = "match.methods."

// targets returns the options key sets, and for a per-method key its method.
func (b Bindings) targets(key string) (ts []Target, method string) {
	if rest, ok := strings.CutPrefix(key, methodsPrefix); ok {
		i := strings.LastIndex(rest, ".")
		if i < 0 {
			return nil, ""
		}
		return b[methodsPrefix+"*"+rest[i:]], rest[:i]
	}
	return b[key], ""
}

func (t Target) value(v string) string {
	if !t.Invert {
		return v
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return v // the option refuses it
	}
	return strconv.FormatBool(!b)
}

// values maps an option's values back to the setting's (an inverted option has one).
func (t Target) values(v []string) []string {
	if t.Invert {
		return []string{t.value(v[0])}
	}
	return v
}

// A SettingError is a value an option refused: the setting, where it came from,
// and the option's error.
type SettingError struct {
	Setting Setting
	Err     error
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.Setting.Source, e.Setting.Key, e.Err)
}

func (e *SettingError) Unwrap() error { return e.Err }

// Apply sets the options of command cmd in fs that the settings bind, before the
// command line is parsed, so that an option given there overrides a scalar and
// adds to a list. Every value is set; a value fs refuses is returned as a
// *SettingError (the last one, when several are).
func (b Bindings) Apply(settings []Setting, cmd string, fs *flag.FlagSet) error {
	var last error
	for _, s := range settings {
		ts, method := b.targets(s.Key)
		for _, t := range ts {
			if t.Command != cmd || fs.Lookup(t.Name) == nil {
				continue
			}
			for _, v := range s.Values {
				v = t.value(v)
				if method != "" {
					v = method + ":" + v
				}
				if err := fs.Set(t.Name, v); err != nil {
					last = &SettingError{s, err}
				}
			}
		}
	}
	return last
}

// EnvDefaults returns the environment variables that the file's settings set and
// no binding covers (the drop-in settings a child process reads from its
// environment), by name: the caller sets those its environment leaves unset.
func (b Bindings) EnvDefaults(settings []Setting) map[string]string {
	out := map[string]string{}
	for _, s := range settings {
		for _, sp := range Specs {
			if sp.Key == s.Key && sp.Env != "" && s.Source.Kind == "file" && b[s.Key] == nil {
				out[sp.Env] = s.Values[0]
			}
		}
	}
	return out
}

// A Line is one effective setting: its key as TOML writes it, its values, where
// they came from (Source, "" when only an option sets them) and the option of the
// command line that set them (Option; Added when a list option added to Source's).
type Line struct {
	Key    string
	Values []string
	List   bool
	Source string
	Option string
	Added  bool
}

// Value renders the values as TOML: a list for a list setting, else one scalar.
func (l Line) Value() string {
	q := make([]string, len(l.Values))
	for i, v := range l.Values {
		if _, err := strconv.ParseBool(v); err == nil && !l.List {
			q[i] = v
		} else {
			q[i] = strconv.Quote(v)
		}
	}
	if l.List {
		return "[" + strings.Join(q, ", ") + "]"
	}
	if len(q) == 0 {
		return `""`
	}
	return q[0]
}

// Effective merges the settings with the options given on command cmd's command
// line (given: option name to its values, as parsed): the settings in order, an
// option overriding a scalar or adding to a list, then the options that set what
// the settings leave at its default, by key.
func (b Bindings) Effective(settings []Setting, cmd string, given map[string][]string) []Line {
	given = maps.Clone(given)
	var out []Line
	for _, st := range settings {
		l := Line{Key: displayKey(st.Key), Values: st.Values, List: isList(st.Key), Source: st.Source.String()}
		ts, method := b.targets(st.Key)
		for _, t := range ts {
			v, ok := given[t.Name]
			if !ok || t.Command != cmd {
				continue
			}
			delete(given, t.Name)
			if l.List {
				// A list option adds to what the file or the environment holds
				// (per-method rules: those for this method).
				for _, x := range v {
					if method == "" || strings.HasPrefix(x, method+":") {
						l.Values = append(l.Values, strings.TrimPrefix(x, method+":"))
					}
				}
				l.Option, l.Added = t.Name, true
				continue
			}
			l.Values, l.Source, l.Option, l.Added = t.values(v), "", t.Name, false
		}
		out = append(out, l)
	}
	for _, key := range slices.Sorted(maps.Keys(b)) {
		if strings.HasPrefix(key, methodsPrefix) {
			continue
		}
		for _, t := range b[key] {
			v, ok := given[t.Name]
			if !ok || t.Command != cmd {
				continue
			}
			out = append(out, Line{Key: key, Values: t.values(v), List: isList(key), Option: t.Name})
			delete(given, t.Name)
		}
	}
	return out
}

// isList reports whether a setting holds a list.
func isList(key string) bool {
	if strings.HasPrefix(key, methodsPrefix) {
		return true
	}
	for _, sp := range Specs {
		if sp.Key == key {
			return sp.List
		}
	}
	return false
}

// displayKey quotes the method of a per-method key, as TOML writes it.
func displayKey(key string) string {
	rest, ok := strings.CutPrefix(key, methodsPrefix)
	if !ok {
		return key
	}
	i := strings.LastIndex(rest, ".")
	return methodsPrefix + strconv.Quote(rest[:i]) + rest[i:]
}
