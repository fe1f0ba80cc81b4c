package capture

import (
	"encoding/binary"
	"net/netip"
)

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
		key := fragKey{src: p.Src, dst: p.Dst, id: uint32(binary.BigEndian.Uint16(b[4:])), proto: p.IPProto, v4: true, link: linkOf(p, off)}
		res, ok := r.frag.add(p, key, int(fo&0x1fff)*8, fo&0x2000 != 0, b[ihl:end], tl-ihl, p.IPProto)
		if !ok {
			return
		}
		p.TransportOff = -1 // in the reassembly buffer, not in Data
		r.transport(p, p.IPProto, res.data, res.total)
		r.frag.decoded(p)
		return
	}
	p.TransportOff = off + ihl
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
				key := fragKey{src: p.Src, dst: p.Dst, id: id, link: linkOf(p, len(p.Data)-len(b))} // b is p.Data from the IPv6 header on
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
			p.TransportOff = -1
			if !reassembled {
				p.TransportOff = len(p.Data) - len(b) + min(h, len(b)) // b is Data[off:]
			}
			r.transport(p, nh, b[min(h, len(b)):min(end, len(b))], end-h)
			if reassembled {
				r.frag.decoded(p)
			}
			return
		}
	}
}
