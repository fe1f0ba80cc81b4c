package analysis

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/rtcp"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/report"
)

// repeated is n seconds of ms, then tail nils.
func repeated(ms float64, n, tail int) []*float64 {
	out := make([]*float64, 0, n+tail)
	for range n {
		out = append(out, &ms)
	}
	for range tail {
		out = append(out, nil)
	}
	return out
}

// TestRTTSeriesTURNTCP: the golden's TURN-over-TCP call captured at the client, 80 ms from
// the server. The client's TCP direction is captured at its sender: its data/ACK round trips
// are 80 ms, in every second of both call directions (the leg's path) but the last, which
// holds 0.28 s of media and no ACK; there is no ICE check and no RTCP.
func TestRTTSeriesTURNTCP(t *testing.T) {
	c := analyze(t, pcapOf(t, callgen.ExampleTURNTCPCall()), Options{})
	if len(c.Directions) != 2 {
		t.Fatalf("%d directions, want 2", len(c.Directions))
	}
	for _, d := range c.Directions {
		if n := len(d.Series.MediaKbps); n != 21 {
			t.Fatalf("%s: %d seconds, want 21", d.ID, n)
		}
		want := report.RTTSeries{ICE: nil, TCP: repeated(80, 20, 1), RTCP: nil}
		if diff := cmp.Diff(want, d.Series.RTTMS); diff != "" {
			t.Errorf("%s rtt_ms (-want +got):\n%s", d.ID, diff)
		}
	}
	// The same samples as the summary: the client's direction at its sender, 80 ms.
	var q *report.Quantiles
	for _, f := range c.Flows {
		if f.TCP != nil {
			q = f.TCP.AToB.RTTMS
		}
	}
	if q == nil || q.Min != 80 || q.Max != 80 {
		t.Errorf("TCP a_to_b rtt_ms %+v, want 80 ms", q)
	}
}

// TestRTTSeriesICE: p2pChecks (A's checks take 105 ms, B's are answered at A in 0.8 ms) with
// audio both ways over the same pair from 50 ms for 8 s, captured at A. The capture starts
// with the media, the checks leave 50 ms later (0.05 s + i s) and are answered 105 ms after,
// in second i of each direction's grid (from 0 s): both directions read 105 in seconds 0-4, then nothing; B's checks, answered here,
// are in no series, as they are in no summary.
func TestRTTSeriesICE(t *testing.T) {
	a, b := p2pChecks.A, p2pChecks.B
	pkts := p2pChecks.Packets(0)
	for _, s := range []callgen.Stream{{Src: a, Dst: b, SSRC: 0x1111}, {Src: b, Dst: a, SSRC: 0x2222}} {
		s.PT, s.ClockRate, s.Interval, s.PayloadSize = 111, 48000, 20*time.Millisecond, 80
		s.Count, s.Start = 400, 50*time.Millisecond
		pkts = append(pkts, s.Packets()...)
	}
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Directions) != 2 {
		t.Fatalf("%d directions, want 2", len(c.Directions))
	}
	for _, d := range c.Directions {
		n := len(d.Series.MediaKbps)
		if n != 8 || d.Series.T0S != 0 {
			t.Fatalf("%s: %d seconds from %v s, want 8 from 0", d.ID, n, d.Series.T0S)
		}
		want := report.RTTSeries{ICE: repeated(105, 5, 3)}
		if diff := cmp.Diff(want, d.Series.RTTMS); diff != "" {
			t.Errorf("%s rtt_ms (-want +got):\n%s", d.ID, diff)
		}
	}
	if q := c.ICE.RTTMS; q == nil || q.Samples != 5 || q.P50 != 105 {
		t.Errorf("ice rtt_ms %+v, want 5 samples of 105", q)
	}
}

