package shim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/codexrec/codexrec/recorder"
)

// Recordings are named so that a later run finds the same one again:
//
//   - NAME.jsonl when a name is given (CODEXREC_NAME, e.g. the test's name); a second
//     session of the same run with the same name is NAME-2.jsonl, then NAME-3.jsonl;
//   - otherwise NNN-METHOD.jsonl: NNN is the session's order within the run (001,
//     002, ...) and METHOD the method of the client's first request with '/' as '-'
//     (001-initialize.jsonl).
//
// Never a timestamp: the same run of the same test suite gives the same names. The
// run is CODEXREC_RUN when set (any text the sessions of one run share), otherwise
// the process that started codex, found by walking up past shells, identified by its
// pid and start time (so a reused pid is another run); a shell reading commands at a
// terminal's prompt ends the walk, so each command typed there (codexrec record -o
// DIR/, then codexrec replay DIR/; or a script, or npm test) is a run of its own. Counting across the separate
// codex processes of one run needs state: DIR/.codexrec-runs.json, updated under the
// lock file DIR/.codexrec-runs.lock; runs idle for a day are forgotten.
//
// Sessions started concurrently by one process, or by several worker processes,
// start in no stable order: give each test its own CODEXREC_NAME then. A session
// whose name another run still going has taken (parallel workers, which count
// separately) is refused with ErrParallelRuns rather than clobbering its recording:
// when both runs are known by their process, the other one is alive and it named a
// session within the last hour.

const (
	stateFile = ".codexrec-runs.json"
	lockFile  = ".codexrec-runs.lock"
	runIdle   = 24 * time.Hour
	lockWait  = 10 * time.Second
	lockStale = 30 * time.Second
	// parallelWindow is how recently another live run must have named a session for
	// it to count as running at the same time.
	parallelWindow = time.Hour
)

// Namer names the recordings of one directory.
type Namer struct {
	Dir  string // where the recordings are
	Run  string // the run's key (RunKey)
	Name string // the name given (CODEXREC_NAME), or ""
	// Now is the clock for forgetting idle runs; nil is time.Now.
	Now func() time.Time
}

type runState struct {
	Sessions int            `json:"sessions"`
	Names    map[string]int `json:"names,omitempty"`
	Given    []string       `json:"given,omitempty"` // the names handed out, in order
	Touched  int64          `json:"touched"`         // unix seconds
}

// ErrParallelRuns: another run, still going, has a session of the same name in the
// same directory: runs in parallel processes (test workers) have no stable order.
var ErrParallelRuns = errors.New("sessions of parallel processes have no stable names")

