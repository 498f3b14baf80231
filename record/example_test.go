package record_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
)

// A Go test records a session in-process, with no binary: the server here is a
// replay of a committed capture served on pipes (any io pair works; Session.Run
// does the same for an exec.Cmd), the client a few lines of JSON-RPC. The recording
// is validated against the session's Codex version and sanitized on the way.
func Example() {
	sc, err := replay.LoadFile("../fixtures/hermetic/0.171.0/plain.jsonl", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	toServer, serverIn := io.Pipe()
	serverOut, fromServer := io.Pipe()
	go func() {
		(&replay.Server{Script: sc}).Serve(context.Background(), toServer, fromServer)
		fromServer.Close()
	}()

	// record.Defaults is the pipeline codexrec record runs: validation against the
	// session's Codex version, sanitizing (the default secret variables), the leak
	// guard before publishing. Each stage can be turned off, or set by hand on a
	// Session.
	s, err := record.Defaults{}.Session()
	if err != nil {
		fmt.Println(err)
		return
	}
	path := filepath.Join(os.TempDir(), "codexrec-example.jsonl")
	if err := s.Create(path, recorder.Header{Command: []string{"in-process replay"}}, recorder.Options{Force: true}); err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(path)

	clientIn, proxyOut := io.Pipe() // what the client reads
	proxyIn, clientOut := io.Pipe() // what the client writes
	done := make(chan record.Result, 1)
	go func() {
		res, err := s.Serve(nil, proxy.Server{In: serverIn, Out: serverOut}, proxyIn, proxyOut)
		if err != nil {
			fmt.Println("record:", err)
		}
		proxyOut.Close()
		done <- res
	}()

	in := bufio.NewReader(clientIn)
	send := func(line string) { io.WriteString(clientOut, line+"\n") }
	until := func(stop func(gjson.Result) bool) gjson.Result {
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return gjson.Result{}
			}
			if m := gjson.Parse(line); stop(m) {
				return m
			}
		}
	}
	answer := func(id string) func(gjson.Result) bool {
		return func(m gjson.Result) bool { return m.Get("id").Raw == id && !m.Get("method").Exists() }
	}
	send(`{"id":0,"method":"initialize","params":{"clientInfo":{"name":"codexrec-capture","title":"codexrec capture","version":"1"}}}`)
	until(answer(`0`))
	send(`{"method":"initialized"}`)
	send(`{"id":1,"method":"thread/start","params":{"approvalPolicy":"never","cwd":"/home/me/project","sandbox":"read-only"}}`)
	thread := until(answer(`1`)).Get("result.thread.id").Str
	send(`{"id":2,"method":"turn/start","params":{"threadId":"` + thread + `","input":[{"type":"text","text":"Say hello to codexrec."}]}}`)
	until(func(m gjson.Result) bool { return m.Get("method").Str == "turn/completed" })
	go io.Copy(io.Discard, in)
	clientOut.Close()

	res := <-done
	fmt.Println("ended:", res.Trailer.Ended)
	fmt.Println("client frames:", res.Trailer.Frames["c2s"])
	fmt.Println("schema:", s.Report().Schema.Schema, "findings:", len(s.Report().Findings))
	rec, err := recorder.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("recorded codex:", rec.Header.CodexVersion)
	// Output:
	// ended: client-eof
	// client frames: 4
	// schema: 0.171.0 findings: 0
	// recorded codex: 0.171.0
}
