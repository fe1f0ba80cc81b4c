package scrub

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// The test captures, each written twice: with random media payload (what SRTP looks like)
// and with that payload zeros (what scrub must leave of it), every other byte the same.

// fill returns the payload filler of a stream: random bytes seeded by ssrc and the packet,
// or zeros.
func fill(ssrc uint32, zero bool) func(i int, b []byte) {
	return func(i int, b []byte) {
		if zero {
			clear(b)
			return
		}
		r := rand.New(rand.NewPCG(uint64(ssrc), uint64(i)))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
	}
}

var (
	alice   = netip.MustParseAddrPort("10.0.0.1:40000")
	bob     = netip.MustParseAddrPort("198.51.100.9:50000")
	alice6  = netip.MustParseAddrPort("[2001:db8::1]:40002")
	bob6    = netip.MustParseAddrPort("[2001:db8::9]:50002")
	turnSrv = netip.MustParseAddrPort("203.0.113.7:3478")
	turnTCP = netip.MustParseAddrPort("203.0.113.7:443")
	relayed = netip.MustParseAddrPort("203.0.113.7:50012")
)

const (
	videoSSRC = 0x1a2b3c4d
	rtxSSRC   = 0x1a2b3c4e
)

// udpCall is callgen.RTXRepairCall (a direct call over UDP: audio each way, video with
// losses that an RTX stream repairs 30 ms later plus padding-only probes, RTCP, audio over
// IPv6) with DTLS datagrams holding a handshake record and an application_data record.
// The RTX packets' OSNs are kept in the zeroed form too: the analysis reads them.
func udpCall(zero bool) []callgen.Packet {
	pkts := callgen.RTXRepairCall(func(ssrc uint32) func(i int, b []byte) { return fill(ssrc, zero) })
	for k := 0; k < 5; k++ {
		t := callgen.Epoch + int64(time.Second)*int64(k+1)
		pkts = append(pkts, callgen.Packet{T: t + 1000, Frame: pcapgen.EtherUDP(alice, bob, dtlsDatagram(k, zero))})
	}
	return pkts
}

// dtlsDatagram is a DTLS 1.2 datagram of two records: a handshake fragment (kept) and
// application data (zeroed), each 40 random bytes.
func dtlsDatagram(k int, zero bool) []byte {
	r := rand.New(rand.NewPCG(7, uint64(k)))
	var b []byte
	for _, typ := range []byte{22, 23} {
		// type(1) version(2)=DTLS 1.2 epoch(2) sequence_number(6) length(2)
		b = append(b, typ, 0xfe, 0xfd, 0, byte(typ-22), 0, 0, 0, 0, 0, byte(k), 0, 40)
		body := make([]byte, 40)
		for j := range body {
			body[j] = byte(r.Uint32())
		}
		if zero && typ == 23 {
			clear(body)
		}
		b = append(b, body...)
	}
	return b
}

// turnUDPCall is a call relayed over TURN/UDP: audio and video in ChannelData, and audio in
// Send and Data indications.
func turnUDPCall(zero bool) []callgen.Packet {
	const n = 200
	audio := callgen.Stream{Src: alice, Dst: turnSrv, SSRC: 0x0a0a0a0a, PT: 111, ClockRate: 48000,
		Interval: 20 * time.Millisecond, PayloadSize: 80, Count: n, Start: 100 * time.Millisecond, Channel: 0x4000}
	audio.Fill = fill(audio.SSRC, zero)
	video := callgen.Stream{Src: turnSrv, Dst: alice, SSRC: videoSSRC, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1001, Count: 2 * n, Start: 100 * time.Millisecond, Channel: 0x4000}
	video.Fill = fill(video.SSRC, zero)
	pkts := append(audio.Packets(), video.Packets()...)
	ind := callgen.Stream{SSRC: 0x0d0d0d0d, PT: 0, ClockRate: 8000, Interval: 20 * time.Millisecond, PayloadSize: 160}
	ind.Fill = fill(ind.SSRC, zero)
	back := ind
	back.SSRC = 0x0e0e0e0e
	back.Fill = fill(back.SSRC, zero)
	for i := 0; i < n; i++ {
		t := callgen.Epoch + int64(100*time.Millisecond) + int64(i)*int64(20*time.Millisecond) + 5000
		pkts = append(pkts,
			callgen.Packet{T: t, Frame: pcapgen.EtherUDP(alice, turnSrv, callgen.SendIndication(byte(i), bob, ind.RTP(i)))},
			callgen.Packet{T: t + 7000, Frame: pcapgen.EtherUDP(turnSrv, alice, callgen.DataIndication(byte(i), bob, back.RTP(i)))})
	}
	return pkts
}

