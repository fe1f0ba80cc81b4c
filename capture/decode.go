package capture

import (
	"encoding/binary"
	"math/bits"
)

// EtherTypes, IP protocol numbers and address families the decoder follows.
const (
	etherTypeIPv4   = 0x0800
	etherTypeIPv6   = 0x86dd
	etherTypeVLAN   = 0x8100 // IEEE 802.1Q
	etherTypeQinQ   = 0x88a8 // IEEE 802.1ad
	etherTypeQinQ1  = 0x9100 // pre-standard QinQ
	etherTypeQinQ2  = 0x9200
	etherTypePPPoE  = 0x8864 // RFC 2516 session stage
	etherTypeMPLS   = 0x8847
	etherTypeMPLSMC = 0x8848
	pppIPv4         = 0x0021
	pppIPv6         = 0x0057

	protoHopByHop = 0
	protoTCP      = 6
	protoUDP      = 17
	protoRouting  = 43
	protoFragment = 44
	protoAH       = 51
	protoDestOpts = 60
	protoMobility = 135
	protoHIP      = 139
	protoShim6    = 140

	ethernetLen  = 14
	sllLen       = 16
	sll2Len      = 20
	nullLen      = 4
	ipv4MinLen   = 20
	ipv6Len      = 40
	udpLen       = 8
	tcpMinLen    = 20
	tcpOptSACK   = 5
	tcpOptWScale = 3

	// DLT_RAW's value on most BSDs and on OpenBSD, found in some files instead of
	// LINKTYPE_RAW (Wireshark reads both as raw IP).
	linkRawBSD     LinkType = 12
	linkRawOpenBSD LinkType = 14
	nfulaPayload            = 9 // NFLOG TLV holding the packet
)

// wireLen is a record's length on the wire. A record claiming fewer bytes than it holds is
// damaged, and so is one claiming more than any link carries (orig_len 0xFFFFFFFF would
// count 4.29 GB): the captured length is then the better bound, and the latter are counted.
func (r *Reader) wireLen(orig, captured int) int {
	if orig > max(captured, pcapMinMaxCap) {
		r.origBeyond++
		return captured
	}
	return max(orig, captured)
}

// decode resets p to the record and decodes it in place.
func (r *Reader) decode(p *Packet, t int64, ifIndex int, link LinkType, data []byte, orig int) {
	wire := r.wireLen(orig, len(data))
	if !r.zero {
		*p = Packet{}
	}
	p.Time, p.Iface, p.LinkType, p.WireLen, p.FrameLen = t, ifIndex, link, wire, wire
	p.CapLen, p.Data = len(data), data
	switch link {
	case LinkEthernet:
		// dst(6) src(6) ethertype(2)
		if len(data) < ethernetLen {
			short(p)
			return
		}
		r.etherType(p, binary.BigEndian.Uint16(data[12:]), ethernetLen)
	case LinkLinuxSLL:
		// packet_type(2) arphrd(2) addr_len(2) addr(8) protocol(2)
		if len(data) < sllLen {
			short(p)
			return
		}
		r.etherType(p, binary.BigEndian.Uint16(data[14:]), sllLen)
	case LinkLinuxSLL2:
		// protocol(2) reserved(2) ifindex(4) arphrd(2) packet_type(1) addr_len(1) addr(8)
		if len(data) < sll2Len {
			short(p)
			return
		}
		r.etherType(p, binary.BigEndian.Uint16(data), sll2Len)
	case LinkRaw, linkRawBSD, linkRawOpenBSD:
		r.rawIP(p, 0)
	case LinkNFLOG:
		r.nflog(p)
	case LinkIPv4:
		r.ipv4(p, 0)
	case LinkIPv6:
		r.ipv6(p, 0)
	case LinkNull, LinkLoop:
		// A 4-byte address family: LOOP in network order, NULL in the capturing host's
		// order, which need not be the file's: a value above 16 bits is byte-swapped. So
		// is LOOP's, whose writers have put it in host order too (tshark then decodes
		// nothing): no family needs more than 16 bits.
		if len(data) < nullLen {
			short(p)
			return
		}
		fam := binary.LittleEndian.Uint32(data)
		if link == LinkLoop {
			fam = binary.BigEndian.Uint32(data)
		}
		if fam > 0xffff {
			fam = bits.ReverseBytes32(fam)
		}
		switch fam {
		case 2: // AF_INET
			r.ipv4(p, nullLen)
		case 24, 28, 30: // AF_INET6 on NetBSD/OpenBSD, FreeBSD, Darwin
			r.ipv6(p, nullLen)
		default:
			p.Kind = KindNonIP
		}
	default:
		p.Kind = KindUnknownLink
	}
}