// TestRTTSeriesRTCP: audio both ways between A and B from 50 ms for 8 s, captured at A. A
// sends a sender report about its stream (0x1111) at 1.15 s + i s of the capture (i < 4); B's
// receiver report about it names that report (LSR) and held it 125 ms (DLSR), and comes back
// 185 ms after it: a round trip of 60 ms, in seconds 1-4 of A's direction only (RTCP about
// B's stream would go to B's).
func TestRTTSeriesRTCP(t *testing.T) {
	a := p2pChecks.A
	ab, ba, pkts := rtcpCall()
	pkts = append(pkts, reportsAbout(t, 0x1111, 0x2222, ba, ab, 185*time.Millisecond)...)
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Directions) != 2 {
		t.Fatalf("%d directions, want 2", len(c.Directions))
	}
	for _, d := range c.Directions {
		want := report.RTTSeries{}
		if d.From == a.String() {
			want.RTCP = append([]*float64{nil}, repeated(60, 4, 3)...)
		}
		if diff := cmp.Diff(want, d.Series.RTTMS); diff != "" {
			t.Errorf("%s (%s) rtt_ms (-want +got):\n%s", d.ID, d.From, diff)
		}
	}
	for _, s := range c.Streams {
		if s.SSRC == "0x00001111" && (s.RTCP == nil || s.RTCP.RTTMS == nil || s.RTCP.RTTMS.Samples != 4 || s.RTCP.RTTMS.P50 != 60) {
			t.Errorf("stream 0x1111 rtcp %+v, want 4 round trips of 60 ms", s.RTCP)
		}
	}
}

// TestRTCPRTTAtTheReportSender: TestRTTSeriesRTCP's call, captured at A (its ICE checks
// say so), with the reports the other way: B's sender reports about its stream 0x2222
// reach A, and A's receiver reports about it leave A 125 ms later (DLSR), captured as they
// leave. Their round trip cannot be taken here (it ends where the receiver report reaches
// B): the stream's rtcp.rtt_ms and the direction's rtcp series are null, where they read 0.
func TestRTCPRTTAtTheReportSender(t *testing.T) {
	ab, ba, pkts := rtcpCall()
	pkts = append(pkts, reportsAbout(t, 0x2222, 0x1111, ab, ba, 125*time.Millisecond)...)
	pkts = append(pkts, p2pChecks.Packets(0)...) // A's checks take a round trip: A is this host
	c := analyze(t, pcapOf(t, pkts), Options{})
	for _, s := range c.Streams {
		if s.SSRC == "0x00002222" && (s.RTCP == nil || s.RTCP.RTTMS != nil || s.RTCP.Types["rr"] == 0) {
			t.Errorf("stream 0x2222 rtcp %+v, want its receiver reports counted and no round trip", s.RTCP)
		}
	}
	for _, d := range c.Directions {
		if d.Series.RTTMS.RTCP != nil {
			t.Errorf("%s (%s): rtcp rtt series %v, want none", d.ID, d.From, d.Series.RTTMS.RTCP)
		}
	}
}

// TestRTCPRTTAtAnUnknownReportSender: the same reports without ICE, so nothing says which
// host captured them, and A's receiver reports leave 40 µs or 0.5 ms after DLSR says (the
// host's stack both ways; GStreamer's, 0.3-0.75 ms): a median round trip under
// minReportRTT is the reports' own delay at their sender, null. The same reports coming
// back 185 ms after their sender reports, as in TestRTTSeriesRTCP, keep their 60 ms.
func TestRTCPRTTAtAnUnknownReportSender(t *testing.T) {
	for _, tc := range []struct {
		after time.Duration
		want  bool
	}{{125*time.Millisecond + 40*time.Microsecond, false}, {125*time.Millisecond + 500*time.Microsecond, false}, {185 * time.Millisecond, true}} {
		ab, ba, pkts := rtcpCall()
		pkts = append(pkts, reportsAbout(t, 0x2222, 0x1111, ab, ba, tc.after)...)
		c := analyze(t, pcapOf(t, pkts), Options{})
		for _, s := range c.Streams {
			if s.SSRC != "0x00002222" {
				continue
			}
			if s.RTCP == nil || s.RTCP.Types["rr"] != 4 || (s.RTCP.RTTMS != nil) != tc.want {
				t.Errorf("receiver reports %v after their sender reports: stream rtcp %+v, want rtt %v", tc.after, s.RTCP, tc.want)
			}
		}
	}
}

