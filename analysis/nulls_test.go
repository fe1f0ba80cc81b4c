package analysis

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/numfmt"
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

// TestClockJumps: 500 PCMU packets 20 ms apart (9.98 s from the first to the last), one of
// them stamped 10 years later than it was seen. The capture read 315,360,000-odd seconds long
// before; now its duration is the call's own span, the jump is counted and warned about, and
// the stream keeps its 500 packets, none lost, within that span. A file whose second half
// is stamped two hours later (a merge of two captures) has a step: counted and warned about
// too, and the two hours between its halves are not captured time.
func TestClockJumps(t *testing.T) {
	const tenYears = int64(10 * 365 * 24 * time.Hour)
	for _, tc := range []struct {
		name      string
		at        int   // the packet whose stamp moves
		shift     int64 // added to its stamp, or from it on (step)
		step      bool
		jumps     int64
		durationS float64
		lastS     float64 // the stream's, since the capture's first packet
	}{
		{"middle", 250, tenYears, false, 1, 9.98, 9.98},
		{"last of a batch", batchPackets - 1, tenYears, false, 1, 9.98, 9.98},
		{"first of a batch", batchPackets, tenYears, false, 1, 9.98, 9.98},
		{"back to 1970", 100, -callgen.Epoch, false, 1, 9.98, 9.98},
		{"first", 0, tenYears, false, 1, 9.96, 9.96}, // the span starts at the second packet
		{"last", 499, tenYears, false, 1, 9.96, 9.96},
		// Two spans of 4.98 s (250 packets each), two hours apart, or the second 72 hours
		// before the first: the capture covers 9.96 s, and the second span follows the first.
		{"step of two hours", 250, int64(2 * time.Hour), true, 1, 9.96, 9.96},
		{"step back 72 hours", 250, -int64(72 * time.Hour), true, 1, 9.96, 9.96},
		// A clock set 3 s back while capturing, or a second capture concatenated to the
		// first (mergecap -a): the 3 s are not captured twice (the duration read 6.96 s and
		// the goodput 1.4 times the rate sent). One packet stamped 3 s early is a jump.
		{"step back 3 seconds", 250, -int64(3 * time.Second), true, 1, 9.96, 9.96},
		{"one packet 3 seconds early", 250, -int64(3 * time.Second), false, 1, 9.98, 9.98},
		{"one packet 900 ms early", 250, -int64(900 * time.Millisecond), false, 0, 9.98, 9.98},
		// A record whose microseconds field reads 2,000,000 (h161): a jump, not a step of
		// the clock back at the packet after it (the duration read 11.98 s).
		{"one packet 2 seconds late", 250, int64(2 * time.Second), false, 1, 9.98, 9.98},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := audio()
			pkts := s.Packets()
			var buf bytes.Buffer
			w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0)
			for i, p := range pkts { // in file order, as a capture with a bad clock has them
				if i == tc.at || tc.step && i > tc.at {
					p.T += tc.shift
				}
				if err := w.Write(p.T, 0, p.Frame, 0); err != nil {
					t.Fatal(err)
				}
			}
			c := analyze(t, buf.Bytes(), Options{})
			if c.ClockJumps != tc.jumps || c.DurationS == nil || *c.DurationS != tc.durationS {
				t.Errorf("clock_jumps %d, duration_s %v; want %d and %v", c.ClockJumps, fmtF(c.DurationS), tc.jumps, tc.durationS)
			}
			warned := slices.ContainsFunc(c.Warnings, func(w string) bool {
				return strings.HasPrefix(w, "the capture's clock jumps 1 time (")
			})
			if warned != (tc.jumps > 0) {
				t.Errorf("warnings %q: want the clock jump said %v", c.Warnings, tc.jumps > 0)
			}
			st := onlyStream(t, c)
			if st.Packets != 500 || st.Lost == nil || *st.Lost != 0 || st.FirstS != 0 || st.LastS != tc.lastS {
				t.Errorf("stream packets %d lost %v first_s %v last_s %v", st.Packets, st.Lost, st.FirstS, st.LastS)
			}
			if !tc.step {
				// A packet whose stamp is a jump is given the time of the packet before,
				// and takes no part in timing: jitter, delay and the largest gap are the
				// paced stream's (they read 2.4 ms, 20 ms and 40 ms, a tester's find).
				if tc.jumps > 0 && (st.JitterMS == nil || st.JitterMS.Max != 0 || st.DelayMS == nil || st.DelayMS.Max != 0 ||
					st.MaxGapMS == nil || *st.MaxGapMS != 20) {
					t.Errorf("jitter %+v, delay %+v, max gap %v ms; want 0, 0 and 20", st.JitterMS, st.DelayMS, fmtF(st.MaxGapMS))
				}
				return
			}
			// The rate is over the 9.96 s captured. The packet after the step arrives with the
			// one before it, 20 ms early as its stamp was moved: the interval across a step is
			// not known, so it is a new reference for jitter and delay, and J stays 0 (1.25 ms,
			// 20/16, before). Each second's media carries 50 packets of 160 bytes (1.28 kbps
			// each), but the fifth takes the first after the step (51) and the last has 49;
			// the bitrate is stable.
			d := c.Directions[0]
			rate := numfmt.Round(500*160*8/9.96/1000, 3)
			wantKbps := []float64{64, 64, 64, 64, 65.28, 64, 64, 64, 64, 62.72}
			if d.GoodputKbps == nil || *d.GoodputKbps != rate || st.JitterMS == nil || st.JitterMS.Max != 0 ||
				st.DelayMS == nil || st.DelayMS.Max != 0 {
				t.Errorf("goodput %v kbps, jitter %+v, delay %+v; want %v kbps, jitter and delay 0", fmtF(d.GoodputKbps), st.JitterMS, st.DelayMS, rate)
			}
			if d.Ramp == nil || d.Ramp.Stable == nil || !*d.Ramp.Stable || !slices.Equal(d.Series.MediaKbps, wantKbps) {
				t.Errorf("ramp %+v, media series %v: want stable, %v", d.Ramp, d.Series.MediaKbps, wantKbps)
			}
			for _, f := range c.Findings {
				t.Errorf("finding %s: %s", f.Code, f.Text)
			}
		})
	}
}

