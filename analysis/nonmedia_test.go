package analysis

import (
	"bytes"
	"context"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/render"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/tcpframe"
)

// nonMediaConn is a TCP connection that carries no media, as a call's capture holds beside
// it, with what detection made of it before tcpMedia (run with --min-packets 1).
type nonMediaConn struct {
	name string
	pkts []callgen.Packet
	hold tcpframe.Hold // how its framing held
	msgs tcpMessages   // what its messages classified as
}

// nonMediaConns are, each between 10.0.0.2 and its own server, from 0.5 s into the capture
// to about 2.7 s (within the TURN/TCP call of TestTURNOverTCP): XMPP-like XML on 5222 (200
// exchanges), HTTP/1.1 with JSON on 8080 (100 exchanges), a "VPN" of random bytes (400
// writes each way of 1-1400 bytes) and TLS 1.3 application-data records of random content
// on 993 (400 each way, 1-1400 bytes).
func nonMediaConns() []nonMediaConn {
	conn := func(port uint16, server string, w []callgen.TCPWrite) []callgen.Packet {
		c := callgen.TCPCall{Client: netip.AddrPortFrom(netip.MustParseAddr("10.0.0.2"), port),
			Server: netip.MustParseAddrPort(server), ISN: [2]uint32{uint32(port) << 8, 77777},
			Start: 500 * time.Millisecond}
		return c.Packets(w)
	}
	at := 600 * time.Millisecond // after the handshake (60 ms)
	// Detection finds no framing in the first three: a frame at their first byte needs a
	// valid successor, and one further on a later frame that repeats its SSRC or channel
	// (tcpframe's confirmRun), which neither text nor random bytes make. Before, it found
	// RFC 4571 in all three, whose frames, cut at random lengths, were few and huge and
	// broke again. The TLS records are read whole.
	return []nonMediaConn{
		{"xmpp", conn(50001, "203.0.113.20:5222", callgen.XMPPWrites(at, 10*time.Millisecond, 200)),
			tcpframe.Hold{}, tcpMessages{}},
		{"http", conn(50002, "203.0.113.21:8080", callgen.HTTPWrites(at, 20*time.Millisecond, 100)),
			tcpframe.Hold{}, tcpMessages{}},
		{"vpn", conn(50003, "203.0.113.22:1194", callgen.RandomWrites(at, 5*time.Millisecond, 400, 1400, 1)),
			tcpframe.Hold{}, tcpMessages{}},
		{"tls", conn(50004, "203.0.113.23:993", callgen.TLSWrites(at, 5*time.Millisecond, 400, 1400, 2)),
			tcpframe.Hold{Messages: 800, FramedBytes: 561235}, tcpMessages{all: 800}},
	}
}

func frameBytes(pkts []callgen.Packet) int64 {
	var n int64
	for _, p := range pkts {
		n += int64(len(p.Frame))
	}
	return n
}

// Before tcpMedia, detection read the XMPP, HTTP and VPN streams as RFC 4571 and the TLS
// records' encrypted fragments as RTP and QUIC: with --min-packets 1 the VPN became an
// ice-tcp leg of 4 streams and the TLS connection a tls leg of 94, each headlined "Media
// over TCP", and the XMPP and HTTP connections were listed as rfc4571 flows. None is media:
// each is one other flow, with every byte of its frames.
func TestNonMediaTCPIsAnOtherFlow(t *testing.T) {
	for _, nm := range nonMediaConns() {
		t.Run(nm.name, func(t *testing.T) {
			c := analyze(t, pcapOf(t, nm.pkts), Options{MinPackets: 1})
			if len(c.Flows) != 0 || len(c.Legs) != 0 || len(c.Streams) != 0 || len(c.Directions) != 0 {
				t.Errorf("flows %d legs %d streams %d directions %d; want none", len(c.Flows), len(c.Legs),
					len(c.Streams), len(c.Directions))
			}
			if want := frameBytes(nm.pkts); c.OtherFlows != 1 || c.OtherFlowBytes != want || c.WireBytes != want {
				t.Errorf("other flows %d of %d bytes (capture %d); want 1 of %d", c.OtherFlows, c.OtherFlowBytes,
					c.WireBytes, want)
			}
			if h := render.Headline(&c); h != "No RTP media found" {
				t.Errorf("headline %q", h)
			}
			if len(c.Findings) != 0 {
				t.Errorf("findings %+v, want none", c.Findings)
			}
			// Why: the figures tcpMedia judged.
			a := newAnalyzer(Options{MinPackets: 1})
			rd, err := capture.Open(bytes.NewReader(pcapOf(t, nm.pkts)))
			if err != nil {
				t.Fatal(err)
			}
			a.run(context.Background(), rd)
			f := a.flowList[0]
			if h := f.conn.Hold(); h != nm.hold || f.msgs != nm.msgs {
				t.Errorf("hold %+v messages %+v, want %+v %+v", h, f.msgs, nm.hold, nm.msgs)
			}
		})
	}
}