// TestRTCPRTTBothWays: TestRTTSeriesRTCP's call with reports both ways and nothing that
// says which host captured them. Captured at A: B's reports about A's stream come back 60
// ms after DLSR says, A's about B's leave 2 ms after (a receiver's own latency, above
// minReportRTT): the 2 ms are no round trip (null), the 60 ms are. In the middle, 30 ms each
// way: each is the round trip of its part of the path, kept.
func TestRTCPRTTBothWays(t *testing.T) {
	for _, tc := range []struct {
		name         string
		toA, fromA   time.Duration // after their sender reports, less the 125 ms DLSR says
		wantA, wantB bool          // round trips about A's stream (0x1111), about B's (0x2222)
	}{
		{"at A", 60 * time.Millisecond, 2 * time.Millisecond, true, false},
		{"in the middle", 30 * time.Millisecond, 30 * time.Millisecond, true, true},
	} {
		ab, ba, pkts := rtcpCall()
		pkts = append(pkts, reportsAbout(t, 0x1111, 0x2222, ba, ab, 125*time.Millisecond+tc.toA)...)
		pkts = append(pkts, reportsAbout(t, 0x2222, 0x1111, ab, ba, 125*time.Millisecond+tc.fromA)...)
		c := analyze(t, pcapOf(t, pkts), Options{})
		for _, s := range c.Streams {
			want := map[string]bool{"0x00001111": tc.wantA, "0x00002222": tc.wantB}[s.SSRC]
			if s.RTCP == nil || (s.RTCP.RTTMS != nil) != want {
				t.Errorf("%s: stream %s rtcp %+v, want a round trip %v", tc.name, s.SSRC, s.RTCP, want)
			}
		}
	}
}

// TestRTCPOnTheNextPorts: TestRTTSeriesRTCP's call without rtcp-mux: the reports travel on
// the ports above the RTP's (RFC 3550 11), a flow of their own that is the leg's too. Each
// direction's wire bytes hold the RTCP its sender sent there: A's 4 sender reports (70-byte
// frames: 42 bytes of Ethernet, IP and UDP headers and a 28-byte SR) and B's 4 receiver
// reports about them (74: an 8-byte RR and one 24-byte report block); the leg lists both
// flows. Before, that RTCP was in no direction. The same on ports that are not the next
// (SDP's a=rtcp, RFC 3605, or a NAT's choice), where the reports' SSRCs tell whose RTCP it
// is: before, in no direction and no leg (h132).
func TestRTCPOnTheNextPorts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		up, bp uint16 // how far above its RTP port each end sends and receives its RTCP
	}{{"next", 1, 1}, {"a=rtcp", 5, 11}} {
		ab, ba, pkts := rtcpCall()
		up := func(s callgen.Stream) callgen.Stream {
			move := func(ap netip.AddrPort) netip.AddrPort {
				if ap == p2pChecks.A {
					return netip.AddrPortFrom(ap.Addr(), ap.Port()+tc.up)
				}
				return netip.AddrPortFrom(ap.Addr(), ap.Port()+tc.bp)
			}
			s.Src, s.Dst = move(s.Src), move(s.Dst)
			return s
		}
		rtcp := reportsAbout(t, 0x1111, 0x2222, up(ba), up(ab), 185*time.Millisecond)
		sent := [2]int64{4 * 70, 4 * 74} // RTCP frame bytes from A, from B
		c := analyze(t, pcapOf(t, append(pkts, rtcp...)), Options{})
		if len(c.Legs) != 1 || len(c.Legs[0].Flows) != 2 {
			t.Fatalf("%s: legs %+v, want one of two flows", tc.name, c.Legs)
		}
		var wire int64
		for _, d := range c.Directions {
			want := sent[1]
			if d.From == p2pChecks.A.String() {
				want = sent[0]
			}
			if d.OverheadBytes.RTCP != want || want == 0 || d.WireBytes != d.MediaPayloadBytes+d.OverheadBytes.Sum() {
				t.Errorf("%s: %s: rtcp %d bytes, want %d", tc.name, d.From, d.OverheadBytes.RTCP, want)
			}
			wire += d.WireBytes
		}
		if wire != c.WireBytes {
			t.Errorf("%s: directions' wire bytes %d, the capture's %d", tc.name, wire, c.WireBytes)
		}
		for _, s := range c.Streams {
			if s.SSRC == "0x00001111" && (s.RTCP == nil || s.RTCP.RTTMS == nil || s.RTCP.RTTMS.P50 != 60) {
				t.Errorf("%s: stream 0x1111 rtcp %+v, want round trips of 60 ms", tc.name, s.RTCP)
			}
		}
	}
}

