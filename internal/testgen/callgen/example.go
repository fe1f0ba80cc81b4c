package callgen

import (
	"net"
	"net/netip"
	"time"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// Addresses of the example call.
var (
	ExampleClient  = netip.MustParseAddrPort("10.0.0.1:40000")
	ExampleServer  = netip.MustParseAddrPort("203.0.113.7:3478")
	ExampleRelayed = netip.MustParseAddrPort("203.0.113.7:50012")
	ExamplePeer    = netip.MustParseAddrPort("198.51.100.9:50000")
)

// ExampleTURNCall is a 20-second WebRTC-like call relayed over TURN/UDP, the capture taken at
// the client: the TURN allocation (with its 401 challenge), a permission and a channel
// binding to the peer, an ICE check through the relay, then Opus-sized audio both ways and
// video each way. The client's video ramps from 200 kbps to 1.2 Mbps over 7 s, loses every
// 200th packet, and 12 of its packets at 15 s are held 300 ms (too late to be played).
func ExampleTURNCall() []Packet {
	c, srv, peer := ExampleClient, ExampleServer, ExamplePeer
	ms := func(n int) int64 { return Epoch + int64(n)*int64(time.Millisecond) }
	var pkts []Packet
	add := func(at int, src, dst netip.AddrPort, payload []byte) {
		pkts = append(pkts, Packet{T: ms(at), Frame: pcapgen.EtherUDP(src, dst, payload)})
	}
	req, ok, bad := stun.ClassRequest, stun.ClassSuccessResponse, stun.ClassErrorResponse
	add(0, c, srv, stunMsg(1, stun.MethodAllocate, req))
	add(42, srv, c, stunMsg(1, stun.MethodAllocate, bad, stun.CodeUnauthorized))
	add(45, c, srv, stunMsg(2, stun.MethodAllocate, req))
	add(87, srv, c, stunMsg(2, stun.MethodAllocate, ok, xor(stun.AttrXORRelayedAddress, ExampleRelayed),
		rawAttr(stun.AttrLifetime, 0, 0, 2, 0x58)))
	add(90, c, srv, stunMsg(3, stun.MethodCreatePermission, req, xor(stun.AttrXORPeerAddress, peer)))
	add(131, srv, c, stunMsg(3, stun.MethodCreatePermission, ok))
	add(133, c, srv, stunMsg(4, stun.MethodChannelBind, req, rawAttr(stun.AttrChannelNumber, 0x40, 0, 0, 0),
		xor(stun.AttrXORPeerAddress, peer)))
	add(175, srv, c, stunMsg(4, stun.MethodChannelBind, ok))
	// An ICE check to the peer through the relay, and its answer 95 ms later.
	add(180, c, srv, ChannelData(0x4000, stunMsg(5, stun.MethodBinding, req, stun.NewUsername("bobf:alic"))))
	add(275, srv, c, ChannelData(0x4000, stunMsg(5, stun.MethodBinding, ok, xor(stun.AttrXORMappedAddress, c))))

	const start = 300 * time.Millisecond
	const length = 20 * time.Second
	audioOut := Stream{Src: c, Dst: srv, SSRC: 0x0a0a0a0a, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond,
		PayloadSize: 80, Count: int(length / (20 * time.Millisecond)), Start: start, Channel: 0x4000}
	audioIn := audioOut
	audioIn.Src, audioIn.Dst, audioIn.SSRC = srv, c, 0x0b0b0b0b
	pkts = append(pkts, audioOut.Packets()...)
	pkts = append(pkts, audioIn.Packets()...)
	videoOut := Video{Src: c, Dst: srv, SSRC: 0x1a2b3c4d, PT: 96, Start: start, Duration: length, MTU: 1100,
		Channel: 0x4000,
		Kbps:    func(t time.Duration) float64 { return min(1200, 200+float64(t)/float64(time.Second)*150) },
		Lose:    func(seq int) bool { return seq%200 == 199 },
	}
	// Find the packets sent around 15 s, then hold twelve of them 300 ms.
	first15 := countVideoBefore(videoOut, 15*time.Second)
	videoOut.Delay = func(seq int) time.Duration {
		if seq >= first15 && seq < first15+12 {
			return 300 * time.Millisecond
		}
		return 0
	}
	pkts = append(pkts, videoOut.Packets()...)
	videoIn := Video{Src: srv, Dst: c, SSRC: 0x5e6f7a8b, PT: 96, Start: start, Duration: length, MTU: 1100,
		Channel: 0x4000, Kbps: func(time.Duration) float64 { return 600 }}
	pkts = append(pkts, videoIn.Packets()...)
	return pkts
}

// countVideoBefore is how many packets v sends in its first d.
func countVideoBefore(v Video, d time.Duration) int {
	v.Duration, v.Lose, v.Delay, v.Channel = d, nil, nil, 0
	return len(v.Packets())
}

// DataIndication is a TURN Data indication (RFC 8656, 11.4) with transaction id byte id:
// the datagram data that the server relays from peer.
func DataIndication(id byte, peer netip.AddrPort, data []byte) []byte {
	return stunMsg(id, stun.MethodData, stun.ClassIndication, xor(stun.AttrXORPeerAddress, peer), rawAttr(stun.AttrData, data...))
}

// SendIndication is a TURN Send indication (RFC 8656, 11.3): the datagram data that the
// client sends to peer through the server.
func SendIndication(id byte, peer netip.AddrPort, data []byte) []byte {
	return stunMsg(id, stun.MethodSend, stun.ClassIndication, xor(stun.AttrXORPeerAddress, peer), rawAttr(stun.AttrData, data...))
}

func stunMsg(id byte, method stun.Method, class stun.MessageClass, setters ...stun.Setter) []byte {
	return callStunMsg(0, id, method, class, setters...)
}

// callStunMsg is stunMsg for one of several calls in a capture: call (0 for a capture of
// one) goes into the transaction ID, so that no two calls share one.
func callStunMsg(call int, id byte, method stun.Method, class stun.MessageClass, setters ...stun.Setter) []byte {
	var tid [stun.TransactionIDSize]byte
	tid[0], tid[1], tid[2], tid[11] = id, byte(call>>8), byte(call), 0x5a
	m := stun.New()
	all := append([]stun.Setter{stun.NewTransactionIDSetter(tid), stun.NewType(method, class)}, setters...)
	if err := m.Build(all...); err != nil {
		panic(err) // the setters above are fixed: a failure is a programming error
	}
	return m.Raw
}

type setter func(m *stun.Message) error

func (f setter) AddTo(m *stun.Message) error { return f(m) }

func xor(attr stun.AttrType, ap netip.AddrPort) stun.Setter {
	return setter(func(m *stun.Message) error {
		return stun.XORMappedAddress{IP: net.IP(ap.Addr().AsSlice()), Port: int(ap.Port())}.AddToAs(m, attr)
	})
}

func rawAttr(attr stun.AttrType, v ...byte) stun.Setter {
	return setter(func(m *stun.Message) error { m.Add(attr, v); return nil })
}

// ExampleTURNTCPCall is the same kind of call as ExampleTURNCall with UDP blocked: the client
// reaches TURN over TCP (port 443), 80 ms away. Audio and 880 kbps video each way for 20 s;
// one segment in 150 is lost after the capture going up (seen twice) and one in 150 before
// it coming down (seen once, late): TCP repairs both after a 300 ms timeout, and the media
// written meanwhile waits behind them.
func ExampleTURNTCPCall() []Packet {
	c := ExampleClient
	srv := netip.MustParseAddrPort("203.0.113.7:443")
	call := TCPCall{Client: c, Server: srv, RTT: 80 * time.Millisecond, RTO: 300 * time.Millisecond,
		ISN:        [2]uint32{0x1000, 0x9000},
		LoseAfter:  func(seg int) bool { return seg%150 == 149 },
		LoseBefore: func(seg int) bool { return seg%150 == 149 },
	}
	const start = 300 * time.Millisecond
	const length = 20 * time.Second
	n := int(length / (20 * time.Millisecond))
	streams := []Stream{
		{Src: c, SSRC: 0x0a0a0a0a, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 80, Count: n, Start: start},
		{Src: srv, SSRC: 0x0b0b0b0b, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 80, Count: n, Start: start},
		{Src: c, SSRC: 0x1a2b3c4d, PT: 96, ClockRate: 90000, Interval: 10 * time.Millisecond, PayloadSize: 1100, Count: 2 * n, Start: start},
		{Src: srv, SSRC: 0x5e6f7a8b, PT: 96, ClockRate: 90000, Interval: 10 * time.Millisecond, PayloadSize: 1100, Count: 2 * n, Start: start},
	}
	dir := func(s *Stream) int {
		if s.Src == c {
			return 0
		}
		return 1
	}
	media := MediaWrites(func(rtp []byte) []byte { return ChannelData(0x4000, rtp) }, dir, streams...)
	setup := TURNTCPSetup(100*time.Millisecond, call.RTT, ExampleRelayed, ExamplePeer, 0x4000)
	return call.Packets(MergeWrites(setup, media))
}
