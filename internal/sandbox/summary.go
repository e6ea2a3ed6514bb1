package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Signal is one entry of probe_provenance.isolation.signals
// (docs/isolation.md#the-signals), as the sandbox checks read it: decoded
// from the document, not linked from schema, so that the sandboxes test
// the output and not the types that wrote it.
type Signal struct {
	Name     string  `json:"name"`
	Source   string  `json:"source"`
	Observed *string `json:"observed"`
	Error    *string `json:"error"`
	Fired    bool    `json:"fired"`
	Anchor   bool    `json:"anchor"`
	Deciding bool    `json:"deciding"`
}

// Summary is what the sandbox tests and the table read from one env.json.
type Summary struct {
	SchemaVersion     string   `json:"schema_version"`
	ContainerDetected bool     `json:"container_detected"`
	ProbeNamespace    *string  `json:"probe_namespace"`
	PartialReasons    []string `json:"partial_reasons"`
	RuntimeContext    struct {
		Type string `json:"type"`
	} `json:"runtime_context"`
	Provenance *struct {
		Isolation struct {
			Verdict        string   `json:"verdict"`
			Signals        []Signal `json:"signals"`
			Contradictions []string `json:"contradictions"`
		} `json:"isolation"`
	} `json:"probe_provenance"`
}

// Summarize decodes the parts of an env.json document the sandbox checks
// need. A document without probe_provenance is an error: the isolation
// evidence is what the checks are about.
func Summarize(doc []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, fmt.Errorf("decoding env.json: %w", err)
	}
	if s.Provenance == nil {
		return nil, fmt.Errorf("env.json has no probe_provenance block")
	}
	return &s, nil
}

// Verdict is probe_provenance.isolation.verdict.
func (s *Summary) Verdict() string { return s.Provenance.Isolation.Verdict }

// Fired names the signals that fired, in document order.
func (s *Summary) Fired() []string {
	var out []string
	for _, sg := range s.Provenance.Isolation.Signals {
		if sg.Fired {
			out = append(out, sg.Name)
		}
	}
	return out
}

// FiredDeciding names the deciding signals that fired, in document order:
// container_detected is true exactly when there is one.
func (s *Summary) FiredDeciding() []string {
	var out []string
	for _, sg := range s.Provenance.Isolation.Signals {
		if sg.Fired && sg.Deciding {
			out = append(out, sg.Name)
		}
	}
	return out
}

// HasContradiction says whether a contradiction contains text.
func (s *Summary) HasContradiction(text string) bool {
	for _, c := range s.Provenance.Isolation.Contradictions {
		if strings.Contains(c, text) {
			return true
		}
	}
	return false
}

// Signal returns the named signal.
func (s *Summary) Signal(name string) (Signal, bool) {
	for _, sg := range s.Provenance.Isolation.Signals {
		if sg.Name == name {
			return sg, true
		}
	}
	return Signal{}, false
}

// Namespace is probe_namespace as text, "null" when absent.
func (s *Summary) Namespace() string {
	if s.ProbeNamespace == nil {
		return "null"
	}
	return *s.ProbeNamespace
}

// Row is the Markdown table row of a run.
func (s *Summary) Row(label string) string {
	fired := strings.Join(s.Fired(), ", ")
	if fired == "" {
		fired = "(none)"
	}
	return fmt.Sprintf("| %s | %t | %s | %s | %s |", label, s.ContainerDetected, s.RuntimeContext.Type, "`"+s.Namespace()+"`", fired)
}

// TableHeader is the header of the table Row belongs to.
const TableHeader = "| sandbox | container_detected | runtime_context.type | probe_namespace | signals that fired |\n" +
	"| --- | --- | --- | --- | --- |"
