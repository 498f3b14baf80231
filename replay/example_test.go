package replay_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/replay"
)

// A client's Go test starts the replay in-process, on pipes, in place of
// `codex app-server`, and talks to it as it would to the real server: here a
// handshake, a thread and one turn of a committed capture.
func Example() {
	sc, err := replay.LoadFile("../fixtures/hermetic/0.171.0/plain.jsonl", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	srv := &replay.Server{Script: sc, Log: os.Stdout}
	done := make(chan error, 1)
	go func() {
		done <- srv.Serve(context.Background(), toServer, fromServer)
		fromServer.Close()
	}()

	in := bufio.NewReader(clientIn)
	send := func(line string) { io.WriteString(clientOut, line+"\n") }
	// until reads server lines up to the first one for which stop is true.
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

	send(`{"id":"init","method":"initialize","params":{"clientInfo":{"name":"codexrec-capture","title":"codexrec capture","version":"1"}}}`)
	fmt.Println("initialize answered id", until(answer(`"init"`)).Get("id").Raw)
	send(`{"method":"initialized"}`)
	send(`{"id":1,"method":"thread/start","params":{"approvalPolicy":"never","cwd":"/home/me/project","sandbox":"read-only"}}`)
	thread := until(answer(`1`)).Get("result.thread")
	fmt.Println("thread cwd:", thread.Get("cwd").Str)
	send(`{"id":2,"method":"turn/start","params":{"threadId":"` + thread.Get("id").Str + `","input":[{"type":"text","text":"Say hello to codexrec."}]}}`)
	reply := until(func(m gjson.Result) bool {
		return m.Get("method").Str == "item/completed" && m.Get("params.item.type").Str == "agentMessage"
	})
	fmt.Println("agent:", reply.Get("params.item.text").Str)
	fmt.Println("turn:", until(func(m gjson.Result) bool { return m.Get("method").Str == "turn/completed" }).Get("params.turn.status").Str)

	go io.Copy(io.Discard, in) // whatever the server sends after turn/completed
	clientOut.Close()          // the client is done: Serve checks that every recorded message came
	fmt.Println("Serve:", <-done)
	// Output:
	// initialize answered id "init"
	// thread cwd: /home/me/project
	// agent: Hello, codexrec! This reply was streamed by a scripted fake model.
	// turn: completed
	// Serve: <nil>
}
