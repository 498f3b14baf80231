module github.com/codexrec/codexrec

go 1.26.0

require (
	github.com/coder/websocket v1.8.15
	github.com/gorilla/websocket v1.5.3
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/sourcegraph/jsonrpc2 v0.2.3
	github.com/tidwall/gjson v1.20.2
	go.opentelemetry.io/proto/otlp v1.11.1
	golang.org/x/text v0.42.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
)
