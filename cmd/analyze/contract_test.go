package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/callpcap/callpcap/internal/testgen/corpus"
	"github.com/callpcap/callpcap/report"
)

// TestJSONContract checks that every name in DESIGN.md's JSON contract appears in
// report/schema.json, and in the JSON of real runs: the TURN-over-TCP example compared with
// the TURN-over-UDP one. DESIGN.md is in the shared folder beside the checkout.
func TestJSONContract(t *testing.T) {
	design, err := os.ReadFile(corpus.Shared(t, "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := string(design)
	start := strings.Index(block, "```jsonc")
	if start < 0 {
		t.Fatal("no jsonc block in DESIGN.md")
	}
	block = block[start:]
	block = block[:strings.Index(block[3:], "```")+3]
	want := map[string]bool{}
	for _, m := range regexp.MustCompile(`"([a-z0-9_]+)"\s*:`).FindAllStringSubmatch(stripComments(block), -1) {
		want[m[1]] = true
	}
	if len(want) < 100 {
		t.Fatalf("found only %d names in the contract", len(want))
	}

	var schema any
	if err := json.Unmarshal(report.SchemaJSON, &schema); err != nil {
		t.Fatal(err)
	}
	inSchema := map[string]bool{}
	collectSchemaNames(schema, inSchema)
	var notInSchema []string
	for k := range want {
		if !inSchema[k] {
			notInSchema = append(notInSchema, k)
		}
	}
	sort.Strings(notInSchema)
	if len(notInSchema) > 0 {
		t.Errorf("names of the contract missing from report/schema.json: %v", notInSchema)
	}

	code, stdout, stderr := runCmd(t, "", "--format", "json", "-q",
		filepath.Join(testdata, "turn-tcp-call.pcap.gz"),
		filepath.Join(testdata, "turn-udp-call.pcap.gz"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	collectKeys(v, got)
	// Names the contract shows inside objects that these two captures do not produce:
	// the relay figures exist only at a TURN server capture (analysis/relay_test.go).
	absent := map[string]bool{"matched": true, "latency_ms": true, "lost_before_relay": true, "lost_after_relay": true}
	var missing []string
	for k := range want {
		if !got[k] && !absent[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("names of the contract missing from the JSON: %v", missing)
	}
}

// stripComments removes // comments outside strings from a jsonc text.
func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		inStr := false
		for i := 0; i < len(line); i++ {
			if line[i] == '"' {
				inStr = !inStr
			}
			if !inStr && strings.HasPrefix(line[i:], "//") {
				line = line[:i]
				break
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// collectSchemaNames gathers the property names a JSON Schema declares: the keys of every
// "properties" object and the values of every "propertyNames" enum (over_ms's thresholds).
func collectSchemaNames(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			for k := range props {
				into[k] = true
			}
		}
		if pn, ok := x["propertyNames"].(map[string]any); ok {
			for _, e := range asSlice(pn["enum"]) {
				if s, ok := e.(string); ok {
					into[s] = true
				}
			}
		}
		for _, e := range x {
			collectSchemaNames(e, into)
		}
	case []any:
		for _, e := range x {
			collectSchemaNames(e, into)
		}
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func collectKeys(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			into[k] = true
			collectKeys(e, into)
		}
	case []any:
		for _, e := range x {
			collectKeys(e, into)
		}
	}
}