// rtcpCall is audio both ways between p2pChecks' A and B from 50 ms for 8 s: ab, 0x1111
// from A to B, and ba, 0x2222 from B to A.
func rtcpCall() (ab, ba callgen.Stream, pkts []callgen.Packet) {
	ab = callgen.Stream{Src: p2pChecks.A, Dst: p2pChecks.B, SSRC: 0x1111}
	ba = callgen.Stream{Src: p2pChecks.B, Dst: p2pChecks.A, SSRC: 0x2222}
	for _, s := range []*callgen.Stream{&ab, &ba} {
		s.PT, s.ClockRate, s.Interval, s.PayloadSize = 111, 48000, 20*time.Millisecond, 80
		s.Count, s.Start = 400, 50*time.Millisecond
		pkts = append(pkts, s.Packets()...)
	}
	return ab, ba, pkts
}

// reportsAbout is four sender reports about media, a second apart from 1.2 s, sent on
// srVia's reverse path (RTCPAt), each followed after rrAfter by reporter's receiver report
// naming it (LSR) and saying it held it 125 ms (DLSR 8192), on rrVia's.
func reportsAbout(t *testing.T, media, reporter uint32, srVia, rrVia callgen.Stream, rrAfter time.Duration) []callgen.Packet {
	t.Helper()
	var pkts []callgen.Packet
	for i := range 4 {
		ntp := uint64(i+1)<<32 | 0x8000_0000
		sr, err := (&rtcp.SenderReport{SSRC: media, NTPTime: ntp}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		rr, err := (&rtcp.ReceiverReport{SSRC: reporter, Reports: []rtcp.ReceptionReport{{
			SSRC: media, LastSenderReport: uint32(ntp >> 16), Delay: 8192}}}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		sent := 1200*time.Millisecond + time.Duration(i)*time.Second
		pkts = append(pkts, srVia.RTCPAt(sent, sr), rrVia.RTCPAt(sent+rrAfter, rr))
	}
	return pkts
}

// TestRTCPOnAnotherCallsNextPorts: two calls between the same two hosts, the second's RTP on
// ports 10 above the first's, and the first's RTCP on the ports above the second's RTP (a
// NAT's choice, or a=rtcp). The RTCP names the first call's SSRCs: it is the first call's,
// in its leg and its directions' wire bytes; the second call has none (h134: it was the
// second's, the ports above its RTP).
func TestRTCPOnAnotherCallsNextPorts(t *testing.T) {
	ab, ba, pkts := rtcpCall()
	shift := func(s callgen.Stream, by uint16) callgen.Stream {
		s.Src = netip.AddrPortFrom(s.Src.Addr(), s.Src.Port()+by)
		s.Dst = netip.AddrPortFrom(s.Dst.Addr(), s.Dst.Port()+by)
		return s
	}
	ab2, ba2 := shift(ab, 10), shift(ba, 10)
	ab2.SSRC, ba2.SSRC = 0x3333, 0x4444
	pkts = append(pkts, ab2.Packets()...)
	pkts = append(pkts, ba2.Packets()...)
	pkts = append(pkts, reportsAbout(t, 0x1111, 0x2222, shift(ba, 11), shift(ab, 11), 185*time.Millisecond)...)
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Legs) != 2 || !slices.Equal(c.Legs[0].Flows, []string{"f1", "f3"}) || !slices.Equal(c.Legs[1].Flows, []string{"f2"}) {
		t.Fatalf("legs %+v, want the first call's with the RTCP flow (f1, f3), the second's alone (f2)", c.Legs)
	}
	var wire int64
	for _, d := range c.Directions {
		want := int64(0)
		switch d.From {
		case p2pChecks.A.String():
			want = 4 * 70
		case p2pChecks.B.String():
			want = 4 * 74
		}
		if d.OverheadBytes.RTCP != want {
			t.Errorf("%s -> %s: rtcp %d bytes, want %d", d.From, d.To, d.OverheadBytes.RTCP, want)
		}
		wire += d.WireBytes
	}
	if wire != c.WireBytes {
		t.Errorf("directions' wire bytes %d, the capture's %d", wire, c.WireBytes)
	}
}

// TestRTCPDamagedFirstPacket: TestRTTSeriesRTCP's reports on the RTP's own ports, the second
// sender report's length running 10 words past its datagram. It is counted, by its header,
// and said damaged; before, the demux took it for no RTCP (h135: sr 3 where 4, no word).
func TestRTCPDamagedFirstPacket(t *testing.T) {
	ab, ba, pkts := rtcpCall()
	rtcp := reportsAbout(t, 0x1111, 0x2222, ba, ab, 185*time.Millisecond)
	sr := rtcp[2].Frame[42:] // Ethernet, IPv4 and UDP headers before it
	binary.BigEndian.PutUint16(sr[2:], binary.BigEndian.Uint16(sr[2:])+10)
	c := analyze(t, pcapOf(t, append(pkts, rtcp...)), Options{})
	var st *report.Stream
	for i := range c.Streams {
		if c.Streams[i].SSRC == "0x00001111" {
			st = &c.Streams[i]
		}
	}
	if st == nil || st.RTCP == nil || st.RTCP.Types["sr"] != 4 {
		t.Fatalf("stream 0x1111: %+v, want its 4 sender reports counted", st)
	}
	if !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "plain RTCP damaged") }) {
		t.Errorf("warnings %q: none says the report was damaged", c.Warnings)
	}
}

