package render

import (
	"slices"
	"testing"

	"github.com/callpcap/callpcap/report"
)

// TestChartBases: a name numbered apart from its twin is nobody else's (h141: the second
// call.pcap's charts were call-2's, and overwrote call-2.pcap's).
func TestChartBases(t *testing.T) {
	for _, tc := range []struct {
		files, want []string
	}{
		{[]string{"a/call.pcap", "b/call.pcap", "a/call-2.pcap"}, []string{"call", "call-3", "call-2"}},
		{[]string{"a/call-2.pcap", "a/call.pcap", "b/call.pcap"}, []string{"call-2", "call", "call-3"}},
		{[]string{"x.pcap.gz", "x.pcapng", "y/x.cap", "<>.pcap"}, []string{"x", "x-2", "x-3", "capture"}},
		{[]string{"-", "--x.pcap", "-_-y.pcap"}, []string{"capture", "x", "y"}},
	} {
		r := &report.Report{}
		for _, f := range tc.files {
			r.Captures = append(r.Captures, report.Capture{File: f})
		}
		if got := ChartBases(r); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.files, got, tc.want)
		}
	}
}
