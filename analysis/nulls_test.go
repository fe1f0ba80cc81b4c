package analysis

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/report"
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

// TestTCPRTTByVantage: a TURN-over-TCP call captured next to the client, 60 ms from the
// server. Client to server the capture is at the sender: each data segment's ACK comes back
// a full round trip later, so rtt_ms is 60 ms. Server to client it is at the receiver: the
// client acknowledges as the data arrives, a delay of 0 over every sample, which is not the
// path's round trip: rtt_ms is null there (it read 0 ms over 302 samples before), and the
// round trip is the handshake's, 60 ms, on the connection.
func TestTCPRTTByVantage(t *testing.T) {
	call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000}}
	c := analyze(t, pcapOf(t, call.Packets(turnTCPWrites(nil))), Options{})
	if len(c.Flows) != 1 || c.Flows[0].TCP == nil {
		t.Fatalf("flows %+v, want one TCP flow", c.Flows)
	}
	tcp := c.Flows[0].TCP
	if tcp.HandshakeRTTMS == nil || *tcp.HandshakeRTTMS != 60 {
		t.Errorf("handshake_rtt_ms %v, want 60", tcp.HandshakeRTTMS)
	}
	if v := tcp.AToB.Vantage; v != report.VantageSender {
		t.Errorf("a_to_b vantage %s, want sender", v)
	}
	want := &report.Quantiles{Samples: 302, Min: 60, P50: 60, P95: 60, P99: 60, Max: 60}
	if d := cmp.Diff(want, tcp.AToB.RTTMS); d != "" {
		t.Errorf("a_to_b rtt_ms (-want +got):\n%s", d)
	}
	if v := tcp.BToA.Vantage; v != report.VantageReceiver {
		t.Errorf("b_to_a vantage %s, want receiver", v)
	}
	if tcp.BToA.RTTMS != nil {
		t.Errorf("b_to_a rtt_ms %+v at a receiver vantage, want null", *tcp.BToA.RTTMS)
	}
}
