// Package hostile builds recordings shaped to make readers do too much work: a
// message nested 100k levels deep, a line of 50 MB. Benchmarks of every reader use
// them to show that work stays linear in the input. It writes test inputs only.
package hostile

import (
	"bytes"
	"strconv"
)

const header = `{"type":"header","format":1,"codexrec":"hostile"}` + "\n"

// NestedArrays is a JSON value depth arrays deep, [[[...]]]: two bytes a level, so
// 10 million levels in 20 MB.
func NestedArrays(depth int) []byte {
	b := bytes.Repeat([]byte("["), depth)
	return append(b, bytes.Repeat([]byte("]"), depth)...)
}

// Nested is a JSON value depth objects deep, {"a":{"a":...leaf...}}.
func Nested(depth int, leaf string) []byte {
	var b bytes.Buffer
	b.Grow(depth*6 + len(leaf))
	for range depth {
		b.WriteString(`{"a":`)
	}
	b.WriteString(leaf)
	for range depth {
		b.WriteByte('}')
	}
	return b.Bytes()
}

// frame is one s2c notification frame line whose params are params.
func frame(seq int, method string, params []byte) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"frame","seq":`)
	b.WriteString(strconv.Itoa(seq))
	b.WriteString(`,"t":0.1,"dir":"s2c","kind":"notification","method":"` + method + `","msg":{"method":"` + method + `","params":`)
	b.Write(params)
	b.WriteString("}}\n")
	return b.Bytes()
}

func trailer(s2c int) string {
	return `{"type":"trailer","ended":"client-eof","exitCode":0,"duration":1,"frames":{"c2s":0,"s2c":` +
		strconv.Itoa(s2c) + `,"stderr":0}}` + "\n"
}

// DeepRecording is a recording of one frame whose params are nested depth levels
// deep, ending in leaf (two recordings with different leaves differ only there).
func DeepRecording(depth int, leaf string) []byte {
	return append(append([]byte(header), frame(1, "item/deep", Nested(depth, leaf))...), trailer(1)...)
}

// DeepArrayRecording is a recording of one frame whose params are depth arrays
// deep (far beyond what any parser should recurse into).
func DeepArrayRecording(depth int) []byte {
	return append(append([]byte(header), frame(1, "item/deep", NestedArrays(depth))...), trailer(1)...)
}

// HugeLineRecording is a recording of one agent message delta of size bytes of text.
func HugeLineRecording(size int) []byte {
	params := make([]byte, 0, size+100)
	params = append(params, `{"threadId":"t","turnId":"u","itemId":"i","delta":"`...)
	params = append(params, bytes.Repeat([]byte("lorem ipsum "), size/12+1)[:size]...)
	params = append(params, `"}`...)
	return append(append([]byte(header), frame(1, "item/agentMessage/delta", params)...), trailer(1)...)
}

// Case is one hostile recording.
type Case struct {
	Name string
	Rec  []byte
}

// Readers are the recordings every reader's benchmark reads: a message nested 100k
// levels deep, arrays nested 10M deep (past the readers' depth limit) and a 50 MB
// line. Work on each must stay linear in its size.
func Readers() []Case {
	return []Case{
		{"deep-100k", DeepRecording(100_000, "1")},
		{"deep-10M", DeepArrayRecording(10_000_000)},
		{"line-50MB", HugeLineRecording(50 << 20)},
	}
}

// DeltasRecording is one agent message item streamed as n deltas of size bytes
// each (a long answer): a reader that keeps the text so far per delta goes
// quadratic.
func DeltasRecording(n, size int) []byte {
	text := bytes.Repeat([]byte("word "), size/5+1)[:size]
	params := []byte(`{"threadId":"t","turnId":"u","itemId":"i","delta":"` + string(text) + `"}`)
	var b bytes.Buffer
	b.Grow(n * (len(params) + 150))
	b.WriteString(header)
	for i := range n {
		b.Write(frame(i+1, "item/agentMessage/delta", params))
	}
	b.WriteString(trailer(n))
	return b.Bytes()
}

// FramesRecording is n small notification frames.
func FramesRecording(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 200)
	b.WriteString(header)
	for i := range n {
		b.Write(frame(i+1, "thread/tokenUsage/updated", []byte(`{"threadId":"t","turnId":"u","tokenUsage":{"total":`+strconv.Itoa(i)+`}}`)))
	}
	b.WriteString(trailer(n))
	return b.Bytes()
}
