// Package schematest validates reports against the JSON contract, report.SchemaJSON, for
// the tests of every package that produces a report. It is a test helper: no production
// package imports it, so the validator stays out of the analyze binary.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
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

// Check fails the test when data, the JSON of a whole report, breaks the contract: the
// schema, or a list written as null (NullLists).
func Check(t testing.TB, data []byte) {
	t.Helper()
	if err := Validate(data); err != nil {
		t.Errorf("the report breaks report/schema.json: %v\n%s", err, data)
	}
	nulls, err := NullLists(data)
	if err != nil {
		t.Errorf("%v\n%s", err, data)
	}
	if len(nulls) > 0 {
		t.Errorf("lists written as null, not []: %s\n%s", strings.Join(nulls, ", "), data)
	}
}

// NullLists walks the JSON of a whole report beside the model's Go types and returns the
// path of every value that is null where the model has a slice or a map: a list is [] when
// empty, never null. It does not rely on the schema, so a list the schema forgot to close
// is caught too.
func NullLists(data []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	var out []string
	nullLists(reflect.TypeFor[report.Report](), v, "", &out)
	return out, nil
}

func nullLists(t reflect.Type, v any, path string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem() // a null pointer is a figure not measured
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Map:
		switch v := v.(type) {
		case nil:
			*out = append(*out, path)
		case []any:
			for i, e := range v {
				nullLists(t.Elem(), e, fmt.Sprintf("%s[%d]", path, i), out)
			}
		case map[string]any:
			for k, e := range v {
				nullLists(t.Elem(), e, path+"."+k, out)
			}
		}
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if e, ok := m[name]; ok {
				nullLists(f.Type, e, path+"."+name, out)
			}
		}
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
