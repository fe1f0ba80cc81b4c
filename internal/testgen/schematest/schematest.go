// Package schematest validates reports against the JSON contract, report.SchemaJSON, for
// the tests of every package that produces a report. It is a test helper: no production
// package imports it, so the validator stays out of the analyze binary.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/callpcap/callpcap/report"
)

// schemaURL names the embedded schema for the compiler; it is the schema's own $id.
const schemaURL = "urn:callpcap:report:v1"

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(report.SchemaJSON))
	if err != nil {
		return nil, fmt.Errorf("report/schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
})

// Validate checks the JSON of a whole report against the schema.
func Validate(data []byte) error {
	sch, err := compiled()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(v)
}

// Check fails the test when data, the JSON of a whole report, breaks the contract.
func Check(t testing.TB, data []byte) {
	t.Helper()
	if err := Validate(data); err != nil {
		t.Errorf("the report breaks report/schema.json: %v\n%s", err, data)
	}
}

// CheckReport encodes r as render.JSON does and checks it.
func CheckReport(t testing.TB, r *report.Report) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		t.Fatalf("encoding the report: %v", err)
	}
	Check(t, b.Bytes())
}

// CheckCapture checks one capture's analysis, wrapped in a report as cmd/analyze wraps it
// (with the default options; a single capture has no comparison).
func CheckCapture(t testing.TB, c report.Capture) {
	t.Helper()
	CheckReport(t, Wrap(c))
}

// Wrap puts captures in a report as cmd/analyze does with its default options.
func Wrap(cs ...report.Capture) *report.Report {
	return &report.Report{
		Schema:   report.Schema,
		Tool:     report.Tool{Name: "callpcap", Version: "0.0.0-test"},
		Options:  report.Options{LateBudgetMS: 150, MinPackets: 10},
		Captures: append([]report.Capture{}, cs...),
	}
}
