package pcapgen

import (
	"encoding/binary"
	"net/netip"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/wire"
)

// EtherTypes and IP protocol numbers the builders use.
const (
	EtherTypeIPv4 = 0x0800
	EtherTypeIPv6 = 0x86DD
	EtherTypeARP  = 0x0806
	EtherTypeVLAN = 0x8100 // IEEE 802.1Q
	EtherTypeQinQ = 0x88A8 // IEEE 802.1ad service tag

	ProtoHopByHop = 0
	ProtoICMP     = 1
	ProtoTCP      = 6
	ProtoUDP      = 17
	ProtoRouting  = 43
	ProtoFragment = 44
	ProtoICMPv6   = 58
	ProtoNoNext   = 59
	ProtoDestOpts = 60
)

var (
	srcMAC = [6]byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}
	dstMAC = [6]byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}
)

// VLANTag is one 802.1Q/802.1ad tag: TPID (0x8100, 0x88a8, 0x9100) and TCI (PCP, DEI, VID).
type VLANTag struct{ TPID, TCI uint16 }

// Ether returns an Ethernet II frame around payload. Each vlans entry adds a tag, outermost
// first; with several tags, every tag but the innermost uses TPID 0x88a8 (QinQ), the
// innermost 0x8100.
func Ether(payload []byte, etherType uint16, vlans ...uint16) []byte {
	tags := make([]VLANTag, len(vlans))
	for i, v := range vlans {
		tags[i] = VLANTag{TPID: EtherTypeQinQ, TCI: v}
		if i == len(vlans)-1 {
			tags[i].TPID = EtherTypeVLAN
		}
	}
	return EtherTags(payload, etherType, tags...)
}

// EtherTags is Ether with explicit tag protocol identifiers.
func EtherTags(payload []byte, etherType uint16, tags ...VLANTag) []byte {
	b := make([]byte, 0, 14+4*len(tags)+len(payload))
	b = append(b, dstMAC[:]...)
	b = append(b, srcMAC[:]...)
	for _, t := range tags {
		b = binary.BigEndian.AppendUint16(b, t.TPID)
		b = binary.BigEndian.AppendUint16(b, t.TCI)
	}
	b = binary.BigEndian.AppendUint16(b, etherType)
	return append(b, payload...)
}

// SLL returns a Linux cooked v1 frame (LINKTYPE_LINUX_SLL, 16 bytes of header): packet type
// 0 (to us), ARPHRD_ETHER, a 6-byte source address, then protocol.
func SLL(payload []byte, protocol uint16) []byte {
	b := make([]byte, 0, 16+len(payload))
	b = binary.BigEndian.AppendUint16(b, 0) // packet type: host
	b = binary.BigEndian.AppendUint16(b, 1) // ARPHRD_ETHER
	b = binary.BigEndian.AppendUint16(b, 6) // address length
	b = append(b, srcMAC[:]...)
	b = append(b, 0, 0) // address padding to 8 bytes
	b = binary.BigEndian.AppendUint16(b, protocol)
	return append(b, payload...)
}

// SLL2 returns a Linux cooked v2 frame (LINKTYPE_LINUX_SLL2, 20 bytes of header) as tcpdump
// -i any writes on current systems, with the given interface index, of a packet that
// arrived at the host (packet type 0).
func SLL2(payload []byte, protocol uint16, ifindex uint32) []byte {
	return SLL2Typed(payload, protocol, ifindex, PacketHost)
}

// Linux packet types (the SLL and SLL2 headers' packet type): where the packet went.
const (
	PacketHost     = 0 // arrived, addressed to the host
	PacketOutgoing = 4 // sent by the host
)

// SLL2Typed is SLL2 with the given packet type.
func SLL2Typed(payload []byte, protocol uint16, ifindex uint32, pktType byte) []byte {
	b := make([]byte, 0, 20+len(payload))
	b = binary.BigEndian.AppendUint16(b, protocol)
	b = binary.BigEndian.AppendUint16(b, 0) // reserved
	b = binary.BigEndian.AppendUint32(b, ifindex)
	b = binary.BigEndian.AppendUint16(b, 1) // ARPHRD_ETHER
	b = append(b, pktType, 6)               // packet type, address length 6
	b = append(b, srcMAC[:]...)
	b = append(b, 0, 0)
	return append(b, payload...)
}

// Null returns a LINKTYPE_NULL frame: the address family as a 4-byte little-endian (the
// writing host's order) word; 2 is IPv4, 24, 28 or 30 IPv6.
func Null(payload []byte, family uint32) []byte {
	b := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(payload)), family)
	return append(b, payload...)
}

// Loop returns a LINKTYPE_LOOP frame: the address family in network order.
func Loop(payload []byte, family uint32) []byte {
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(payload)), family)
	return append(b, payload...)
}

