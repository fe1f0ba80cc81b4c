package analysis

import (
	"net/netip"
	"testing"

	"github.com/callpcap/callpcap/capture"
)

// digestPacketBytes is digestPacket as first written, over the addresses' 16-byte forms:
// the digests must not change, or dedup would pair other packets.
func digestPacketBytes(p *capture.Packet) uint64 {
	h := fnvOffset
	a, b := p.Src.As16(), p.Dst.As16()
	h = fnvBytes(h, a[:])
	h = fnvBytes(h, b[:])
	h = fnvU64(h, uint64(p.SrcPort)<<48|uint64(p.DstPort)<<32|uint64(p.PayloadLen)<<8|uint64(p.IPProto))
	if p.Kind == capture.KindTCP {
		h = fnvU64(h, uint64(p.TCP.Seq)<<32|uint64(p.TCP.Ack))
		h = fnvU64(h, uint64(p.TCP.Flags)<<56|uint64(p.TCP.Window)<<40|uint64(p.TCP.NSACK)<<32)
		if p.TCP.NSACK > 0 {
			h = fnvU64(h, uint64(p.TCP.SACK[0].Left)<<32|uint64(p.TCP.SACK[0].Right))
		}
	}
	n := min(len(p.Payload), 16)
	return fnvBytes(h, p.Payload[:n])
}

func TestDigestPacket(t *testing.T) {
	rtp := []byte{0x80, 0x60, 0x12, 0x34, 0, 0, 0x10, 0, 0x11, 0x11, 0x11, 0x11, 1, 2, 3, 4, 5, 6, 7}
	for _, tc := range []struct {
		name     string
		kind     capture.Kind
		src, dst string
		payload  []byte
	}{
		{"udp4 rtp", capture.KindUDP, "10.0.0.1", "198.51.100.9", rtp},
		{"udp4 16 bytes", capture.KindUDP, "10.0.0.1", "198.51.100.9", rtp[:16]},
		{"udp4 15 bytes", capture.KindUDP, "10.0.0.1", "198.51.100.9", rtp[:15]},
		{"udp4 empty", capture.KindUDP, "255.255.255.255", "0.0.0.0", nil},
		{"tcp4", capture.KindTCP, "192.0.2.1", "203.0.113.7", rtp[:3]},
		{"udp6", capture.KindUDP, "2001:db8::1", "2001:db8:ffff::2", rtp},
		{"tcp6 mapped", capture.KindTCP, "::ffff:10.0.0.1", "::ffff:198.51.100.9", rtp},
		{"udp6 zoned", capture.KindUDP, "fe80::1%eth0", "fe80::2%eth1", rtp[:9]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := capture.Packet{Kind: tc.kind, Src: netip.MustParseAddr(tc.src), Dst: netip.MustParseAddr(tc.dst),
				SrcPort: 40000, DstPort: 3478, IPProto: 17, Payload: tc.payload, PayloadLen: len(tc.payload) + 3,
				TCP: capture.TCPHeader{Seq: 0xdeadbeef, Ack: 0x01020304}}
			if got, want := digestPacket(&p), digestPacketBytes(&p); got != want {
				t.Errorf("digestPacket = %#x, want %#x", got, want)
			}
		})
	}
}

// TestDigestTellsACKsApart: two segments with the same numbers and payload differ by their
// flags, window or first SACK block: an ACK and the D-SACK after it, microseconds apart,
// are two packets, not a packet and its copy (a tester's D-SACK was analysed away, and
// the spurious resend it showed counted nowhere).
func TestDigestTellsACKsApart(t *testing.T) {
	ack := capture.Packet{Kind: capture.KindTCP, Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"),
		SrcPort: 443, DstPort: 45000, IPProto: 6, TCP: capture.TCPHeader{Seq: 1, Ack: 160369, Flags: 0x10, Window: 65535}}
	dsack, win, fin := ack, ack, ack
	dsack.TCP.SACK[0], dsack.TCP.NSACK = capture.SACKBlock{Left: 107941, Right: 108455}, 1
	win.TCP.Window = 0
	fin.TCP.Flags |= 0x01
	for name, p := range map[string]capture.Packet{"a D-SACK": dsack, "a zero window": win, "a FIN": fin} {
		if digestPacket(&p) == digestPacket(&ack) {
			t.Errorf("%s has the digest of the ACK before it", name)
		}
		if digestPacket(&p) != digestPacketBytes(&p) {
			t.Errorf("%s: digestPacket differs from its reference", name)
		}
	}
}

// TestDedupLateCopy: dumpcap writes each interface's packets in blocks, so a forwarded
// copy may follow its original past other packets, some in its slot. Here the original of
// a TCP segment, then packets 20, 40 and 100 ms later whose digests share its slot, then
// its copy on the other interface, stamped 5.6 µs after it (a capture of three namespaces
// where the table's two ways lost the original to the third). The copy is recognised while
// fewer than dedupWays other packets of its slot came between; a repeat on the same
// interface never is one.
func TestDedupLateCopy(t *testing.T) {
	const t0 = int64(1_796_211_423_935_521_721)
	orig := digests{sum: 0x443e18c98309e938, link: 1}
	var others []uint64
	for s := uint64(1); len(others) < dedupWays; s++ {
		if s != orig.sum && slotOf(s) == slotOf(orig.sum) {
			others = append(others, s)
		}
	}
	at := func(t int64) *capture.Packet { return &capture.Packet{Kind: capture.KindTCP, Time: t} }
	for between := 0; between <= dedupWays; between++ {
		var d dedup
		d.seen(at(t0), orig)
		for i, s := range others[:between] {
			d.seen(at(t0+int64(i+1)*20_000_000), digests{sum: s, link: 1})
		}
		want := between < dedupWays
		if got := d.seen(at(t0+5_611), digests{sum: orig.sum, link: 2}); got != want {
			t.Errorf("%d packets of its slot between: copy seen %v, want %v", between, got, want)
		}
		if want && d.seen(at(t0+6_000), orig) {
			t.Errorf("%d between: a repeat on the original's interface taken for a capture duplicate", between)
		}
	}
}
