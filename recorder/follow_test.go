package recorder_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexrec/codexrec/recorder"
)

// TestFollowWaitsForRecording: Follow waits for a recording that does not exist
// yet (saying so once), then reads the published file to its end.
func TestFollowWaitsForRecording(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "fixtures", "hermetic", "0.171.0", "plain.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	waiting := 0
	go func() {
		time.Sleep(50 * time.Millisecond)
		os.WriteFile(path+".part", src, 0o600)
		os.Rename(path+".part", path)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := recorder.Follow(ctx, path, recorder.FollowOptions{Poll: 5 * time.Millisecond, Waiting: func() { waiting++ }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || string(got) != string(src) {
		t.Errorf("read %d bytes (%v), want the %d of the recording", len(got), err, len(src))
	}
	if waiting != 1 {
		t.Errorf("Waiting called %d times, want 1", waiting)
	}
}

// TestFollowContext: a follower waiting for a recording that never comes ends with
// its context.
func TestFollowContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := recorder.Follow(ctx, filepath.Join(t.TempDir(), "never.jsonl"), recorder.FollowOptions{Poll: time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v, want the context's deadline", err)
	}
}
