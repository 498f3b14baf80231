package recorder_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

func notification(seq int64, dir wire.Direction, text string) *wire.Frame {
	f := &wire.Frame{Seq: seq, Dir: dir, Line: []byte(fmt.Sprintf(`{"method":"n","params":{"text":%q}}`+"\n", text))}
	f.Msg = wire.Classify(f.Line)
	return f
}

// A file created at the target while the session ran is never replaced: the
// recording goes to the first free name beside it and the error says where.
func TestPublishDoesNotClobber(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl")
	w, err := recorder.Create(path, recorder.Header{}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFrame(notification(1, wire.ClientToServer, "mine")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("theirs"), 0o600)
	os.WriteFile(filepath.Join(dir, "rec.2.jsonl"), []byte("also theirs"), 0o600)
	err = w.Close(recorder.Trailer{Ended: recorder.EndClientEOF})
	var kept *recorder.KeptElsewhereError
	if !errors.As(err, &kept) || !errors.Is(err, recorder.ErrExists) {
		t.Fatalf("Close = %v, want a KeptElsewhereError wrapping ErrExists", err)
	}
	want := filepath.Join(dir, "rec.3.jsonl")
	if kept.Path != want || w.PublishedPath() != want || !strings.Contains(err.Error(), want) {
		t.Fatalf("kept at %q (published %q), err %q; want %s named", kept.Path, w.PublishedPath(), err, want)
	}
	if b, _ := os.ReadFile(path); string(b) != "theirs" {
		t.Errorf("the file that appeared was replaced: %q", b)
	}
	rec, err := recorder.ReadFile(want)
	if err != nil || rec.Trailer == nil || len(rec.Frames()) != 1 {
		t.Fatalf("kept recording: %v %+v", err, rec)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("files: %v, want the two others and the recording", ents)
	}
}

func TestCreateChecksTarget(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	tests := []struct {
		name, path string
		force      bool
		want       string
		is         error
	}{
		{"missing directory", filepath.Join(dir, "nope", "r.jsonl"), false, "directory " + filepath.Join(dir, "nope") + " does not exist", nil},
		{"parent is a file", filepath.Join(file, "r.jsonl"), false, file + " is not a directory", nil},
		{"directory target", sub, true, "it is a directory", recorder.ErrNotReplaceable},
		{"directory target without force", sub, false, "it is a directory", recorder.ErrNotReplaceable},
		{"existing file", file, false, "already exists", recorder.ErrExists},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct {
			name, path string
			force      bool
			want       string
			is         error
		}{"device", "/dev/null", true, "it is a device", recorder.ErrNotReplaceable})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := recorder.Create(tt.path, recorder.Header{}, recorder.Options{Force: tt.force})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), ".tmp") {
				t.Fatalf("err = %v, want it to say %q (and no temp file)", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
		})
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Error("directory target changed")
	}
}

func TestCreateReadOnlyDirectory(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a directory the user cannot write to")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o500)
	_, err := recorder.Create(filepath.Join(dir, "r.jsonl"), recorder.Header{}, recorder.Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot create files in directory "+dir) || strings.Contains(err.Error(), ".tmp") {
		t.Fatalf("err = %v", err)
	}
}

// --force replaces a symbolic link, never the file it points to.
func TestForceReplacesSymlinkNotTarget(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "precious")
	os.WriteFile(elsewhere, []byte("precious"), 0o600)
	path := filepath.Join(dir, "r.jsonl")
	if err := os.Symlink(elsewhere, path); err != nil {
		t.Skip(err)
	}
	w, err := recorder.Create(path, recorder.Header{}, recorder.Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(elsewhere); string(b) != "precious" {
		t.Error("the link's target was overwritten")
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("target is %v, %v; want the recording as a regular file", fi.Mode(), err)
	}
}