// nflog finds the packet in a LINKTYPE_NFLOG frame (tcpdump.org/linktypes/LINKTYPE_NFLOG):
//
//	family(1) version(1) resource_id(2) then TLVs: length(2) type(2) value, padded to 4
//
// TLV lengths and types are in the capturing host's order, taken to be the file's.
func (r *Reader) nflog(p *Packet) {
	b := p.Data
	if len(b) < nullLen {
		short(p)
		return
	}
	for off := nullLen; off+4 <= len(b); {
		n := int(r.u16(b[off:]))
		if n < 4 {
			bad(p)
			return
		}
		if r.u16(b[off+2:])&0x3fff == nfulaPayload {
			r.rawIP(p, off+4)
			return
		}
		off += (n + 3) &^ 3
	}
	p.Kind = KindNonIP
}

// short marks p undecodable because its headers end before the captured data does; Snapped
// says whether the snap length is why.
func short(p *Packet) {
	p.Kind = KindUndecodable
	p.Snapped = p.CapLen < p.WireLen
}

func bad(p *Packet) { p.Kind = KindUndecodable }

// etherType follows an EtherType at p.Data[off:], through any number of VLAN tags
// (802.1Q, 802.1ad, QinQ), PPPoE and MPLS.
func (r *Reader) etherType(p *Packet, et uint16, off int) {
	b := p.Data
	for {
		switch et {
		case etherTypeIPv4:
			r.ipv4(p, off)
			return
		case etherTypeIPv6:
			r.ipv6(p, off)
			return
		case etherTypeVLAN, etherTypeQinQ, etherTypeQinQ1, etherTypeQinQ2:
			// TCI(2) EtherType(2)
			if len(b) < off+4 {
				short(p)
				return
			}
			et = binary.BigEndian.Uint16(b[off+2:])
			off += 4
		case etherTypePPPoE:
			// ver_type(1) code(1) session_id(2) length(2) ppp_protocol(2)
			if len(b) < off+8 {
				short(p)
				return
			}
			switch binary.BigEndian.Uint16(b[off+6:]) {
			case pppIPv4:
				r.ipv4(p, off+8)
			case pppIPv6:
				r.ipv6(p, off+8)
			default:
				p.Kind = KindNonIP
			}
			return
		case etherTypeMPLS, etherTypeMPLSMC:
			// label(20) tc(3) bottom_of_stack(1) ttl(8), repeated; then IP by version.
			for {
				if len(b) < off+4 {
					short(p)
					return
				}
				bos := b[off+2]&1 != 0
				off += 4
				if bos {
					break
				}
			}
			if len(b) > off && (b[off]>>4 == 4 || b[off]>>4 == 6) {
				r.rawIP(p, off)
			} else {
				p.Kind = KindNonIP
			}
			return
		default:
			p.Kind = KindNonIP // ARP, LLDP, 802.3 length fields...
			return
		}
	}
}

// rawIP decodes IPv4 or IPv6 by the version nibble.
func (r *Reader) rawIP(p *Packet, off int) {
	if len(p.Data) <= off {
		short(p)
		return
	}
	switch p.Data[off] >> 4 {
	case 4:
		r.ipv4(p, off)
	case 6:
		r.ipv6(p, off)
	default:
		bad(p)
	}
}
