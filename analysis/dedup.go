package analysis

import (
	"encoding/binary"
	"net/netip"

	"github.com/callpcap/callpcap/capture"
)

// dupWindow is how close in capture time two copies of one packet must be to be one packet
// recorded twice (tcpdump -i any on a host that forwards records it on both interfaces,
// microseconds apart).
const dupWindow = 2_000_000 // 2 ms

// dedup recognises capture duplicates: the same IP datagram recorded again within dupWindow
// on another interface, or with another link header (the SLL/SLL2 interface index or packet
// type differs). A byte-identical frame on the same interface is a copy the network made and
// is not a capture duplicate.
type dedup struct {
	table [1 << dedupBits]dupSlot // by slotOf(digest)
}

// dupSlot holds the last dedupWays packets of one slot, replaced in turn (next): the
// digest of the transport headers and payload (0: empty; a digest is 0 once in 2^64), the
// time, and the digest of the link header and interface.
type dupSlot struct {
	sum  [dedupWays]uint64
	t    [dedupWays]int64
	link [dedupWays]uint64
	next uint8
}

// digests are what dedup needs of a packet. They are taken on the reading goroutine (see
// readBatches), where the packet's first bytes are still in the core's cache: taken on the
// analysing goroutine, they were its most expensive step, a cache miss per packet.
type digests struct {
	sum, link uint64
}

// digestsOf returns p's digests; zero for packets dedup does not look at.
func digestsOf(p *capture.Packet) digests {
	if p.Kind != capture.KindUDP && p.Kind != capture.KindTCP {
		return digests{}
	}
	return digests{digestPacket(p), digestLink(p)}
}

// seen reports whether p, whose digests are dg, is a capture duplicate of a recent packet,
// and remembers p. The copy may be stamped before the one written first: a file merged from
// two interfaces' captures, or one interface's clock a few microseconds behind the other's.
func (d *dedup) seen(p *capture.Packet, dg digests) bool {
	if p.Kind != capture.KindUDP && p.Kind != capture.KindTCP {
		return false
	}
	// Several ways: a copy may be written well after its original, past other packets
	// (dumpcap writes each interface's packets in blocks: copies came up to 36 records
	// late), some of which share its slot. It is recognised while fewer than dedupWays
	// other packets of its slot came between. A repeat on the same interface replaces its
	// own entry.
	sl := &d.table[slotOf(dg.sum)]
	v := -1
	if s := &sl.sum; s[0] == dg.sum || s[1] == dg.sum || s[2] == dg.sum || s[3] == dg.sum {
		v = sl.match(p, dg)
		if v == matched {
			return true
		}
	}
	if v < 0 {
		v = int(sl.next)
		sl.next = (sl.next + 1) % dedupWays
	}
	sl.sum[v], sl.t[v], sl.link[v] = dg.sum, p.Time, dg.link
	return false
}

// match looks in sl for p's digests: matched when p is a copy of a packet there, else the
// way of p's own earlier entry (a repeat on the same interface), else -1.
func (sl *dupSlot) match(p *capture.Packet, dg digests) int {
	own := -1
	for i := range sl.sum {
		if sl.sum[i] == dg.sum {
			if sl.link[i] != dg.link && abs(p.Time-sl.t[i]) <= dupWindow {
				return matched
			}
			own = i
		}
	}
	return own
}

const matched = -2

// seen's first look names the four ways: a compile error if dedupWays changes.
var _ = [1]int{}[dedupWays-4]

// slotOf is the table slot of a digest: its bits mixed (MurmurHash3's 64-bit finaliser),
// the top ones taken. FNV's multiplications carry each word's bits upward only, so the
// digest's low bits depend on the low bits of each word hashed alone; a multiplication by
// the golden ratio alone still put three of five segments of one TCP stream in one slot.
func slotOf(sum uint64) uint64 {
	sum ^= sum >> 33
	sum *= 0xff51afd7ed558ccd
	sum ^= sum >> 33
	return sum >> (64 - dedupBits)
}

// dedupBits and dedupWays size the table: 1024 slots of four entries (104 KiB).
const (
	dedupBits = 10
	dedupWays = 4
)

// digestPacket hashes what a forwarded copy keeps: addresses, ports, lengths, the TCP
// header's numbers, flags, window and first SACK block (digestTCP), and up to 16 payload bytes (TTL and checksums change hop by hop); for
// RTP those bytes hold the sequence number, timestamp and SSRC. The hash is FNV-1a over
// 8-byte words of the addresses in their 16-byte form, then of the rest; it is computed
// here without building those forms (half the time), and the test holds it to them.
func digestPacket(p *capture.Packet) uint64 {
	h := fnvAddr(fnvOffset, p.Src)
	h = fnvAddr(h, p.Dst)
	h = fnvU64(h, uint64(p.SrcPort)<<48|uint64(p.DstPort)<<32|uint64(p.PayloadLen)<<8|uint64(p.IPProto))
	if p.Kind == capture.KindTCP {
		h = fnvU64(h, uint64(p.TCP.Seq)<<32|uint64(p.TCP.Ack))
		h = digestTCP(h, &p.TCP)
	}
	if b := p.Payload; len(b) >= 16 {
		h = fnvU64(h, binary.LittleEndian.Uint64(b))
		return fnvU64(h, binary.LittleEndian.Uint64(b[8:16]))
	}
	return fnvBytes(h, p.Payload)
}

// digestTCP adds what tells two segments with the same numbers and payload apart: their
// flags, window and first SACK block. A D-SACK rides on an ACK of the same number as the
// one before it, microseconds apart: taken for its copy, it was analysed away, and the
// spurious resend it showed counted nowhere (a tester's capture).
func digestTCP(h uint64, t *capture.TCPHeader) uint64 {
	h = fnvU64(h, uint64(t.Flags)<<56|uint64(t.Window)<<40|uint64(t.NSACK)<<32)
	if t.NSACK > 0 {
		h = fnvU64(h, uint64(t.SACK[0].Left)<<32|uint64(t.SACK[0].Right))
	}
	return h
}

// fnvAddr is fnvBytes over a.As16(). An IPv4 address's 16-byte form is ::ffff:a.b.c.d:
// a zero word, then 00 00 ff ff a b c d.
func fnvAddr(h uint64, a netip.Addr) uint64 {
	if a.Is4() {
		v := a.As4()
		h = fnvU64(h, 0)
		return fnvU64(h, 0xffff<<16|uint64(binary.LittleEndian.Uint32(v[:]))<<32)
	}
	b := a.As16()
	h = fnvU64(h, binary.LittleEndian.Uint64(b[:8]))
	return fnvU64(h, binary.LittleEndian.Uint64(b[8:]))
}

// digestLink hashes the interface and the first bytes of the frame: MAC addresses for
// Ethernet, the interface index and packet type for SLL/SLL2, TTL for raw IP.
func digestLink(p *capture.Packet) uint64 {
	h := fnvU64(fnvOffset, uint64(p.Iface))
	return fnvBytes(h, p.Data[:min(len(p.Data), 16)])
}

const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func fnvBytes(h uint64, b []byte) uint64 {
	for len(b) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * fnvPrime
		b = b[8:]
	}
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

func fnvU64(h, v uint64) uint64 { return (h ^ v) * fnvPrime }

func abs(d int64) int64 {
	if d < 0 {
		return -d
	}
	return d
}
