package capture

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
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

	ethernetLen = 14
	sllLen      = 16
	sll2Len     = 20
	nullLen     = 4
	ipv4MinLen  = 20
	ipv6Len     = 40
	udpLen      = 8
	tcpMinLen   = 20
	tcpOptSACK  = 5

	// DLT_RAW's value on most BSDs and on OpenBSD, found in some files instead of
	// LINKTYPE_RAW (Wireshark reads both as raw IP).
	linkRawBSD     LinkType = 12
	linkRawOpenBSD LinkType = 14
	nfulaPayload            = 9 // NFLOG TLV holding the packet
)

// decode resets p to the record and decodes it in place.
func (r *Reader) decode(p *Packet, t int64, ifIndex int, link LinkType, data []byte, orig int) {
	// A record claiming fewer bytes on the wire than it holds is damaged; the captured
	// length is then the better bound for wire accounting.
	wire := max(orig, len(data))
	*p = Packet{Time: t, Iface: ifIndex, LinkType: link, WireLen: wire, FrameLen: wire,
		CapLen: len(data), Data: data}
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
		// order, which need not be the file's: a value above 16 bits is byte-swapped.
		if len(data) < nullLen {
			short(p)
			return
		}
		var fam uint32
		if link == LinkLoop {
			fam = binary.BigEndian.Uint32(data)
		} else if fam = binary.LittleEndian.Uint32(data); fam > 0xffff {
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

// ipv4 decodes the IPv4 header at p.Data[off:] (RFC 791, 3.1):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|Version|  IHL  |Type of Service|          Total Length         |
//	|         Identification        |Flags|      Fragment Offset    |
//	|  Time to Live |    Protocol   |         Header Checksum       |
//	|                       Source Address                          |
//	|                    Destination Address                        |
//	|                    Options                    |    Padding    |
//
// The total length, not the frame, bounds the datagram: Ethernet padding is ignored. The
// header checksum is not checked (offload makes it wrong in many captures).
func (r *Reader) ipv4(p *Packet, off int) {
	b := p.Data[off:]
	if len(b) < ipv4MinLen {
		short(p)
		return
	}
	if b[0]>>4 != 4 {
		bad(p)
		return
	}
	ihl := int(b[0]&0x0f) * 4
	if ihl < ipv4MinLen {
		bad(p)
		return
	}
	if len(b) < ihl {
		short(p)
		return
	}
	avail := p.WireLen - off // bytes of the frame from the IP header on
	tl := int(binary.BigEndian.Uint16(b[2:]))
	if tl == 0 {
		tl = avail // segmentation offload writes 0
	}
	if tl < ihl {
		bad(p)
		return
	}
	tl = min(tl, avail)
	p.Src = netip.AddrFrom4([4]byte(b[12:16]))
	p.Dst = netip.AddrFrom4([4]byte(b[16:20]))
	p.IPProto = b[9]
	p.Kind = KindIPOther
	end := min(tl, len(b))
	if fo := binary.BigEndian.Uint16(b[6:]); fo&0x3fff != 0 { // MF or an offset
		key := fragKey{src: p.Src, dst: p.Dst, id: uint32(binary.BigEndian.Uint16(b[4:])), proto: p.IPProto, v4: true}
		res, ok := r.frag.add(p, key, int(fo&0x1fff)*8, fo&0x2000 != 0, b[ihl:end], tl-ihl, p.IPProto)
		if !ok {
			return
		}
		r.transport(p, p.IPProto, res.data, res.total)
		return
	}
	r.transport(p, p.IPProto, b[ihl:end], tl-ihl)
}

// ipv6 decodes the IPv6 header at p.Data[off:] (RFC 8200, 3):
//
//	|Version| Traffic Class |           Flow Label                  |
//	|         Payload Length        |  Next Header  |   Hop Limit   |
//	|                   Source Address (16)                         |
//	|                 Destination Address (16)                      |
func (r *Reader) ipv6(p *Packet, off int) {
	b := p.Data[off:]
	if len(b) < ipv6Len {
		short(p)
		return
	}
	if b[0]>>4 != 6 {
		bad(p)
		return
	}
	avail := p.WireLen - off - ipv6Len
	pl := int(binary.BigEndian.Uint16(b[4:]))
	if pl == 0 {
		pl = avail // jumbogram (RFC 2675) or segmentation offload
	}
	pl = min(pl, avail)
	p.Src = netip.AddrFrom16([16]byte(b[8:24]))
	p.Dst = netip.AddrFrom16([16]byte(b[24:40]))
	p.Kind = KindIPOther
	r.ipv6Ext(p, b, ipv6Len, ipv6Len+pl, b[6], false)
}

// ipv6Ext walks the extension headers of b[h:end] (captured up to len(b)), the first of
// type nh, then decodes the upper layer. A fragment header sends the fragment to
// reassembly; once the datagram is complete the walk goes on over the reassembled payload.
func (r *Reader) ipv6Ext(p *Packet, b []byte, h, end int, nh uint8, reassembled bool) {
	for {
		p.IPProto = nh
		switch nh {
		case protoHopByHop, protoRouting, protoDestOpts, protoMobility, protoHIP, protoShim6, protoAH, protoFragment:
			// next_header(1) hdr_ext_len(1) ...
			if h+8 > end {
				bad(p)
				return
			}
			if h+8 > len(b) {
				short(p)
				return
			}
			if nh == protoFragment {
				// next_header(1) reserved(1) offset(13) res(2) M(1) identification(4)
				fo := binary.BigEndian.Uint16(b[h+2:])
				next := b[h]
				id := binary.BigEndian.Uint32(b[h+4:])
				h += 8
				p.IPProto = next
				if fo&0xfff9 == 0 { // offset 0 and no M: an atomic fragment (RFC 6946)
					nh = next
					continue
				}
				if reassembled {
					bad(p) // a fragment inside a reassembled datagram
					return
				}
				key := fragKey{src: p.Src, dst: p.Dst, id: id}
				res, ok := r.frag.add(p, key, int(fo&0xfff8), fo&1 != 0, b[h:min(end, len(b))], end-h, next)
				if !ok {
					return
				}
				b, h, end, nh, reassembled = res.data, 0, res.total, res.proto, true
				continue
			}
			l := (int(b[h+1]) + 1) * 8
			if nh == protoAH {
				l = (int(b[h+1]) + 2) * 4 // RFC 4302, 2.2: in 4-byte units, minus 2
			}
			if h+l > end {
				bad(p)
				return
			}
			nh = b[h]
			h += l
		default:
			// The last extension header may end beyond the captured bytes.
			r.transport(p, nh, b[min(h, len(b)):min(end, len(b))], end-h)
			return
		}
	}
}

// transport decodes UDP or TCP in data, the captured part of an IP payload that the IP
// header says is length bytes long.
func (r *Reader) transport(p *Packet, proto uint8, data []byte, length int) {
	switch proto {
	case protoUDP:
		udp(p, data, length)
	case protoTCP:
		tcp(p, data, length)
	}
}

// udp decodes a UDP header (RFC 768):
//
//	source_port(2) destination_port(2) length(2) checksum(2)
func udp(p *Packet, data []byte, length int) {
	if length < udpLen {
		bad(p)
		return
	}
	if len(data) < udpLen {
		short(p)
		return
	}
	p.SrcPort = binary.BigEndian.Uint16(data)
	p.DstPort = binary.BigEndian.Uint16(data[2:])
	ulen := int(binary.BigEndian.Uint16(data[4:]))
	switch {
	case ulen == 0:
		ulen = length // jumbogram (RFC 2675) or segmentation offload
	case ulen < udpLen:
		bad(p)
		return
	case ulen > length:
		// Malformed: the IP length is the better bound (tcpdump's rtp-seg-fault captures).
		ulen = length
	}
	p.PayloadLen = ulen - udpLen
	p.Payload = data[udpLen:min(ulen, len(data))]
	p.Snapped = len(p.Payload) < p.PayloadLen
	p.HeaderLen = p.WireLen - p.PayloadLen
	p.Kind = KindUDP
}

// tcp decodes a TCP header (RFC 9293, 3.1):
//
//	source_port(2) destination_port(2) sequence(4) acknowledgment(4)
//	data_offset(4 bits) reserved(4 bits) flags(1) window(2) checksum(2) urgent(2) options
func tcp(p *Packet, data []byte, length int) {
	if length < tcpMinLen {
		bad(p)
		return
	}
	if len(data) < tcpMinLen {
		short(p)
		return
	}
	doff := int(data[12]>>4) * 4
	if doff < tcpMinLen || doff > length {
		bad(p)
		return
	}
	p.SrcPort = binary.BigEndian.Uint16(data)
	p.DstPort = binary.BigEndian.Uint16(data[2:])
	p.TCP.Seq = binary.BigEndian.Uint32(data[4:])
	p.TCP.Ack = binary.BigEndian.Uint32(data[8:])
	p.TCP.Flags = data[13]
	p.TCP.Window = binary.BigEndian.Uint16(data[14:])
	hdr := min(doff, len(data))
	tcpOptions(&p.TCP, data[tcpMinLen:hdr])
	p.PayloadLen = length - doff
	p.Payload = data[hdr:]
	p.Snapped = len(p.Payload) < p.PayloadLen || hdr < doff
	p.HeaderLen = p.WireLen - p.PayloadLen
	p.Kind = KindTCP
}

// tcpOptions reads the SACK blocks (RFC 2018, 3) from TCP options:
//
//	kind=5(1) length(1) (left_edge(4) right_edge(4))...
func tcpOptions(h *TCPHeader, o []byte) {
	for len(o) > 0 {
		switch o[0] {
		case 0: // end of option list
			return
		case 1: // no-operation
			o = o[1:]
			continue
		}
		if len(o) < 2 {
			return
		}
		n := int(o[1])
		if n < 2 || n > len(o) {
			return
		}
		if o[0] == tcpOptSACK {
			for s := o[2:n]; len(s) >= 8 && h.NSACK < len(h.SACK); s = s[8:] {
				h.SACK[h.NSACK] = SACKBlock{Left: binary.BigEndian.Uint32(s), Right: binary.BigEndian.Uint32(s[4:])}
				h.NSACK++
			}
		}
		o = o[n:]
	}
}
