package analysis

import (
	"encoding/json"
	"testing"

	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
)

// TestEmptyCaptureNulls: a capture of a header and no packet measured no span: start and
// duration are null, not 0 (0 s would read as a capture that lasted no time), while its
// counts are true zeros and its lists are [].
func TestEmptyCaptureNulls(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{{"pcap", pcapgen.EmptyPcap()}, {"pcapng", pcapgen.EmptyPcapNG()}} {
		t.Run(tc.name, func(t *testing.T) {
			c := analyze(t, tc.data, Options{})
			if c.Start != nil || c.DurationS != nil {
				t.Errorf("start %v, duration %v: want both null", c.Start, c.DurationS)
			}
			b, err := json.Marshal(schematest.Wrap(c))
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Captures []map[string]any `json:"captures"`
			}
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			got := r.Captures[0]
			for k, want := range map[string]any{"start": nil, "duration_s": nil, "packets": 0.0, "wire_bytes": 0.0,
				"warnings": []any{}, "findings": []any{}, "flows": []any{}, "legs": []any{}, "streams": []any{},
				"directions": []any{}} {
				if g, ok := got[k]; !ok || !jsonEqual(g, want) {
					t.Errorf("%s = %#v, want %#v", k, g, want)
				}
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