// The TURN/TCP call of TestTURNOverTCP with the four connections of nonMediaConns beside
// it: the call's report is exactly the one of the call alone; the four are other flows.
func TestNonMediaTCPBesideATURNCall(t *testing.T) {
	call := impairedCall().Packets(turnTCPWrites(nil))
	mixed := slices.Clone(call)
	var others int64
	for _, nm := range nonMediaConns() {
		mixed = append(mixed, nm.pkts...)
		others += frameBytes(nm.pkts)
	}
	for _, min := range []int{0, 1} {
		alone := analyze(t, pcapOf(t, call), Options{MinPackets: min})
		got := analyze(t, pcapOf(t, mixed), Options{MinPackets: min})
		if got.OtherFlows != 4 || got.OtherFlowBytes != others || got.WireBytes != alone.WireBytes+others {
			t.Errorf("min packets %d: other flows %d of %d bytes, capture %d; want 4 of %d, %d", min, got.OtherFlows,
				got.OtherFlowBytes, got.WireBytes, others, alone.WireBytes+others)
		}
		if h := render.Headline(&got); h != "Media relayed over TCP: TURN 203.0.113.7:443 (tcp) for 10.0.0.1 <-> 198.51.100.9" {
			t.Errorf("min packets %d: headline %q", min, h)
		}
		// What the four add: their packets and bytes, counted apart.
		got.Packets, got.WireBytes, got.OtherFlows, got.OtherFlowBytes = alone.Packets, alone.WireBytes, 0, 0
		if d := cmp.Diff(alone, got); d != "" {
			t.Errorf("min packets %d: the call's report changed (-alone +mixed):\n%s", min, d)
		}
	}
}

