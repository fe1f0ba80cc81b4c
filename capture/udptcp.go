package capture

import "encoding/binary"

// transport decodes UDP or TCP in data, the captured part of an IP payload that the IP
// header says is length bytes long.
func (r *Reader) transport(p *Packet, proto uint8, data []byte, length int) {
	switch proto {
	case protoUDP:
		if udp(p, data, length) {
			r.udpBeyond++
		}
	case protoTCP:
		tcp(p, data, length)
	}
}

// udp decodes a UDP header (RFC 768):
//
//	source_port(2) destination_port(2) length(2) checksum(2)
//
// It reports whether the length field claimed more than the IP packet holds.
func udp(p *Packet, data []byte, length int) (beyond bool) {
	if length < udpLen {
		bad(p)
		return false
	}
	if len(data) < 4 {
		short(p)
		return false
	}
	// A snap length that cuts the header after the ports leaves the flow known: its frame
	// is counted there, with the IP length as the datagram's.
	p.SrcPort = binary.BigEndian.Uint16(data)
	p.DstPort = binary.BigEndian.Uint16(data[2:])
	ulen := length
	if len(data) >= 6 {
		ulen = int(binary.BigEndian.Uint16(data[4:]))
	}
	switch {
	case ulen == 0:
		ulen = length // jumbogram (RFC 2675) or segmentation offload
	case ulen < udpLen:
		bad(p)
		return false
	case ulen > length:
		// Malformed: the IP length is the better bound (tcpdump's rtp-seg-fault captures).
		ulen, beyond = length, true
	}
	p.PayloadLen = ulen - udpLen
	p.Payload = data[min(udpLen, len(data)):min(ulen, len(data))]
	p.Snapped = len(p.Payload) < p.PayloadLen
	p.HeaderLen = p.WireLen - p.PayloadLen
	p.Kind = KindUDP
	return beyond
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

// tcpOptions reads the SACK blocks (RFC 2018, 3) and the window scale (RFC 7323, 2.2) from
// TCP options:
//
//	kind=5(1) length(1) (left_edge(4) right_edge(4))...
//	kind=3(1) length=3(1) shift.cnt(1)
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
		if o[0] == tcpOptWScale && n == 3 {
			// RFC 7323 2.3: a shift above 14 is used as 14.
			h.WScale, h.HasWScale = min(o[2], 14), true
		}
		o = o[n:]
	}
}
