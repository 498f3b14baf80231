//go:build codexrec_deps

package codexrectest

// Binary builds the codexrec command inside the user's module, which then needs
// every module the command imports in its go.sum. go mod tidy considers every build
// tag, so these imports (never compiled: nothing sets the tag) put them there.
import (
	_ "github.com/codexrec/codexrec/check"
	_ "github.com/codexrec/codexrec/config"
	_ "github.com/codexrec/codexrec/diff"
	_ "github.com/codexrec/codexrec/dropin"
	_ "github.com/codexrec/codexrec/export"
	_ "github.com/codexrec/codexrec/extend"
	_ "github.com/codexrec/codexrec/fixtures"
	_ "github.com/codexrec/codexrec/fixtures/derive"
	_ "github.com/codexrec/codexrec/fixtures/mcpserver"
	_ "github.com/codexrec/codexrec/internal/cli"
	_ "github.com/codexrec/codexrec/internal/codexbin"
	_ "github.com/codexrec/codexrec/internal/termtext"
	_ "github.com/codexrec/codexrec/proxy"
	_ "github.com/codexrec/codexrec/record"
	_ "github.com/codexrec/codexrec/recorder"
	_ "github.com/codexrec/codexrec/replay"
	_ "github.com/codexrec/codexrec/sanitize"
	_ "github.com/codexrec/codexrec/schema"
	_ "github.com/codexrec/codexrec/serve"
	_ "github.com/codexrec/codexrec/setting"
	_ "github.com/codexrec/codexrec/shim"
	_ "github.com/codexrec/codexrec/stale"
	_ "github.com/codexrec/codexrec/upgrade"
	_ "github.com/codexrec/codexrec/validate"
	_ "github.com/codexrec/codexrec/view"
	_ "github.com/codexrec/codexrec/wsproxy"
	_ "github.com/codexrec/codexrec/wsrecord"
	_ "github.com/codexrec/codexrec/wsreplay"
)
