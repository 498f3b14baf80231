package check

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *struct{}     `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes a JUnit XML report: one test suite per recording, one test case
// per rule, failed when the rule has findings at or above failOn. Findings below the
// threshold are listed in the case's system-out; disabled rules are skipped. Schema
// findings of every kind belong to the "schema" case.
func WriteJUnit(w io.Writer, results []*Result, failOn Severity, disabled map[string]bool) error {
	top := junitSuites{Name: "codexrec check"}
	for _, r := range results {
		by := map[string][]Finding{}
		for _, f := range r.Findings {
			id := f.Rule
			if strings.HasPrefix(id, RuleSchema+"/") {
				id = RuleSchema
			}
			by[id] = append(by[id], f)
		}
		suite := junitSuite{Name: r.File}
		for _, rule := range rules {
			if IsAssertion(rule.ID) && !slices.Contains(r.Asserted, rule.ID) {
				continue
			}
			c := junitCase{Name: rule.ID, Classname: "codexrec.check." + suiteClass(r.File)}
			fs := by[rule.ID]
			var fail, below []string
			worst := Severity(0)
			elided := 0 // findings of a line counting those a Result does not list, past the first
			for _, f := range fs {
				line := fmt.Sprintf("%s %s: %s", f.Severity, f.Rule, findingLine(f))
				if f.Severity >= failOn {
					fail = append(fail, line)
					worst = max(worst, f.Severity)
				} else {
					below = append(below, line)
				}
			}
			for _, e := range r.Elided {
				if id := e.Rule; id == rule.ID || strings.HasPrefix(id, RuleSchema+"/") && rule.ID == RuleSchema {
					line := fmt.Sprintf("%s %s: %d more%s not listed", e.Severity, e.Rule, e.Count, ofMethod(e.Method))
					if e.Severity >= failOn {
						fail = append(fail, line)
						worst = max(worst, e.Severity)
						elided += e.Count - 1
					} else {
						below = append(below, line)
					}
				}
			}
			switch {
			case disabled[rule.ID]:
				c.Skipped = &struct{}{}
				suite.Skipped++
			case len(fail) > 0:
				c.Failure = &junitFailure{Message: fmt.Sprintf("%s: %s", rule.ID, plural(len(fail)+elided, "finding")),
					Type: worst.String(), Text: strings.Join(fail, "\n")}
				suite.Failures++
			}
			if len(below) > 0 {
				c.SystemOut = strings.Join(below, "\n")
			}
			suite.Tests++
			suite.Cases = append(suite.Cases, c)
		}
		top.Tests += suite.Tests
		top.Failures += suite.Failures
		top.Skipped += suite.Skipped
		top.Suites = append(top.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(top); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// suiteClass turns a file name into a dotted class name CI systems group by.
func suiteClass(file string) string {
	r := strings.NewReplacer("/", ".", "\\", ".", " ", "_")
	return strings.Trim(r.Replace(strings.TrimSuffix(file, ".jsonl")), ".")
}

// ofMethod names a method in a line about elided findings.
func ofMethod(method string) string {
	switch method {
	case "":
		return ""
	case "*":
		return " of other methods"
	}
	return " of " + method
}