// Next returns the path of the run's next session, whose first request has method
// (empty when it sent none).
func (n *Namer) Next(method string) (string, error) {
	base := ""
	if n.Name != "" {
		base = CleanName(n.Name)
		if base == "" {
			return "", fmt.Errorf("name %q has nothing usable in a file name", n.Name)
		}
	}
	if err := os.MkdirAll(n.Dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(n.Dir, lockFile))
	if err != nil {
		return "", err
	}
	defer unlock()
	states := map[string]*runState{}
	statePath := filepath.Join(n.Dir, stateFile)
	if b, err := os.ReadFile(statePath); err == nil {
		if err := json.Unmarshal(b, &states); err != nil {
			return "", fmt.Errorf("%s: %w (delete it to start counting afresh)", statePath, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	now := time.Now
	if n.Now != nil {
		now = n.Now
	}
	t := now()
	for k, s := range states {
		if t.Sub(time.Unix(s.Touched, 0)) > runIdle {
			delete(states, k)
		}
	}
	s := states[n.Run]
	if s == nil {
		s = &runState{}
		states[n.Run] = s
	}
	s.Touched = t.Unix()
	var name string
	if base != "" {
		if s.Names == nil {
			s.Names = map[string]int{}
		}
		s.Names[base]++
		name = base
		if k := s.Names[base]; k > 1 {
			name = fmt.Sprintf("%s-%d", base, k)
		}
	} else {
		s.Sessions++
		m := strings.ReplaceAll(method, "/", "-")
		if m = CleanName(m); m == "" {
			m = "session"
		}
		name = fmt.Sprintf("%03d-%s", s.Sessions, m)
	}
	for k, other := range states {
		// Only runs known by their process can be checked; a CODEXREC_RUN is the
		// user's word on what one run is.
		if k == n.Run || !isProcessKey(n.Run) || t.Sub(time.Unix(other.Touched, 0)) > parallelWindow {
			continue
		}
		if slices.Contains(other.Given, name) && processAlive(k) {
			return "", fmt.Errorf("%s is also the name of a session of %s, running at the same time: %w; give each test its own CODEXREC_NAME, or run them one process at a time",
				filepath.Join(n.Dir, name+".jsonl"), k, ErrParallelRuns)
		}
	}
	s.Given = append(s.Given, name)
	b, err := json.MarshalIndent(states, "", "  ")
	if err != nil {
		return "", err
	}
	// 0600 (it names the sessions), through a temporary file, never through a link.
	if err := recorder.WriteFile(statePath, true, 0o600, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	}); err != nil {
		return "", err
	}
	return filepath.Join(n.Dir, name+".jsonl"), nil
}

// CleanName makes s usable as a file name: every character but letters, digits,
// '.', '_' and '-' becomes '_' ("TestTurn/approval" is "TestTurn_approval"); a name
// of dots only is "".
func CleanName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if strings.Trim(string(b), ".") == "" {
		return ""
	}
	return string(b)
}

// lock takes the lock file by creating it; a lock older than lockStale is taken
// over (its holder died).
func lock(path string) (func(), error) {
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > lockStale {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another session for over %v (delete it if no codex is running)", path, lockWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// RunKey is the key of the run this process belongs to: CODEXREC_RUN when set,
// otherwise the first ancestor that is not a shell, or, when a shell at a
// terminal's prompt comes first, the command typed at it (see the naming rule).
func RunKey(getenv func(string) string) string {
	if r := getenv("CODEXREC_RUN"); r != "" {
		return "run:" + r
	}
	below, pid := os.Getpid(), os.Getppid()
	for i := 0; i < 8; i++ {
		comm, ppid, start, ok := procStat(pid)
		if !ok {
			break
		}
		if isShell(comm) && ppid > 1 && atPrompt(pid) {
			if _, _, bstart, ok := procStat(below); ok {
				return "process:" + strconv.Itoa(below) + ":" + bstart
			}
		}
		if !isShell(comm) || ppid <= 1 {
			return "process:" + strconv.Itoa(pid) + ":" + start
		}
		below, pid = pid, ppid
	}
	return "process:" + strconv.Itoa(pid)
}

// atPrompt reports whether the shell pid reads commands from a terminal: no script
// operand, no -c, and its standard input a terminal. Each command typed at it is a
// run of its own.
func atPrompt(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	for _, a := range args[1:] {
		if a == "-c" || !strings.HasPrefix(a, "-") {
			return false
		}
	}
	tty, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/0")
	return err == nil && (strings.HasPrefix(tty, "/dev/pts/") || strings.HasPrefix(tty, "/dev/tty"))
}

func isProcessKey(key string) bool { return strings.HasPrefix(key, "process:") }

// processAlive reports whether a run key names a process that is still running
// (the same pid with the same start time); keys it cannot check count as ended.
func processAlive(key string) bool {
	f := strings.Split(key, ":")
	if len(f) != 3 || f[0] != "process" {
		return false
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		return false
	}
	_, _, start, ok := procStat(pid)
	return ok && start == f[2]
}

func isShell(comm string) bool {
	switch comm {
	case "sh", "bash", "dash", "zsh", "ash", "ksh", "mksh", "busybox", "fish":
		return true
	}
	return false
}

// procStat reads a process's command name, parent and start time from /proc
// (Linux); ok is false elsewhere.
func procStat(pid int) (comm string, ppid int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, "", false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, "", false
	}
	comm = s[open+1 : end]
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state); ppid is field 4, starttime field 22.
	if len(f) < 20 {
		return "", 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return "", 0, "", false
	}
	return comm, ppid, f[19], true
}
