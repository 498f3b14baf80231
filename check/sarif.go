package check

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
)

// SARIF 2.1.0 (OASIS), the subset code-scanning services read: one run, the rules
// with their default levels, one result per finding with the recording as its
// artifact. Frames have no line numbers a viewer could use, so a result's place is
// named in its message and properties (seqs), not in a region.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	ShortDescription     sarifText     `json:"shortDescription"`
	DefaultConfiguration sarifRuleConf `json:"defaultConfiguration"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

// sarifLevel maps a severity to SARIF's levels.
func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// WriteSARIF writes a SARIF 2.1.0 log of every finding: the rules (disabled ones and
// assertions no result asserted left out), then one result per finding with the
// recording's path as its artifact and the frames' seqs as properties.
func WriteSARIF(w io.Writer, results []*Result, disabled map[string]bool) error {
	asserted := map[string]bool{}
	for _, r := range results {
		for _, id := range r.Asserted {
			asserted[id] = true
		}
	}
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "codexrec check"}}, Results: []sarifResult{}}
	index := map[string]int{}
	for _, r := range rules {
		if disabled[r.ID] || IsAssertion(r.ID) && !asserted[r.ID] {
			continue
		}
		index[r.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: r.ID, ShortDescription: sarifText{r.Summary},
			DefaultConfiguration: sarifRuleConf{sarifLevel(r.Severity)}})
	}
	for _, r := range results {
		for _, f := range r.Findings {
			id := f.Rule
			if strings.HasPrefix(id, RuleSchema+"/") {
				id = RuleSchema
			}
			i, ok := index[id]
			if !ok {
				continue
			}
			props := map[string]any{}
			if len(f.Seqs) > 0 {
				props["seqs"] = slices.Clone(f.Seqs)
			}
			for k, v := range map[string]string{"method": f.Method, "thread": f.Thread, "turn": f.Turn, "rule": f.Rule} {
				if v != "" && (k != "rule" || f.Rule != id) {
					props[k] = v
				}
			}
			if len(props) == 0 {
				props = nil
			}
			run.Results = append(run.Results, sarifResult{RuleID: id, RuleIndex: i, Level: sarifLevel(f.Severity),
				Message:    sarifText{findingLine(f)},
				Locations:  []sarifLocation{{sarifPhysical{sarifArtifact{URI: sarifURI(r.File)}}}},
				Properties: props})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

// sarifURI is a recording's path as a relative URI reference (forward slashes).
func sarifURI(path string) string {
	return strings.ReplaceAll(path, "\\", "/")
}
