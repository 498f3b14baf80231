package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/schema"
	"github.com/codexrec/codexrec/wire"
)

// irregular are the client requests whose result type is not their params type with
// Params replaced by Response (the protocol source's request definitions): two share
// ConfigWriteResponse, nine take no params at all.
var irregular = []struct{ method, result string }{
	{"config/value/write", "ConfigWriteResponse"},
	{"config/batchWrite", "ConfigWriteResponse"},
	{"memory/reset", "MemoryResetResponse"},
	{"remoteControl/enable", "RemoteControlEnableResponse"},
	{"remoteControl/disable", "RemoteControlDisableResponse"},
	{"remoteControl/status/read", "RemoteControlStatusReadResponse"},
	{"config/mcpServer/reload", "McpServerRefreshResponse"},
	{"windowsSandbox/readiness", "WindowsSandboxReadinessResponse"},
	{"account/logout", "LogoutAccountResponse"},
	{"account/rateLimits/read", "GetAccountRateLimitsResponse"},
	{"configRequirements/read", "ConfigRequirementsReadResponse"},
}

// TestIrregularResultsValidated: each of the irregular methods has its response
// checked against its result type in every embedded version that declares the method:
// a result of the wrong shape is an invalid finding at /result.
func TestIrregularResultsValidated(t *testing.T) {
	checked := map[string]int{}
	for _, version := range schema.Embedded() {
		set, err := schema.Load(version)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range irregular {
			m, ok := set.Method(wire.ClientToServer, wire.KindRequest, tc.method)
			if !ok {
				continue // not in this version: not checked there
			}
			if m.Result != tc.result {
				t.Errorf("codex %s %s: result type %q, want %q", version, tc.method, m.Result, tc.result)
				continue
			}
			params := ""
			if m.Params != "" {
				params = `,"params":{}`
			}
			session := frames(initExp,
				fmt.Sprintf(`c2s {"id":7,"method":%q%s}`, tc.method, params),
				`s2c {"id":7,"result":"not an object"}`)
			got := lastFindings(set, session)
			if fmt.Sprint(got) != "[invalid /result]" {
				t.Errorf("codex %s %s: findings on a string result %v, want [invalid /result]", version, tc.method, got)
			}
			checked[tc.method]++
		}
	}
	for _, tc := range irregular {
		if checked[tc.method] == 0 {
			t.Errorf("%s: no embedded version declares it", tc.method)
		}
	}
	t.Logf("checked in how many versions: %v", checked)
}

// notInTable are requests the embedded binaries declare that the
// protocol source's request definitions in versions/methods.json do not list, and whose
// params type does not name a result: their responses are not checked.
var notInTable = map[string]bool{
	"account/gatewayOAuth/cancel":              true,
	"account/gatewayOAuth/login":               true,
	"account/gatewayOAuth/read":                true,
	"account/securitySetup/read":               true,
	"account/workspaceMessages/read":           true,
	"accountSession/list":                      true,
	"externalAgentConfig/import/readHistories": true,
	"modelProvider/default/set":                true,
	"rollout/compress":                         true,
}

// TestEveryRequestResultChecked: in every embedded version, every request either side
// can send has a result type, so no response goes unchecked, except the few the method
// table does not know (notInTable).
func TestEveryRequestResultChecked(t *testing.T) {
	for _, version := range schema.Embedded() {
		set, err := schema.Load(version)
		if err != nil {
			t.Fatal(err)
		}
		var unchecked []string
		n := 0
		for _, m := range set.Methods() {
			if m.Kind != wire.KindRequest {
				continue
			}
			n++
			if m.Result == "" && !notInTable[m.Name] {
				unchecked = append(unchecked, m.From.String()+" "+m.Name)
			}
		}
		if len(unchecked) > 0 {
			t.Errorf("codex %s: %d of %d requests have no result type: %s", version, len(unchecked), n, strings.Join(unchecked, ", "))
		}
	}
}

// lastFindings returns "rule pointer" of the findings on the session's last frame.
func lastFindings(set *schema.Set, session []wire.Frame) []string {
	v := schema.NewValidator(set)
	var got []string
	for i := range session {
		for _, f := range v.Check(&session[i]) {
			if f.Seq == int64(len(session)) {
				got = append(got, fmt.Sprintf("%s %s", f.Rule, f.Pointer))
			}
		}
	}
	return got
}
