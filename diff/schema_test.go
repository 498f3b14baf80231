package diff_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/schema"
)

// schemaSpec describes a hand-made schema set: one client request (thing/do, params
// DoParams), one server request, one server notification (thing/changed, params
// ChangedNotification) and the initialized notification, plus extras.
type schemaSpec struct {
	props    string   // JSON properties of both DoParams and ChangedNotification
	required []string // their required names
	defs     string   // extra definitions (JSON object members)
	// Extra methods, without params.
	clientRequests, clientNotifications, serverRequests, serverNotifications []string
}

func variant(method string, params string, withID bool) map[string]any {
	props := map[string]any{"method": map[string]any{"enum": []string{method}, "type": "string", "title": method + "Method"}}
	req := []string{"method"}
	if withID {
		props["id"] = map[string]any{"$ref": "#/definitions/RequestId"}
		req = append(req, "id")
	}
	if params != "" {
		props["params"] = map[string]any{"$ref": "#/definitions/" + params}
		req = append(req, "params")
	}
	return map[string]any{"type": "object", "properties": props, "required": req}
}

// writeSchemaSet writes spec as a folder laid out like generate-json-schema's output.
func writeSchemaSet(t *testing.T, dir string, spec schemaSpec) {
	t.Helper()
	var props, defs map[string]any
	if err := json.Unmarshal([]byte("{"+spec.props+"}"), &props); err != nil {
		t.Fatalf("props: %v", err)
	}
	if err := json.Unmarshal([]byte("{"+spec.defs+"}"), &defs); err != nil {
		t.Fatalf("defs: %v", err)
	}
	obj := map[string]any{"type": "object", "properties": props, "required": append([]string{}, spec.required...)}
	common := map[string]any{"RequestId": map[string]any{"type": []string{"string", "integer"}}}
	for k, v := range defs {
		common[k] = v
	}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range common {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	union := func(fixed map[string]any, extra []string, withID bool) []any {
		out := []any{fixed}
		for _, m := range extra {
			out = append(out, variant(m, "", withID))
		}
		return out
	}
	files := map[string]any{
		"ClientRequest.json": map[string]any{"oneOf": union(variant("thing/do", "DoParams", true), spec.clientRequests, true),
			"definitions": with(map[string]any{"DoParams": obj})},
		"ClientNotification.json": map[string]any{"oneOf": union(variant("initialized", "", false), spec.clientNotifications, false)},
		"ServerRequest.json": map[string]any{"oneOf": union(variant("approval/ask", "AskParams", true), spec.serverRequests, true),
			"definitions": with(map[string]any{"AskParams": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}})},
		"ServerNotification.json": map[string]any{"oneOf": union(variant("thing/changed", "ChangedNotification", false), spec.serverNotifications, false),
			"definitions": with(map[string]any{"ChangedNotification": obj})},
		"DoResponse.json":  map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}},
		"AskResponse.json": map[string]any{"type": "object", "properties": map[string]any{"decision": map[string]any{"type": "string"}}},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, doc := range files {
		b, _ := json.MarshalIndent(doc, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func loadSpec(t *testing.T, dir, name string, spec schemaSpec) *diff.SchemaSet {
	t.Helper()
	p := filepath.Join(dir, name)
	writeSchemaSet(t, p, spec)
	set, err := schema.LoadDir(p, "")
	if err != nil {
		t.Fatal(err)
	}
	ss, err := diff.LoadSchemaSet(set, false, name)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

const thingDefs = `"Thing":{"type":"object","properties":{"x":{"type":"string"}}},"Thing2":{"type":"object","properties":{"x":{"type":"string"}}}`

// schemaCases are hand-made pairs, one per kind of change. Each field change is made
// both in what the client sends (DoParams) and in what the server sends
// (ChangedNotification), so each case shows the request-* and the response-* rule.
var schemaCases = []struct {
	name     string
	old, new schemaSpec
	want     []string // exactly the rules reported
}{
	{"field-removed", schemaSpec{props: `"a":{"type":"string"}`}, schemaSpec{props: ``},
		[]string{"request-field-removed", "response-field-removed"}},
	{"required-field-removed", schemaSpec{props: `"a":{"type":"string"}`, required: []string{"a"}}, schemaSpec{},
		[]string{"request-required-field-removed", "response-required-field-removed"}},
	{"field-added", schemaSpec{}, schemaSpec{props: `"a":{"type":"string"}`},
		[]string{"request-field-added", "response-field-added"}},
	{"required-field-added", schemaSpec{}, schemaSpec{props: `"a":{"type":"string"}`, required: []string{"a"}},
		[]string{"request-required-field-added", "response-required-field-added"}},
	{"field-now-required", schemaSpec{props: `"a":{"type":"string"}`}, schemaSpec{props: `"a":{"type":"string"}`, required: []string{"a"}},
		[]string{"request-field-now-required", "response-field-now-required"}},
	{"field-now-optional", schemaSpec{props: `"a":{"type":"string"}`, required: []string{"a"}}, schemaSpec{props: `"a":{"type":"string"}`},
		[]string{"request-field-now-optional", "response-field-now-optional"}},
	{"nullable-added", schemaSpec{props: `"a":{"type":"string"}`}, schemaSpec{props: `"a":{"type":["string","null"]}`},
		[]string{"request-nullable-added", "response-nullable-added"}},
	{"nullable-removed (anyOf with null)", schemaSpec{props: `"a":{"anyOf":[{"$ref":"#/definitions/Thing"},{"type":"null"}]}`, defs: thingDefs},
		schemaSpec{props: `"a":{"$ref":"#/definitions/Thing"}`, defs: thingDefs},
		[]string{"request-nullable-removed", "response-nullable-removed"}},
	{"type-widened", schemaSpec{props: `"a":{"type":"integer"}`}, schemaSpec{props: `"a":{"type":["integer","string"]}`},
		[]string{"request-type-widened", "response-type-widened"}},
	{"type-narrowed", schemaSpec{props: `"a":{"type":["string","integer"]}`}, schemaSpec{props: `"a":{"type":"integer"}`},
		[]string{"request-type-narrowed", "response-type-narrowed"}},
	{"type-changed", schemaSpec{props: `"a":{"type":"integer"}`}, schemaSpec{props: `"a":{"type":"string"}`},
		[]string{"request-type-changed", "response-type-changed"}},
	{"enum-value-added", schemaSpec{props: `"a":{"type":"string","enum":["x"]}`}, schemaSpec{props: `"a":{"type":"string","enum":["y","x"]}`},
		[]string{"request-enum-value-added", "response-enum-value-added"}},
	{"enum-value-removed (across enum groups)", schemaSpec{props: `"a":{"oneOf":[{"type":"string","enum":["x","y"]},{"type":"string","enum":["z"],"description":"z is special"}]}`},
		schemaSpec{props: `"a":{"oneOf":[{"type":"string","enum":["x"]},{"type":"string","enum":["z"]}]}`},
		[]string{"request-enum-value-removed", "response-enum-value-removed"}},
	{"variant-added", schemaSpec{props: `"a":{"oneOf":[{"type":"object","properties":{"type":{"type":"string","enum":["one"]}}}]}`},
		schemaSpec{props: `"a":{"oneOf":[{"type":"object","properties":{"type":{"type":"string","enum":["two"]}}},{"type":"object","properties":{"type":{"type":"string","enum":["one"]}}}]}`},
		[]string{"request-variant-added", "response-variant-added"}},
	{"variant-removed", schemaSpec{props: `"a":{"anyOf":[{"$ref":"#/definitions/Thing"},{"$ref":"#/definitions/Thing2"}]}`, defs: thingDefs},
		schemaSpec{props: `"a":{"anyOf":[{"$ref":"#/definitions/Thing"}]}`, defs: thingDefs},
		[]string{"request-variant-removed", "response-variant-removed"}},
	{"constraint-changed", schemaSpec{props: `"a":{"type":"integer","format":"int32"}`}, schemaSpec{props: `"a":{"type":"integer","format":"int64"}`},
		[]string{"request-constraint-changed", "response-constraint-changed"}},
	{"default-changed", schemaSpec{props: `"a":{"type":"integer","default":1}`}, schemaSpec{props: `"a":{"type":"integer","default":2}`},
		[]string{"request-default-changed", "response-default-changed"}},
	{"ref-changed (renamed type, same shape)", schemaSpec{props: `"a":{"$ref":"#/definitions/Thing"}`, defs: thingDefs},
		schemaSpec{props: `"a":{"$ref":"#/definitions/Thing2"}`, defs: thingDefs},
		[]string{"request-ref-changed", "response-ref-changed"}},
	{"methods", schemaSpec{clientRequests: []string{"x/old"}, clientNotifications: []string{"n/old"}, serverRequests: []string{"s/old"}, serverNotifications: []string{"e/old"}},
		schemaSpec{clientRequests: []string{"x/new"}, clientNotifications: []string{"n/new"}, serverRequests: []string{"s/new"}, serverNotifications: []string{"e/new"}},
		[]string{"client-notification-added", "client-notification-removed", "client-request-added", "client-request-removed",
			"server-notification-added", "server-notification-removed", "server-request-added", "server-request-removed"}},
	{"types", schemaSpec{defs: `"OnlyOld":{"type":"string"}`}, schemaSpec{defs: `"OnlyNew":{"type":"string"}`},
		[]string{"type-added", "type-removed"}},
	{"canonical (reordered enum, anyOf, required, type; new prose)",
		schemaSpec{props: `"a":{"type":["string","null"],"enum":["x","y"],"description":"one"},"b":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},"c":{"allOf":[{"$ref":"#/definitions/Thing"}],"description":"old"}`, required: []string{"a", "b"}, defs: thingDefs},
		schemaSpec{props: `"a":{"type":["null","string"],"enum":["y","x"],"description":"two","title":"A"},"b":{"anyOf":[{"type":"null"},{"type":"integer"},{"type":"string"}]},"c":{"allOf":[{"$ref":"#/definitions/Thing"}],"description":"new"}`, required: []string{"b", "a"}, defs: thingDefs},
		nil},
}

// TestSchemaRules checks the exact report of each hand-made pair, and that the pairs
// between them exercise every rule.
func TestSchemaRules(t *testing.T) {
	dir := t.TempDir()
	var all bytes.Buffer
	covered := map[string]bool{}
	for i, tc := range schemaCases {
		t.Run(tc.name, func(t *testing.T) {
			old := loadSpec(t, dir, fmt.Sprintf("case%d-old", i), tc.old)
			nw := loadSpec(t, dir, fmt.Sprintf("case%d-new", i), tc.new)
			old.Name, nw.Name = "old", "new"
			r := diff.CompareSchemas(old, nw)
			var got []string
			for _, c := range r.Changes {
				got = append(got, c.Rule)
				covered[c.Rule] = true
			}
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("rules %v, want %v", got, tc.want)
			}
			fmt.Fprintf(&all, "== %s\n", tc.name)
			if err := r.WriteText(&all, false); err != nil {
				t.Fatal(err)
			}
			if tc.name == "methods" {
				var js bytes.Buffer
				r.WriteJSON(&js)
				golden(t, "golden/schema-methods.json", js.Bytes())
			}
		})
	}
	golden(t, "golden/schema-rules.txt", all.Bytes())
	for _, r := range diff.Rules() {
		if !covered[r.Rule] {
			t.Errorf("rule %s (%s) is not exercised by any hand-made pair", r.Rule, r.Tier)
		}
	}
}

// Each rule's tier follows the client's point of view.
func TestRuleTiers(t *testing.T) {
	tiers := map[string]diff.Tier{}
	for _, r := range diff.Rules() {
		tiers[r.Rule] = r.Tier
	}
	for rule, want := range map[string]diff.Tier{
		"client-request-removed":          diff.TierBreaking,
		"request-required-field-added":    diff.TierBreaking,
		"request-type-narrowed":           diff.TierBreaking,
		"request-enum-value-removed":      diff.TierBreaking,
		"response-enum-value-added":       diff.TierBreaking,
		"response-variant-added":          diff.TierBreaking,
		"response-field-now-optional":     diff.TierBreaking,
		"response-nullable-added":         diff.TierBreaking,
		"response-type-changed":           diff.TierBreaking,
		"response-field-added":            diff.TierInfo,
		"server-notification-added":       diff.TierInfo,
		"client-request-added":            diff.TierInfo,
		"server-request-added":            diff.TierWarning,
		"response-field-removed":          diff.TierWarning,
		"request-enum-value-added":        diff.TierInfo,
		"response-required-field-removed": diff.TierBreaking,
	} {
		if got, ok := tiers[rule]; !ok || got != want {
			t.Errorf("rule %s: tier %v (known %v), want %v", rule, got, ok, want)
		}
	}
}