// tcpMedia's two tests on their own: a connection whose framing breaks more than once in
// 100 messages (once, under 20 messages), or whose messages are mostly not real-time
// traffic, is no leg.
func TestTCPMediaRule(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		messages, framed        int64
		breaks, broken          int64
		real, rtp, rtpInStreams int64
		want                    bool
	}{
		{name: "ice-tcp", messages: 300, framed: 300 * 1290, real: 0, rtp: 300, rtpInStreams: 300, want: true},
		{name: "one break in 100", messages: 100, framed: 100000, breaks: 1, broken: 10, rtp: 100, rtpInStreams: 100, want: true},
		{name: "one break in 99", messages: 99, framed: 99000, breaks: 1, broken: 10, rtp: 99, rtpInStreams: 99, want: true},
		{name: "one break in 19", messages: 19, framed: 19000, breaks: 1, broken: 10, rtp: 19, rtpInStreams: 19},
		{name: "1% skipped", messages: 100, framed: 99000, breaks: 1, broken: 1001, rtp: 100, rtpInStreams: 100},
		{name: "90% real", messages: 100, framed: 100000, real: 60, rtp: 40, rtpInStreams: 30, want: true},
		{name: "89% real", messages: 100, framed: 100000, real: 60, rtp: 40, rtpInStreams: 29},
		{name: "rtp of no stream", messages: 10, framed: 10000, rtp: 10},
		{name: "no messages"},
	} {
		h := tcpframe.Hold{Messages: tc.messages, FramedBytes: tc.framed, Breaks: tc.breaks, BrokenBytes: tc.broken}
		m := tcpMessages{all: tc.messages, real: tc.real, rtp: tc.rtp}
		if got := mediaFraming(h, m, tc.rtpInStreams); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTLSWhereMediaWouldBe: TLS records are opaque, so a TLS connection is a leg only where
// DESIGN puts TURN over TLS and the records look like media, 50 or more at 10 a second:
// on 5349, TURN's own port, a turn-tls leg (not an allocation kept for a candidate, a record
// now and then); on 443, shared with every HTTPS connection (and with conferencing
// services' own relays), a turn-tls leg too when its records are also a steady stream
// (2 s or more, records in 80% of the seconds, 10 a second or more) of records of media size
// (1,500 bytes or less on average), each way at least a tenth of the other's. Its media are
// hidden: no streams, an encrypted_media finding naming the leg, and the TCP figures of its
// flow. Anything else is an other flow. Before, no TLS connection was ever a leg: TURN over
// TLS was not reported at all; and then 443's was a tls leg, where DESIGN puts TURN over TLS
// "on 443/5349". A client hello that offers "stun.turn" by ALPN (RFC 7443) says TURN over
// TLS on any port, as 5349 does (before, coturn's client on 443 was no leg when its records
// paused for 10 s before it closed).
func TestTLSWhereMediaWouldBe(t *testing.T) {
	// hello puts before ws the client's hello, a handshake record offering ALPN names a
	// and b (b left out when empty), 10 ms before at.
	hello := func(at time.Duration, a, b string, ws []callgen.TCPWrite) []callgen.TCPWrite {
		names := []string{a}
		if b != "" {
			names = append(names, b)
		}
		ch := pcapgen.TLSClientHello(names...)
		rec := append([]byte{22, 3, 1, byte(len(ch) >> 8), byte(len(ch))}, ch...)
		return append([]callgen.TCPWrite{{T: at - 10*time.Millisecond, Dir: 0, Data: rec}}, ws...)
	}
	at := 600 * time.Millisecond
	// download keeps every record from the server and one in a hundred from the client.
	download := func(ws []callgen.TCPWrite) []callgen.TCPWrite {
		var out []callgen.TCPWrite
		for i, w := range ws {
			if w.Dir == 1 || i%200 == 0 {
				out = append(out, w)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		server string
		writes []callgen.TCPWrite
		leg    bool
	}{
		{"5349, 1 s", "203.0.113.7:5349", callgen.TLSWrites(at, 20*time.Millisecond, 50, 1200, 3), true},
		{"5349, an allocation kept", "203.0.113.7:5349", callgen.TLSWrites(at, time.Second, 10, 200, 9), false},
		{"443, 8 s of media", "203.0.113.7:443", callgen.TLSWrites(at, 20*time.Millisecond, 400, 1200, 4), true},
		{"443, 3 s of media", "203.0.113.7:443", callgen.TLSWrites(at, 20*time.Millisecond, 150, 1200, 5), true},
		{"443, 1.5 s of media", "203.0.113.7:443", callgen.TLSWrites(at, 20*time.Millisecond, 75, 1200, 6), false},
		{"443, a 3 s download", "203.0.113.7:443", download(callgen.TLSWrites(at, 5*time.Millisecond, 600, 1400, 7)), false},
		{"443, 8 s of 16 KB records", "203.0.113.7:443", callgen.TLSWrites(at, 20*time.Millisecond, 400, 16000, 8), false},
		{"993, 8 s of media", "203.0.113.7:993", callgen.TLSWrites(at, 20*time.Millisecond, 400, 1200, 4), false},
		// Offered as TURN by ALPN (RFC 7443, as coturn's clients do): a leg on any port, if
		// its records are many enough; the web's hellos offer h2 and http/1.1.
		{"443, 1.5 s of media, stun.turn", "203.0.113.7:443", hello(at, "h2", "stun.turn", callgen.TLSWrites(at, 20*time.Millisecond, 75, 1200, 6)), true},
		{"993, 8 s of media, stun.turn", "203.0.113.7:993", hello(at, "stun.turn", "", callgen.TLSWrites(at, 20*time.Millisecond, 400, 1200, 4)), true},
		{"443, 1.5 s of media, h2", "203.0.113.7:443", hello(at, "h2", "http/1.1", callgen.TLSWrites(at, 20*time.Millisecond, 75, 1200, 6)), false},
		{"5349, an allocation kept, stun.turn", "203.0.113.7:5349", hello(at, "stun.turn", "", callgen.TLSWrites(at, time.Second, 10, 200, 9)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := netip.MustParseAddrPort("10.0.0.1:40000")
			call := callgen.TCPCall{Client: client, Server: netip.MustParseAddrPort(tc.server), ISN: [2]uint32{1000, 77777},
				Start: 500 * time.Millisecond}
			pkts := call.Packets(tc.writes)
			c := analyze(t, pcapOf(t, pkts), Options{})
			if !tc.leg {
				if len(c.Legs) != 0 || len(c.Flows) != 0 || c.OtherFlows != 1 || len(c.Findings) != 0 {
					t.Errorf("legs %+v, flows %d, other flows %d, findings %+v; want one other flow", c.Legs, len(c.Flows), c.OtherFlows, c.Findings)
				}
				return
			}
			want := []report.Leg{{ID: "l1", Transport: report.TransportTURNTLS, Client: client.String(), Server: tc.server,
				Peers: []string{}, Flows: []string{"f1"}}}
			if d := cmp.Diff(want, c.Legs); d != "" {
				t.Errorf("legs (-want +got):\n%s", d)
			}
			if len(c.Flows) != 1 || c.Flows[0].TCP == nil || c.Flows[0].TCP.AToB.Messages+c.Flows[0].TCP.BToA.Messages != int64(len(tc.writes)) ||
				len(c.Streams) != 0 || len(c.Directions) != 0 || c.OtherFlows != 0 {
				t.Errorf("flows %+v, streams %d, directions %d, other flows %d; want the leg's flow with %d records",
					c.Flows, len(c.Streams), len(c.Directions), c.OtherFlows, len(tc.writes))
			}
			var codes []report.FindingCode
			for _, f := range c.Findings {
				codes = append(codes, f.Code)
				// Inside TLS no packet is seen: none is known late (it said "or late").
				if f.Code == report.FindingMediaOverTCP && strings.Contains(f.Text, "late") {
					t.Errorf("media_over_tcp says what TLS hides: %q", f.Text)
				}
				if f.Code == report.FindingEncryptedMedia && !slices.Equal(f.Legs, []string{"l1"}) {
					t.Errorf("encrypted_media names legs %v, want [l1]", f.Legs)
				}
			}
			if !slices.Equal(codes, []report.FindingCode{report.FindingMediaOverTCP, report.FindingEncryptedMedia}) {
				t.Errorf("findings %+v, want media_over_tcp and encrypted_media", c.Findings)
			}
		})
	}
}