// IPv4 returns an IPv4 packet (TTL 64, id 0, DF clear) with a correct header checksum.
// options, if any, are padded with zeros (End of Options List) to a multiple of 4 bytes.
func IPv4(src, dst netip.Addr, proto uint8, payload []byte, options ...byte) []byte {
	return ipv4(src, dst, proto, 0, 0, false, payload, options)
}

// IPv4Fragment returns one IPv4 fragment: payload placed at byte offset off (a multiple of 8
// for a well-formed fragment) of datagram id, with the More Fragments flag when more.
func IPv4Fragment(src, dst netip.Addr, proto uint8, id uint16, off int, more bool, payload []byte) []byte {
	return ipv4(src, dst, proto, id, off, more, payload, nil)
}

// IPv4Fragments splits payload (the transport header and data) into IPv4 fragments of at
// most fragSize payload bytes each (rounded down to a multiple of 8), in order.
func IPv4Fragments(src, dst netip.Addr, proto uint8, id uint16, payload []byte, fragSize int) [][]byte {
	fragSize &^= 7
	if fragSize <= 0 {
		fragSize = 8
	}
	var out [][]byte
	for off := 0; off < len(payload) || off == 0; off += fragSize {
		end := min(off+fragSize, len(payload))
		out = append(out, IPv4Fragment(src, dst, proto, id, off, end < len(payload), payload[off:end]))
		if end == len(payload) {
			break
		}
	}
	return out
}

func ipv4(src, dst netip.Addr, proto uint8, id uint16, off int, more bool, payload, options []byte) []byte {
	opts := pad4(append([]byte(nil), options...))
	hl := 20 + len(opts)
	b := make([]byte, hl, hl+len(payload))
	b[0] = 0x40 | byte(hl/4)
	binary.BigEndian.PutUint16(b[2:], uint16(hl+len(payload)))
	binary.BigEndian.PutUint16(b[4:], id)
	fo := uint16(off/8) & 0x1fff
	if more {
		fo |= 0x2000
	}
	binary.BigEndian.PutUint16(b[6:], fo)
	b[8] = 64
	b[9] = proto
	s, d := src.As4(), dst.As4()
	copy(b[12:], s[:])
	copy(b[16:], d[:])
	copy(b[20:], opts)
	binary.BigEndian.PutUint16(b[10:], ^wire.ChecksumFold(wire.ChecksumAdd(0, b[:hl])))
	return append(b, payload...)
}

// ExtHeader is one IPv6 extension header: Type is its protocol number (0 hop-by-hop, 43
// routing, 60 destination options, 44 fragment); Data is what follows the next-header and
// length bytes, padded with zeros (Pad1 options) to a multiple of 8 bytes overall. For a
// fragment header use FragHeader.
type ExtHeader struct {
	Type uint8
	Data []byte
}

// FragHeader returns the IPv6 fragment extension header for offset off (a multiple of 8),
// the M flag and identification id.
func FragHeader(off int, more bool, id uint32) ExtHeader {
	d := make([]byte, 6)
	fo := uint16(off/8) << 3
	if more {
		fo |= 1
	}
	binary.BigEndian.PutUint16(d, fo)
	binary.BigEndian.PutUint32(d[2:], id)
	return ExtHeader{Type: ProtoFragment, Data: d}
}

// IPv6 returns an IPv6 packet whose extension headers are ext, in order, then payload of
// protocol nextHeader.
func IPv6(src, dst netip.Addr, nextHeader uint8, payload []byte, ext ...ExtHeader) []byte {
	var exts []byte
	for i, e := range ext {
		nh := nextHeader
		if i+1 < len(ext) {
			nh = ext[i+1].Type
		}
		h := append([]byte{nh, 0}, e.Data...)
		for len(h)%8 != 0 {
			h = append(h, 0)
		}
		if e.Type != ProtoFragment {
			h[1] = byte(len(h)/8 - 1)
		}
		exts = append(exts, h...)
	}
	first := nextHeader
	if len(ext) > 0 {
		first = ext[0].Type
	}
	b := make([]byte, 40, 40+len(exts)+len(payload))
	b[0] = 0x60
	binary.BigEndian.PutUint16(b[4:], uint16(len(exts)+len(payload)))
	b[6] = first
	b[7] = 64
	s, d := src.As16(), dst.As16()
	copy(b[8:], s[:])
	copy(b[24:], d[:])
	b = append(b, exts...)
	return append(b, payload...)
}

