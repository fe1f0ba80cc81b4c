package report_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/report"
)

// minimal is a valid report: one capture without packets, one that could not be read.
func minimal() *report.Report {
	return schematest.Wrap(
		report.Capture{File: "empty.pcap", Format: "pcap", Compression: "none", LinkTypes: []string{"ETHERNET"},
			Warnings: []string{}, Flows: []report.Flow{}, Legs: []report.Leg{}, Streams: []report.Stream{},
			Directions: []report.Direction{}, ICE: report.ICE{Ufrags: []string{}, Nominated: []string{}},
			TURN:     report.TURN{Allocations: []report.Allocation{}, Errors: []report.TURNError{}},
			Findings: []report.Finding{}},
		report.Capture{File: "notes.txt", Error: "not a capture file: empty file", Packets: 7})
}

// TestSchemaIsClosed: the schema accepts a valid report and rejects what breaks the
// contract: a renamed field, a null list, a value outside its enum, figures beside an error.
func TestSchemaIsClosed(t *testing.T) {
	b, err := json.Marshal(minimal())
	if err != nil {
		t.Fatal(err)
	}
	if err := schematest.Validate(b); err != nil {
		t.Fatalf("a valid report fails: %v\n%s", err, b)
	}
	cases := []struct {
		name   string
		breaks func(r map[string]any, readable, unreadable map[string]any)
	}{
		{"renamed field", func(r, c, _ map[string]any) { c["wire_byte"] = c["wire_bytes"]; delete(c, "wire_bytes") }},
		{"unknown field", func(r, c, _ map[string]any) { c["wire_kbytes"] = 1 }},
		{"null list", func(r, c, _ map[string]any) { c["warnings"] = nil }},
		{"missing list", func(r, c, _ map[string]any) { delete(c, "findings") }},
		{"compression", func(r, c, _ map[string]any) { c["compression"] = "bzip2" }},
		{"start without packets", func(r, c, _ map[string]any) { c["start"] = "2026-11-29T10:00:00.000000Z" }},
		{"duration without packets", func(r, c, _ map[string]any) { c["duration_s"] = 0 }},
		{"negative count", func(r, c, _ map[string]any) { c["capture_duplicates"] = -1 }},
		{"figures beside an error", func(r, _, u map[string]any) { u["packets"] = 7 }},
		{"schema name", func(r, _, _ map[string]any) { r["schema"] = "callpcap.report/v2" }},
		{"null captures", func(r, _, _ map[string]any) { r["captures"] = nil }},
		{"finding code", func(r, c, _ map[string]any) {
			c["findings"] = []any{map[string]any{"code": "media_over_pigeon", "severity": "warn", "text": "..."}}
		}},
		{"severity", func(r, c, _ map[string]any) {
			c["findings"] = []any{map[string]any{"code": "rtp_loss", "severity": "fatal", "text": "..."}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r map[string]any
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			caps := r["captures"].([]any)
			tc.breaks(r, caps[0].(map[string]any), caps[1].(map[string]any))
			broken, _ := json.Marshal(r)
			if schematest.Validate(broken) == nil {
				t.Errorf("the schema accepts %s", broken)
			}
		})
	}
}

// TestNilListsEncodeEmpty: a report built with no list set at all (every slice and map nil)
// encodes each list as [], at every depth, and encoding leaves the report as it was.
func TestNilListsEncodeEmpty(t *testing.T) {
	zero := 0.0
	r := schematest.Wrap(report.Capture{File: "bare.pcap", Format: "pcap", Compression: "none",
		Flows: []report.Flow{{ID: "f1", Proto: "tcp", A: "192.0.2.1:1", B: "192.0.2.2:2",
			TCP: &report.FlowTCP{AToB: report.TCPDir{Vantage: report.VantageUnknown}, BToA: report.TCPDir{Vantage: report.VantageUnknown}}}},
		Legs:       []report.Leg{{ID: "l1", Transport: report.TransportTCP, Client: "192.0.2.1:1", Server: "192.0.2.2:2"}},
		Directions: []report.Direction{{ID: "d1", From: "192.0.2.1:1", To: "192.0.2.2:2", Transport: report.TransportTCP, Efficiency: &zero}},
	})
	r.Captures = append(r.Captures, report.Capture{File: "other.pcap", Format: "pcap", Compression: "none"})
	r.Captures[0].Flows[0].Framing = new(report.FramingUnknown)
	r.Comparison = &report.Comparison{}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	nulls, err := schematest.NullLists(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(nulls) > 0 {
		t.Errorf("null lists: %v\n%s", nulls, b)
	}
	for _, want := range []string{`"warnings":[]`, `"findings":[]`, `"streams":[]`, `"content":[]`, `"peers":[]`,
		`"media_kbps":[]`, `"delay_p50_ms":[]`, `"ufrags":[]`, `"allocations":[]`, `"entries":[]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %s in %s", want, b)
		}
	}
	if r.Captures[0].Warnings != nil || r.Captures[0].Legs[0].Peers != nil || r.Comparison.Entries != nil {
		t.Error("encoding wrote to the report")
	}
}

// TestNullListsWalk: the walk that every test's report goes through finds a null list at
// any depth, and takes a null pointer (a figure not measured) for what it is.
func TestNullListsWalk(t *testing.T) {
	got, err := schematest.NullLists([]byte(`{"captures": [{"warnings": null, "flows": [{"content": null, "tcp": null}],
		"directions": [{"series": {"delay_p50_ms": [null, 1]}, "ramp": null}]}], "comparison": null}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".captures[0].warnings", ".captures[0].flows[0].content"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