// turnTCPCall is a call relayed over TURN/TCP, 60 ms away, senders coalescing writes into
// full segments (messages straddle segments): one segment in 50 lost after the capture
// point (seen twice), one in 50 before it (seen once, late), and one the capture misses
// altogether (a capture gap the unframer resynchronises after).
func turnTCPCall(zero bool) []callgen.Packet {
	call := callgen.TCPCall{Client: alice, Server: turnTCP, RTT: 60 * time.Millisecond, RTO: 200 * time.Millisecond,
		ISN: [2]uint32{0xfffff000, 0x9000}, MSS: 1000, SACK: true,
		LoseAfter:  func(seg int) bool { return seg%50 == 49 },
		LoseBefore: func(seg int) bool { return seg%50 == 24 },
		Miss:       func(dir, seg int) bool { return dir == 1 && seg == 120 },
	}
	const n = 250
	streams := []callgen.Stream{
		{Src: alice, SSRC: 0x0a0a0a0a, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 80, Count: n, Start: 300 * time.Millisecond},
		{Src: turnTCP, SSRC: 0x0b0b0b0b, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 81, Count: n, Start: 300 * time.Millisecond},
		{Src: alice, SSRC: videoSSRC, PT: 96, ClockRate: 90000, Interval: 10 * time.Millisecond, PayloadSize: 1100, Count: 2 * n, Start: 300 * time.Millisecond},
		{Src: turnTCP, SSRC: 0x5e6f7a8b, PT: 96, ClockRate: 90000, Interval: 10 * time.Millisecond, PayloadSize: 1003, Count: 2 * n, Start: 300 * time.Millisecond},
	}
	for i := range streams {
		streams[i].Fill = fill(streams[i].SSRC, zero)
	}
	dir := func(s *callgen.Stream) int {
		if s.Src == alice {
			return 0
		}
		return 1
	}
	media := callgen.MediaWrites(func(rtp []byte) []byte { return callgen.ChannelData(0x4000, rtp) }, dir, streams...)
	setup := callgen.TURNTCPSetup(100*time.Millisecond, call.RTT, relayed, bob, 0x4000)
	return call.Packets(callgen.MergeWrites(setup, media))
}

// iceTCPCall is ICE-TCP over IPv6 (RFC 4571 framing): audio and video each way, one segment
// in 40 lost after the capture point.
func iceTCPCall(zero bool) []callgen.Packet {
	call := callgen.TCPCall{Client: alice6, Server: bob6, RTT: 40 * time.Millisecond,
		ISN: [2]uint32{0x1000, 0x7fffff00}, LoseAfter: func(seg int) bool { return seg%40 == 39 }}
	const n = 200
	streams := []callgen.Stream{
		{Src: alice6, SSRC: 0x0a0a0a0a, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 80, Count: n, Start: 100 * time.Millisecond},
		{Src: bob6, SSRC: 0x0b0b0b0b, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 80, Count: n, Start: 100 * time.Millisecond},
		{Src: alice6, SSRC: videoSSRC, PT: 96, ClockRate: 90000, Interval: 10 * time.Millisecond, PayloadSize: 900, Count: 2 * n, Start: 100 * time.Millisecond},
	}
	for i := range streams {
		streams[i].Fill = fill(streams[i].SSRC, zero)
	}
	dir := func(s *callgen.Stream) int {
		if s.Src == alice6 {
			return 0
		}
		return 1
	}
	return call.Packets(callgen.MediaWrites(callgen.Frame4571, dir, streams...))
}

// capCase is one test capture and its container.
type capCase struct {
	name  string
	pkts  func(zero bool) []callgen.Packet
	write func(pkts []callgen.Packet) []byte
}

func pcapOf(nano bool, snap int) func([]callgen.Packet) []byte {
	return func(pkts []callgen.Packet) []byte {
		var b bytes.Buffer
		if err := callgen.Write(pcapgen.NewPcap(&b, capture.LinkEthernet, nano, false, snap), pkts); err != nil {
			panic(err)
		}
		return b.Bytes()
	}
}

func pcapngOf(pkts []callgen.Packet) []byte {
	var b bytes.Buffer
	w := pcapgen.NewPcapNG(&b, []pcapgen.Iface{{Link: capture.LinkEthernet, TSResol: 9}})
	if err := callgen.Write(w, pkts); err != nil {
		panic(err)
	}
	return b.Bytes()
}

var cases = []capCase{
	{"udp-pcapng", udpCall, pcapngOf},
	{"udp-snapped-pcap", udpCall, pcapOf(false, 200)},
	{"turn-udp-pcap-nano", turnUDPCall, pcapOf(true, 0)},
	{"turn-tcp-pcap", turnTCPCall, pcapOf(false, 0)},
	{"ice-tcp-ipv6-pcapng", iceTCPCall, pcapngOf},
}

// udp4Checksum is where the UDP checksum of an IPv4 frame lies as pcapgen builds it:
// Ethernet (14), IPv4 without options (20), then the UDP header's bytes 6-7.
const udp4Checksum = 14 + 20 + 6

// expected returns what scrub must make of the random capture: the zero capture, except
// that the UDP/IPv4 datagrams whose payload changed carry checksum 0.
func expected(random, zero []byte) []byte {
	want := bytes.Clone(zero)
	rr, _ := capture.Open(bytes.NewReader(random))
	rz, _ := capture.Open(bytes.NewReader(zero))
	var pr, pz capture.Packet
	for rr.Next(&pr) == nil && rz.Next(&pz) == nil {
		if pz.Kind == capture.KindUDP && pz.Src.Is4() && !bytes.Equal(pr.Data, pz.Data) {
			binary.BigEndian.PutUint16(want[rz.DataOffset()+udp4Checksum:], 0)
		}
	}
	return want
}
