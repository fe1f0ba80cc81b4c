package analysis

import (
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// TestWireSeriesCountsEveryFrame: a direction's wire series counts every frame attributed
// to it (DESIGN, "Bitrate, ramp and stability"), second by second of its grid, which starts
// at its first media packet: here 0.3 s into the capture, 500 audio packets 20 ms apart,
// 50 a second of 214 bytes on the wire. Beside them, five RTCP receiver reports of 74 bytes:
// the sender's at 1.2 s and 1.4 s (one second of the clock, either side of the grid's
// boundary at 1.3 s) and 4.25 s, and the receiver's at 2.0 s and 6.31 s, which are the
// direction's too (media one way: DESIGN's "RTCP and STUN of that leg"); and a STUN check
// at 0.1 s, before the first media packet: in wire_bytes, in no second.
func TestWireSeriesCountsEveryFrame(t *testing.T) {
	s := audio()
	s.Start = 300 * time.Millisecond
	pkts := s.Packets()
	rr := callgen.RTCPRR(s.SSRC, 0x77)
	at := func(d time.Duration) int64 { return callgen.Epoch + int64(d) }
	for _, ms := range []time.Duration{1200, 1400, 4250} {
		pkts = append(pkts, callgen.Packet{T: at(ms * time.Millisecond), Frame: pcapgen.EtherUDP(s.Src, s.Dst, rr)})
	}
	for _, ms := range []time.Duration{2000, 6310} {
		pkts = append(pkts, s.RTCPAt(ms*time.Millisecond, callgen.RTCPRR(0x77, s.SSRC)))
	}
	check := stun.MustBuild(stun.TransactionID, stun.BindingRequest).Raw
	pkts = append(pkts, callgen.Packet{T: at(100 * time.Millisecond), Frame: pcapgen.EtherUDP(s.Src, s.Dst, check)})
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })

	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Directions) != 1 {
		t.Fatalf("%d directions, want 1", len(c.Directions))
	}
	d := c.Directions[0]
	const media, report = 42 + 12 + 160, 42 + 32
	stunFrame := int64(42 + len(check))
	if want := 500*media + 5*report + stunFrame; d.WireBytes != want {
		t.Errorf("wire_bytes %d, want %d", d.WireBytes, want)
	}
	if d.Series.T0S != 0.2 {
		t.Errorf("series t0_s %v, want 0.2 (the direction's first media packet, after the STUN check)", d.Series.T0S)
	}
	kbps := func(b int) float64 { return numfmt.Round(float64(b)*8/1000, 3) }
	second := kbps(50 * media)
	one, two := kbps(50*media+report), kbps(50*media+2*report)
	want := []float64{one, two, second, one, second, second, one, second, second, second}
	if !slices.Equal(d.Series.WireKbps, want) {
		t.Errorf("wire_kbps\n got %v\nwant %v", d.Series.WireKbps, want)
	}
}

// TestWireSeriesOverTCP: over TURN/TCP without loss, a direction's wire series holds its
// RTP messages' segments whole (media, RTP headers, ChannelData framing, their link, IP and
// TCP headers) and the pure ACKs the other side sent for them, at their capture, within the
// series' span; the handshake and the TURN allocation came before its first media packet
// and are in no second.
func TestWireSeriesOverTCP(t *testing.T) {
	call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000}}
	pkts := call.Packets(turnTCPWrites(nil))
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Directions) != 2 {
		t.Fatalf("%d directions, want 2", len(c.Directions))
	}
	c4 := tcpClient.Addr().As4()
	senderOf := func(p callgen.Packet) int { // 0 the client
		if [4]byte(p.Frame[26:30]) == c4 {
			return 0
		}
		return 1
	}
	start := pkts[0].T
	for _, p := range pkts {
		start = min(start, p.T)
	}
	for _, d := range c.Directions {
		sender := 1
		if d.From == tcpClient.String() {
			sender = 0
		}
		// The pure ACKs of the other side within the series' span, [t0, end), by the
		// capture's clock.
		t0 := start + int64(d.Series.T0S*1e9+0.5)
		end := t0 + int64(len(d.Series.WireKbps))*1e9
		var acks int64
		for _, p := range pkts {
			pureACK := len(p.Frame) == 54 && p.Frame[14+20+13]&0x02 == 0
			if senderOf(p) != sender && pureACK && p.T >= t0 && p.T < end {
				acks += 54
			}
		}
		o := d.OverheadBytes
		if acks == 0 || acks == o.ACKs || o.TCPRetransmissions != 0 {
			t.Fatalf("direction %s: %d bytes of pure ACKs in the series' span of %d, retransmitted %d: not the call meant",
				d.ID, acks, o.ACKs, o.TCPRetransmissions)
		}
		var sum float64
		for _, k := range d.Series.WireKbps {
			sum += k * 1000 / 8
		}
		want := d.MediaPayloadBytes + o.RTPHeaders + o.Framing + o.LinkIPTransport + acks
		if got := int64(sum + 0.5); got != want {
			t.Errorf("direction %s: the series hold %d bytes, want %d: %d of RTP segments and %d of pure ACKs",
				d.ID, got, want, want-acks, acks)
		}
	}
}

// TestRetransmittedSeriesOverTCP: over TURN/TCP, a direction's series of retransmitted
// bytes holds the payload its TCP direction retransmitted, as tcp.retransmitted_bytes
// counts it (impairedCall). From the client, captured at its sender: the copy of tick 50's
// first segment, lost after the capture (1,200 bytes), and the spurious copy of tick 100's
// second (92). From the server, captured after the loss: tick 50's first segment, lost
// before the capture and seen once, late, filling its hole (1,200), though no copy of it
// crossed the capture point (its overhead has no retransmission).
func TestRetransmittedSeriesOverTCP(t *testing.T) {
	c := analyze(t, pcapOf(t, impairedCall().Packets(turnTCPWrites(nil))), Options{})
	if len(c.Directions) != 2 || len(c.Flows) != 1 || c.Flows[0].TCP == nil {
		t.Fatalf("%d directions, %d flows, want 2 and one TCP flow", len(c.Directions), len(c.Flows))
	}
	tcp := c.Flows[0].TCP
	for _, d := range c.Directions {
		var sum float64
		for _, k := range d.Series.RetransmittedKbps {
			sum += k * 1000 / 8
		}
		want, wire, flowRetx := int64(1200), int64(0), tcp.BToA.RetransmittedBytes
		if d.From == tcpClient.String() {
			want, wire, flowRetx = 1200+92, 1200+54+92+54, tcp.AToB.RetransmittedBytes
		}
		if got := int64(sum + 0.5); got != want || flowRetx != want || d.OverheadBytes.TCPRetransmissions != wire {
			t.Errorf("direction %s: the series hold %d retransmitted bytes, its TCP direction %d, its overhead %d; want %d, %d, %d",
				d.ID, got, flowRetx, d.OverheadBytes.TCPRetransmissions, want, want, wire)
		}
	}
}
