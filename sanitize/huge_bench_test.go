package sanitize_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/codexrec/codexrec/sanitize"
)

// hugeDeltaMB sizes the delta of BenchmarkHugeDelta (HUGE_DELTA_MB, default 32).
func hugeDeltaMB() int {
	if n, err := strconv.Atoi(os.Getenv("HUGE_DELTA_MB")); err == nil && n > 0 {
		return n
	}
	return 32
}

// hugeDelta is one command-output delta of about size bytes with nothing to redact,
// JSON-escaped (\t, \n) as the server sends it: the line of cmd/codexrec's
// BenchmarkHugeLine.
func hugeDelta(size int) []byte {
	var line bytes.Buffer
	line.WriteString(`{"method":"item/commandExecution/outputDelta","params":{"threadId":"01a226fa-5ad0-7210-8202-b6b8e14b6ed2","turnId":"01a226fa-5ba7-7251-a0b2-1479287d987c","itemId":"call_1_1","delta":"`)
	chunk := []byte(`ok  \tgithub.com/example/project/internal/pkg042\t0.042s\tcoverage: 42.1% of statements\n`)
	for line.Len() < size {
		line.Write(chunk)
	}
	line.WriteString(`"},"emittedAtMs":1795950272760}` + "\n")
	return line.Bytes()
}

// BenchmarkHugeDelta measures what one huge clean delta costs each stage that sees it
// whole: the sanitizer as record's tap runs it (alone, and knowing the next delta of
// its stream), and the leak guard over a recording holding it. B/op is the figure to
// watch: a stage that copies the line shows about its size.
func BenchmarkHugeDelta(b *testing.B) {
	line := hugeDelta(hugeDeltaMB() << 20)
	next := []byte(`{"method":"item/commandExecution/outputDelta","params":{"threadId":"01a226fa-5ad0-7210-8202-b6b8e14b6ed2","turnId":"01a226fa-5ba7-7251-a0b2-1479287d987c","itemId":"call_1_1","delta":"done\n"},"emittedAtMs":1795950272761}` + "\n")
	z, err := sanitize.New(sanitize.Options{Salt: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	run := func(name string, op func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for range b.N {
				op(b)
			}
		})
	}
	run("frame", func(b *testing.B) {
		if out, reds := z.FrameClassified(line, true); len(reds) > 0 || &out[0] != &line[0] {
			b.Fatalf("a clean delta changed: %d redactions", len(reds))
		}
	})
	run("frame-lookahead", func(b *testing.B) {
		if out, reds := z.FrameFollowedBy(line, true, next); len(reds) > 0 || &out[0] != &line[0] {
			b.Fatalf("a clean delta changed: %d redactions", len(reds))
		}
	})
	// The change path: the same delta with one secret in its middle, and the
	// command's completed item carrying the whole output with it. It costs the
	// rewritten copy, and the decoded text that the rules read.
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	mid := len(line) / 2
	mid += bytes.Index(line[mid:], []byte(`\n`)) + 2 // where a line of the output starts
	dirtyDelta := append(append(append([]byte(nil), line[:mid]...), "export OPENAI_API_KEY="+secret+`\n`...), line[mid:]...)
	completed := append([]byte(`{"method":"item/completed","params":{"threadId":"t","turnId":"u","item":{"type":"commandExecution","id":"call_1_1","aggregatedOutput":"`),
		dirtyDelta[bytes.Index(dirtyDelta, []byte(`"delta":"`))+9:]...)
	completed = append(bytes.TrimSuffix(completed, []byte(`"},"emittedAtMs":1795950272760}`+"\n")), `"}}}`+"\n"...)
	for _, c := range []struct {
		name string
		line []byte
	}{{"frame-secret", dirtyDelta}, {"completed-secret", completed}} {
		run(c.name, func(b *testing.B) {
			z.ForgetStreams()
			if out, reds := z.FrameFollowedBy(c.line, true, next); len(reds) != 1 || bytes.Contains(out, []byte(secret)) {
				b.Fatalf("%d redactions", len(reds))
			}
		})
	}
	// The recording as record writes it: header, the huge frame, the next one, trailer.
	var rec bytes.Buffer
	rec.WriteString(`{"type":"header","format":1,"codexrec":"0.1.0-dev"}` + "\n")
	for i, l := range [][]byte{line, next} {
		rec.WriteString(`{"type":"frame","seq":` + strconv.Itoa(i+1) + `,"t":0.1,"dir":"s2c","kind":"notification","method":"item/commandExecution/outputDelta","msg":`)
		rec.Write(bytes.TrimSuffix(l, []byte("\n")))
		rec.WriteString("}\n")
	}
	rec.WriteString(`{"type":"trailer","frames":2}` + "\n")
	file := filepath.Join(b.TempDir(), "huge.jsonl")
	if err := os.WriteFile(file, rec.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	run("guard", func(b *testing.B) {
		if redacted, err := z.GuardRedact(file); err != nil || len(redacted) > 0 {
			b.Fatalf("guard on a clean recording: %v, %d redacted", err, len(redacted))
		}
	})
	// The same recording with a secret the sanitizer left in a small frame: the
	// guard's redacting pass, which rewrites the file.
	dirty := bytes.Replace(rec.Bytes(), []byte(`{"type":"trailer"`),
		[]byte(`{"type":"frame","seq":3,"dir":"c2s","msg":{"method":"x","params":{"note":"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"}}}`+"\n"+`{"type":"trailer"`), 1)
	dirtyFile := filepath.Join(b.TempDir(), "dirty.jsonl")
	run("guard-redact", func(b *testing.B) {
		b.StopTimer()
		if err := os.WriteFile(dirtyFile, dirty, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if redacted, err := z.GuardRedact(dirtyFile); err != nil || len(redacted) != 1 {
			b.Fatalf("guard on a recording with one secret: %v, %d redacted", err, len(redacted))
		}
	})
}
