package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encode writes v as render.JSON does: without HTML escaping.
func encode(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(b.String())
}

func TestCaptureJSON(t *testing.T) {
	ok := encode(t, Capture{File: "a.pcap", Findings: []Finding{{Text: "a -> b"}}})
	if !strings.Contains(ok, `"a -> b"`) || !strings.Contains(ok, `"packets":0`) {
		t.Errorf("readable capture: %s (want the arrow unescaped and every figure)", ok)
	}
	bad := encode(t, Capture{File: "b.pcap", Error: "not a capture file: empty file", Packets: 7})
	if bad != `{"file":"b.pcap","error":"not a capture file: empty file"}` {
		t.Errorf("unreadable capture: %s (want file and error alone)", bad)
	}
}