// TestStepAfterLatePacket: the 500 PCMU packets of TestClockJumps, the 250th 200 ms late
// and the last written before the clock steps two hours, or 2 s back. The packets after the
// step follow it in the timeline, and they start a new reference for the delay: at the
// recent samples' smallest transit, not at the late packet's, whose lateness they inherited
// (all 250 after it read late when the stream ended before the look-ahead, or none did and
// the late packet read on time).
func TestStepAfterLatePacket(t *testing.T) {
	for _, step := range []int64{int64(2 * time.Hour), -int64(2 * time.Second)} {
		t.Run(time.Duration(step).String(), func(t *testing.T) {
			var buf bytes.Buffer
			w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0)
			s := audio()
			for i, p := range s.Packets() {
				switch {
				case i == 249:
					p.T += int64(200 * time.Millisecond)
				case i > 249:
					p.T += step
				}
				if err := w.Write(p.T, 0, p.Frame, 0); err != nil {
					t.Fatal(err)
				}
			}
			c := analyze(t, buf.Bytes(), Options{})
			st := onlyStream(t, c)
			if c.ClockJumps != 1 || st.Late == nil || st.Late.Packets != 1 || st.DelayMS == nil || st.DelayMS.Max != 200 {
				t.Errorf("clock_jumps %d, late %+v, delay %+v: want 1 jump, 1 packet late, 200 ms at most", c.ClockJumps, st.Late, st.DelayMS)
			}
		})
	}
}

// The rule, packet by packet: more than an hour from every neighbour it has, or more than a
// second before or after both, where they agree.
func TestClockJumpRule(t *testing.T) {
	h := int64(time.Hour)
	for _, tc := range []struct {
		name             string
		t, prev, next    int64
		hasPrev, hasNext bool
		want             bool
	}{
		{"alone", 5 * h, 0, 0, false, false, false},
		{"between close", 10, 0, 20, true, true, false},
		{"far from both", 3 * h, 0, 1, true, true, true},
		{"far before both", -3 * h, 0, 1, true, true, true},
		{"first, an hour from the next exactly", h, 0, 0, false, true, false},
		{"far from the one before only (a step)", 3 * h, 0, 3*h + 20, true, true, false},
		{"far from the one after only (a step)", 0, 0, 3 * h, true, true, false},
		{"first, far from the next", 3 * h, 0, 0, false, true, true},
		{"2 s before both", 10, 2e9 + 10, 2e9 + 20, true, true, true},
		{"2 s before the one before, with the next (a step)", 10, 2e9 + 10, 30, true, true, false},
		{"a second before both exactly", 0, 1e9, 1e9, true, true, false},
		{"2 s after both, which agree", 2e9, 0, 10, true, true, true},
		{"2 s after the one before, with the next (a silence)", 2e9, 0, 2e9 + 20, true, true, false},
		{"a second after both exactly", 1e9 + 10, 0, 10, true, true, false},
		{"2 s after the next, 2 s before the one before (a step back at the next)", 2e9, 4e9, 10, true, true, false},
		{"last, far from the one before", 3 * h, 0, 0, true, false, true},
	} {
		if got := clockJump(tc.t, tc.prev, tc.next, tc.hasPrev, tc.hasNext); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func fmtF(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// TestTimestampReset: audio() whose sender moves its RTP timestamps 45 s back at packet 250
// (from 45,000 to -360,000), the sequence numbers going on, as a gateway did at a T.38
// switch in the corpus (a reset to 0, 43 s back): a step no network makes. Jitter and delay take the packet as a new
// base, as at a restart: the stream's jitter stays 0 and every packet after it is a delay
// sample (before: a jitter of up to 3,164 ms, the packets after it skipped as out of order).
func TestTimestampReset(t *testing.T) {
	s := audio()
	pkts := s.Packets()
	for _, p := range pkts[250:] {
		ts := binary.BigEndian.Uint32(p.Frame[42+4:])
		binary.BigEndian.PutUint32(p.Frame[42+4:], ts-(5000+250*160)-45*8000)
	}
	st := onlyStream(t, analyze(t, pcapOf(t, pkts), Options{}))
	if st.JitterMS == nil || st.JitterMS.Max != 0 || st.DelayMS == nil || st.DelayMS.Samples != 500 || st.DelayMS.Max != 0 ||
		st.Packets != 500 || deref(st.Lost) != 0 {
		t.Errorf("packets %d lost %v jitter %+v delay %+v; want 500, 0, jitter 0, 500 delay samples of 0", st.Packets, deref(st.Lost), st.JitterMS, st.DelayMS)
	}
}
