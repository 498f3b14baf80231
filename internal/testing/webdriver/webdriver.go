// Package webdriver drives a headless Chromium through chromedriver's W3C WebDriver
// HTTP API, with the standard library only, for tests of codexrec's HTML pages. It is
// a minimal client (navigate, run a script, find, click, type, screenshot); it does
// not install a browser: Debian's chromium and chromium-driver packages (make chromium).
package webdriver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// ChromeArgs are the flags Chromium runs with: headless, and none of its background
// network traffic (the machine's network is closed and would refuse it).
var ChromeArgs = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
	"--no-first-run", "--disable-background-networking", "--disable-component-update",
	"--disable-sync", "--disable-dev-shm-usage", "--window-size=1280,900"}

// ErrNoBrowser is returned when chromium or chromedriver is not installed.
var ErrNoBrowser = errors.New("webdriver: chromium or chromedriver not installed (make chromium)")

// Find returns the paths of chromium and chromedriver.
func Find() (chromium, driver string, err error) {
	for _, c := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(c); err == nil {
			chromium = p
			break
		}
	}
	driver, _ = exec.LookPath("chromedriver")
	if chromium == "" || driver == "" {
		return "", "", ErrNoBrowser
	}
	return chromium, driver, nil
}

// Session is one browser session.
type Session struct {
	drv  *exec.Cmd
	base string // http://127.0.0.1:PORT/session/ID
	log  bytes.Buffer
}

// StartT starts a browser for t and ends it with t.Cleanup. Without a browser it skips
// t, unless CODEXREC_REQUIRE_CODEX=1 (make test, CI), where it fails.
func StartT(t testing.TB) *Session {
	t.Helper()
	chromium, driver, err := Find()
	if err != nil {
		codextest.Missing(t, "%v", err)
	}
	s, err := Start(chromium, driver, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Log(err)
		}
	})
	return s
}

// Start runs chromedriver and opens a session in chromium with a fresh profile in
// userDataDir.
func Start(chromium, driver, userDataDir string) (*Session, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Session{drv: exec.Command(driver, "--port="+strconv.Itoa(port))}
	s.drv.Stdout, s.drv.Stderr = &s.log, &s.log
	if err := s.drv.Start(); err != nil {
		return nil, fmt.Errorf("webdriver: %w", err)
	}
	root := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(root + "/status")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, fmt.Errorf("webdriver: chromedriver did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	args := append(append([]string{}, ChromeArgs...), "--user-data-dir="+userDataDir)
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName":        "chrome",
		"goog:chromeOptions": map[string]any{"binary": chromium, "args": args},
	}}}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if err := call(http.MethodPost, root+"/session", caps, &created); err != nil {
		s.kill()
		return nil, fmt.Errorf("webdriver: new session: %w (chromedriver said: %s)", err, s.log.String())
	}
	s.base = root + "/session/" + created.SessionID
	return s, nil
}

// Close ends the session and chromedriver.
func (s *Session) Close() error {
	err := call(http.MethodDelete, s.base, nil, nil)
	s.kill()
	return err
}

func (s *Session) kill() {
	s.drv.Process.Kill()
	s.drv.Wait()
}

// Navigate opens url (file:// works) and waits for the page to load.
func (s *Session) Navigate(url string) error {
	return call(http.MethodPost, s.base+"/url", map[string]any{"url": url}, nil)
}

// Exec runs script as a function body with args and decodes its return value into out.
func (s *Session) Exec(out any, script string, args ...any) error {
	if args == nil {
		args = []any{}
	}
	return call(http.MethodPost, s.base+"/execute/sync", map[string]any{"script": script, "args": args}, out)
}

// Element is a reference to an element of the current page.
type Element struct {
	s  *Session
	id string
}

// elementKey is the W3C key of an element reference.
const elementKey = "element-6066-11e4-a52e-4f735466cecf"

// Find returns the first element matching a CSS selector.
func (s *Session) Find(css string) (Element, error) {
	var ref map[string]string
	if err := call(http.MethodPost, s.base+"/element", map[string]any{"using": "css selector", "value": css}, &ref); err != nil {
		return Element{}, fmt.Errorf("find %q: %w", css, err)
	}
	return Element{s, ref[elementKey]}, nil
}

// Click clicks e.
func (e Element) Click() error {
	return call(http.MethodPost, e.s.base+"/element/"+e.id+"/click", map[string]any{}, nil)
}

// Type sends text to e as key presses.
func (e Element) Type(text string) error {
	return call(http.MethodPost, e.s.base+"/element/"+e.id+"/value", map[string]any{"text": text}, nil)
}

// Text is e's rendered text.
func (e Element) Text() (string, error) {
	var s string
	err := call(http.MethodGet, e.s.base+"/element/"+e.id+"/text", nil, &s)
	return s, err
}

// Keys presses keys (WebDriver key codes such as Enter "\uE007" allowed) on whatever
// has the focus.
func (s *Session) Keys(keys string) error {
	var acts []map[string]any
	for _, k := range keys {
		acts = append(acts, map[string]any{"type": "keyDown", "value": string(k)},
			map[string]any{"type": "keyUp", "value": string(k)})
	}
	return call(http.MethodPost, s.base+"/actions", map[string]any{"actions": []any{
		map[string]any{"type": "key", "id": "keyboard", "actions": acts}}}, nil)
}

// Key codes for Keys and Type.
const (
	KeyEnter     = "\uE007"
	KeyEscape    = "\uE00C"
	KeyArrowDown = "\uE015"
	KeyArrowUp   = "\uE013"
)

// Screenshot is a PNG of the viewport.
func (s *Session) Screenshot() ([]byte, error) {
	var b64 string
	if err := call(http.MethodGet, s.base+"/screenshot", nil, &b64); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(b64)
}

// call makes one WebDriver request; out receives the "value" member of the answer.
func call(method, url string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("webdriver: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("webdriver: %w", err)
	}
	var v struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("webdriver: %s %s: %d: %.200s", method, url, resp.StatusCode, raw)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		json.Unmarshal(v.Value, &e)
		return fmt.Errorf("webdriver: %s: %s", e.Error, firstLine(e.Message))
	}
	if out != nil {
		return json.Unmarshal(v.Value, out)
	}
	return nil
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("webdriver: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