// A directory made at the target during a --force session is not replaced either.
func TestForceKeepsDirectoryThatAppeared(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	w, err := recorder.Create(path, recorder.Header{}, recorder.Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(path, 0o700)
	err = w.Close(recorder.Trailer{Ended: recorder.EndClientEOF})
	var kept *recorder.KeptElsewhereError
	if !errors.As(err, &kept) || !errors.Is(err, recorder.ErrNotReplaceable) {
		t.Fatalf("Close = %v", err)
	}
	if _, err := recorder.ReadFile(kept.Path); err != nil {
		t.Fatal(err)
	}
}

// A write error (a full disk) keeps every entry written whole, closed with a
// trailer that counts exactly those, and Close says where the recording is.
func TestWriteErrorKeepsRecording(t *testing.T) {
	for _, limit := range []int64{0, 300, 5000, 300_000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			w, err := recorder.Create(path, recorder.Header{}, recorder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			recorder.FailWritesAfter(w, limit, syscall.ENOSPC)
			var werr error
			for i := int64(1); i <= 200 && werr == nil; i++ {
				werr = w.WriteFrame(notification(i, wire.ServerToClient, strings.Repeat("x", int(i*i))))
				if werr == nil && i%7 == 0 {
					werr = w.Flush()
				}
			}
			if !errors.Is(werr, syscall.ENOSPC) {
				t.Fatalf("write error %v, want ENOSPC", werr)
			}
			err = w.Close(recorder.Trailer{Ended: recorder.EndClientEOF})
			if !errors.Is(err, recorder.ErrCutShort) || !strings.Contains(err.Error(), "is at "+path) {
				t.Fatalf("Close = %v", err)
			}
			rec, err := recorder.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Problems) != 0 {
				t.Errorf("problems %v", rec.Problems)
			}
			tr := rec.Trailer
			if tr == nil || tr.Ended != recorder.EndError || !strings.Contains(tr.Error, "no space left") {
				t.Fatalf("trailer %+v", tr)
			}
			frames := rec.Frames()
			if tr.Frames["s2c"] != int64(len(frames)) {
				t.Errorf("trailer counts %d frames, file holds %d", tr.Frames["s2c"], len(frames))
			}
			for i, f := range frames {
				if f.Seq != int64(i+1) {
					t.Fatalf("frame %d has seq %d", i, f.Seq)
				}
			}
		})
	}
}

// A killed writer leaves a temporary file; Recover completes it with a trailer and
// publishes it, dropping a last line cut short.
func TestRecover(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	w, err := recorder.Create(path, recorder.Header{}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		w.WriteFrame(notification(i, wire.ClientToServer, "hi"))
	}
	tmp := w.TempPath()
	if orphans := recorder.Orphans(path); len(orphans) != 0 {
		t.Fatalf("a live writer's file listed as orphaned: %v", orphans)
	}
	if _, _, err := recorder.Recover(tmp, path, recorder.RecoverOptions{}); !errors.Is(err, recorder.ErrInProgress) && runtime.GOOS == "linux" {
		t.Fatalf("Recover of a live writer's file: %v", err)
	}
	if err := recorder.Crash(w); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(tmp, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"frame","seq":4,"dir":"c2s","kind":"notif`)
	f.Close()
	if orphans := recorder.Orphans(path); runtime.GOOS == "linux" && (len(orphans) != 1 || orphans[0] != tmp) {
		t.Fatalf("orphans %v, want %s", orphans, tmp)
	}
	if got := recorder.TargetOf(tmp); got != path {
		t.Fatalf("TargetOf(%s) = %s", tmp, got)
	}
	where, tr, err := recorder.Recover(tmp, path, recorder.RecoverOptions{})
	if err != nil || where != path {
		t.Fatalf("Recover = %s, %v", where, err)
	}
	if tr.Ended != recorder.EndProxyKilled || tr.Frames["c2s"] != 3 {
		t.Errorf("trailer %+v", tr)
	}
	rec, err := recorder.ReadFile(path)
	if err != nil || len(rec.Problems) != 0 || rec.Trailer == nil || rec.Trailer.Ended != recorder.EndProxyKilled {
		t.Fatalf("recovered: %v %+v", err, rec)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Error("temporary file left behind")
	}
}

// Killed between link(2) and removing the temporary name: the recording is
// published; the leftover name is no orphan, and Recover just removes it.
func TestLeftoverTemporaryName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	w, err := recorder.Create(path, recorder.Header{}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tmp := w.TempPath()
	if err := recorder.Crash(w); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(tmp, path); err != nil {
		t.Skip(err)
	}
	if o := recorder.Orphans(path); len(o) != 0 {
		t.Errorf("orphans %v", o)
	}
	where, tr, err := recorder.Recover(tmp, path, recorder.RecoverOptions{})
	if err != nil || where != path || tr != nil {
		t.Fatalf("Recover = %s %v %v", where, tr, err)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Error("leftover name not removed")
	}
}