// TestRTCPFlowsBothWays: TestRTTSeriesRTCP's call whose sender reports leave A from an
// ephemeral port for B's port above its RTP, while B sends receiver reports that name no
// stream (no blocks, an SSRC that sends none) from the port above its RTP to A's: both
// flows are the leg's, their bytes its directions'. Before, once a flow was linked by its
// SSRCs the one on the ports above was not (h135).
func TestRTCPFlowsBothWays(t *testing.T) {
	_, _, pkts := rtcpCall()
	a, b := p2pChecks.A, p2pChecks.B
	up := func(ap netip.AddrPort, p uint16) netip.AddrPort { return netip.AddrPortFrom(ap.Addr(), p) }
	sr, err := (&rtcp.SenderReport{SSRC: 0x1111, NTPTime: 1 << 32}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	rr, err := (&rtcp.ReceiverReport{SSRC: 0x9999}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	srFrame := pcapgen.EtherUDP(up(a, 40111), up(b, b.Port()+1), sr)
	rrFrame := pcapgen.EtherUDP(up(b, b.Port()+1), up(a, a.Port()+1), rr)
	for i := range 4 {
		at := callgen.Epoch + int64(1200*time.Millisecond) + int64(i)*int64(time.Second)
		pkts = append(pkts, callgen.Packet{T: at, Frame: srFrame}, callgen.Packet{T: at + 1e6, Frame: rrFrame})
	}
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Legs) != 1 || len(c.Legs[0].Flows) != 3 {
		t.Fatalf("legs %+v, want one of three flows", c.Legs)
	}
	var rtcpBytes, wire int64
	for _, d := range c.Directions {
		rtcpBytes += d.OverheadBytes.RTCP
		wire += d.WireBytes
	}
	if want := int64(4 * (len(srFrame) + len(rrFrame))); rtcpBytes != want || wire != c.WireBytes {
		t.Errorf("directions' rtcp %d bytes, wire %d; want %d and the capture's %d", rtcpBytes, wire, want, c.WireBytes)
	}
}