// IPv6Fragments splits payload (of protocol nextHeader) into IPv6 fragments of at most
// fragSize bytes (rounded down to a multiple of 8). ext are the unfragmentable extension
// headers, placed before each fragment header.
func IPv6Fragments(src, dst netip.Addr, nextHeader uint8, id uint32, payload []byte, fragSize int, ext ...ExtHeader) [][]byte {
	fragSize &^= 7
	if fragSize <= 0 {
		fragSize = 8
	}
	var out [][]byte
	for off := 0; ; off += fragSize {
		end := min(off+fragSize, len(payload))
		hs := append(append([]ExtHeader(nil), ext...), FragHeader(off, end < len(payload), id))
		out = append(out, IPv6(src, dst, nextHeader, payload[off:end], hs...))
		if end >= len(payload) {
			return out
		}
	}
}

// UDP returns a UDP datagram with a correct checksum over the IPv4 or IPv6 pseudo-header.
func UDP(src, dst netip.AddrPort, payload []byte) []byte {
	b := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint16(b, src.Port())
	binary.BigEndian.PutUint16(b[2:], dst.Port())
	binary.BigEndian.PutUint16(b[4:], uint16(8+len(payload)))
	b = append(b, payload...)
	c := ^wire.ChecksumFold(wire.ChecksumAdd(wire.PseudoHeaderSum(src.Addr(), dst.Addr(), ProtoUDP, len(b)), b))
	if c == 0 {
		c = 0xffff // RFC 768: a computed zero is sent as all ones
	}
	binary.BigEndian.PutUint16(b[6:], c)
	return b
}

// TCPOpt is one TCP option: Kind and the bytes after the kind and length bytes.
type TCPOpt struct {
	Kind uint8
	Data []byte
}

// SACK returns a SACK option (RFC 2018) with the given blocks.
func SACK(blocks ...capture.SACKBlock) TCPOpt {
	d := make([]byte, 0, 8*len(blocks))
	for _, bl := range blocks {
		d = binary.BigEndian.AppendUint32(d, bl.Left)
		d = binary.BigEndian.AppendUint32(d, bl.Right)
	}
	return TCPOpt{Kind: 5, Data: d}
}

// MSS returns a Maximum Segment Size option.
func MSS(v uint16) TCPOpt { return TCPOpt{Kind: 2, Data: binary.BigEndian.AppendUint16(nil, v)} }

// WScale returns a window scale option (RFC 7323, 2.2) with the given shift count.
func WScale(shift uint8) TCPOpt { return TCPOpt{Kind: 3, Data: []byte{shift}} }

// Timestamps returns a TCP timestamps option (RFC 7323).
func Timestamps(val, ecr uint32) TCPOpt {
	return TCPOpt{Kind: 8, Data: binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, val), ecr)}
}

// TCP returns a TCP segment with a correct checksum. Options are preceded by NOPs as needed
// so that the header is a multiple of 4 bytes.
func TCP(src, dst netip.AddrPort, seq, ack uint32, flags uint8, window uint16, payload []byte, opts ...TCPOpt) []byte {
	var o []byte
	for _, op := range opts {
		o = append(o, op.Kind, byte(2+len(op.Data)))
		o = append(o, op.Data...)
	}
	for len(o)%4 != 0 {
		o = append([]byte{1}, o...) // NOP
	}
	hl := 20 + len(o)
	b := make([]byte, hl, hl+len(payload))
	binary.BigEndian.PutUint16(b, src.Port())
	binary.BigEndian.PutUint16(b[2:], dst.Port())
	binary.BigEndian.PutUint32(b[4:], seq)
	binary.BigEndian.PutUint32(b[8:], ack)
	b[12] = byte(hl/4) << 4
	b[13] = flags
	binary.BigEndian.PutUint16(b[14:], window)
	copy(b[20:], o)
	b = append(b, payload...)
	binary.BigEndian.PutUint16(b[16:], ^wire.ChecksumFold(wire.ChecksumAdd(wire.PseudoHeaderSum(src.Addr(), dst.Addr(), ProtoTCP, len(b)), b)))
	return b
}

// EtherUDP returns Ethernet / IPv4 or IPv6 / UDP around payload.
func EtherUDP(src, dst netip.AddrPort, payload []byte) []byte {
	return etherIP(src.Addr(), dst.Addr(), ProtoUDP, UDP(src, dst, payload))
}

// EtherTCP returns Ethernet / IPv4 or IPv6 / TCP around payload.
func EtherTCP(src, dst netip.AddrPort, seq, ack uint32, flags uint8, window uint16, payload []byte, opts ...TCPOpt) []byte {
	return etherIP(src.Addr(), dst.Addr(), ProtoTCP, TCP(src, dst, seq, ack, flags, window, payload, opts...))
}

func etherIP(src, dst netip.Addr, proto uint8, payload []byte) []byte {
	if src.Is4() {
		return Ether(IPv4(src, dst, proto, payload), EtherTypeIPv4)
	}
	return Ether(IPv6(src, dst, proto, payload), EtherTypeIPv6)
}
