package analysis

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"net/netip"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/klauspost/compress/zstd"

	"github.com/callpcap/callpcap/report"
)

// wireCount is what a capture holds, counted without the analyzer: its records read with
// gopacket's pcapgo, each packet decoded with gopacket's layers. It is the oracle of
// checkWire.
type wireCount struct {
	records  []int64 // each record's wire length, in file order
	complete bool    // pcapgo read every record, to the end of the file
	flows    map[oracleKey]*tally
	conns    map[oracleKey]*tcpConn // by 4-tuple (conn 0)
	// fragments are IP fragments: the analyzer counts their bytes in the flow of the
	// datagram they rebuild, which the oracle does not rebuild.
	fragments tally
	// opaque are packets the two decoders read by different conventions, so that the oracle
	// cannot say which flow, if any, they belong to: a layer gopacket fails to decode, or
	// one the analyzer follows and this oracle does not (NFLOG, PPPoE, MPLS, pre-standard
	// QinQ tags, IPv6 Mobility/HIP/Shim6 headers, Linux's AF_INET6 on a NULL link).
	opaque tally
}

type tally struct{ packets, bytes int64 }

func (t *tally) add(n int64) { t.packets++; t.bytes += n }

// oracleKey names a flow whichever way its packets travel.
type oracleKey struct {
	lo, hi netip.AddrPort
	proto  string
	conn   int // for TCP, which connection on these addresses and ports: 0, 1, ... (tcpConn)
}

// tcpConn follows the connections on one TCP 4-tuple: a SYN without ACK opens another when
// its side sent a SYN before with another sequence number, or with the same once the
// connection carried data and ended (a FIN or a RST), or when its side sent none while the
// connection carried data or ended (DESIGN: a flow is a TCP connection).
type tcpConn struct {
	n       int // connections before the current one
	syn     [2]bool
	synSeq  [2]uint32
	payload bool
	ended   bool
}

func oracleKeyOf(a, b netip.AddrPort, proto string) oracleKey {
	if a.Compare(b) > 0 {
		a, b = b, a
	}
	return oracleKey{lo: a, hi: b, proto: proto}
}

// countWire counts data, a capture file; ok is false when pcapgo cannot open it.
func countWire(data []byte) (w wireCount, ok bool) {
	raw, complete := decompress(data)
	w.flows = map[oracleKey]*tally{}
	w.conns = map[oracleKey]*tcpConn{}
	var next func() ([]byte, gopacket.CaptureInfo, layers.LinkType, error)
	if len(raw) >= 4 && binary.BigEndian.Uint32(raw) == 0x0a0d0d0a {
		r, err := pcapgo.NewNgReader(bytes.NewReader(raw), pcapgo.NgReaderOptions{WantMixedLinkType: true})
		if err != nil {
			return w, false
		}
		next = func() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
			d, ci, err := r.ReadPacketData()
			if err != nil {
				return nil, ci, 0, err
			}
			return d, ci, ci.AncillaryData[0].(layers.LinkType), nil
		}
	} else {
		if len(raw) >= 4 && raw[0] == 0x1f && raw[1] == 0x8b {
			return w, false // pcapgo would unwrap a second gzip layer; the analyzer does not
		}
		r, err := pcapgo.NewReader(bytes.NewReader(raw))
		if err != nil {
			return w, false
		}
		// The header's LinkType field (draft-ietf-opsawg-pcap, 4): the link type in bits
		// 0-15, reserved bits 16-25, then FCS flags, which neither decoder uses. With a
		// reserved bit set the link type means nothing the oracle can compare.
		field := linkField(raw)
		link := layers.LinkType(field & 0xffff)
		if field&0x03ff0000 != 0 {
			link = ltReserved
		}
		next = func() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
			d, ci, err := r.ReadPacketData()
			return d, ci, link, err
		}
	}
	for {
		d, ci, link, err := next()
		if err != nil {
			w.complete = complete && err == io.EOF
			return w, true
		}
		// A record claiming fewer bytes on the wire than it holds is damaged, and so is one
		// claiming more than 256 KiB and more than it holds: its captured bytes count
		// (capture's rule; pcapgo refuses the former in classic pcap).
		n := int64(max(ci.Length, ci.CaptureLength))
		if n > int64(max(ci.CaptureLength, 256<<10)) {
			n = int64(ci.CaptureLength)
		}
		w.records = append(w.records, n)
		w.classify(d, link, n)
	}
}

// decompress undoes gzip or zstd around a capture; complete is false when the stream is
// damaged, and then raw is what came out before the damage.
func decompress(data []byte) (raw []byte, complete bool) {
	var r io.Reader
	switch {
	case len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b:
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, false
		}
		r = zr
	case len(data) >= 4 && binary.LittleEndian.Uint32(data) == 0xfd2fb528:
		zr, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderMaxMemory(64<<20))
		if err != nil {
			return nil, false
		}
		defer zr.Close()
		r = zr
	default:
		return data, true
	}
	raw, err := io.ReadAll(io.LimitReader(r, 64<<20))
	return raw, err == nil
}

// linkField is the classic pcap header's network field, in the file's byte order.
func linkField(raw []byte) uint32 {
	if len(raw) < 24 {
		return 0
	}
	if binary.LittleEndian.Uint32(raw) == 0xa1b2c3d4 || binary.LittleEndian.Uint32(raw) == 0xa1b23c4d {
		return binary.LittleEndian.Uint32(raw[20:])
	}
	return binary.BigEndian.Uint32(raw[20:])
}

// Link types, by their LINKTYPE values.
const (
	ltNull, ltEthernet, ltRawBSD, ltRawOpenBSD, ltRaw = 0, 1, 12, 14, 101
	ltLoop, ltSLL, ltIPv4, ltIPv6, ltNFLOG, ltSLL2    = 108, 113, 228, 229, 239, 276
	ltReserved                                        = 0xffff // stands for a pcap LinkType field with reserved bits set
)

// classify decodes one record of n wire bytes and counts it in its flow, or as a fragment
// or an opaque packet. Packets of no flow (ARP, ICMP, tunnels, link types the analyzer does
// not decode: DESIGN, Capture) count nowhere, as they do in the analyzer's flows.
func (w *wireCount) classify(data []byte, link layers.LinkType, n int64) {
	var first gopacket.Decoder
	switch link {
	case ltEthernet:
		first = layers.LayerTypeEthernet
	case ltSLL:
		first = layers.LayerTypeLinuxSLL
	case ltSLL2:
		first = layers.LayerTypeLinuxSLL2
	case ltNull, ltLoop:
		first = layers.LayerTypeLoopback
		// The analyzer reads LOOP's family in network order only; gopacket guesses the
		// order, and also takes Linux's AF_INET6 (10), which the analyzer does not.
		if len(data) >= 4 && (link == ltLoop && (data[0] != 0 || data[1] != 0) ||
			binary.BigEndian.Uint32(data) == 10 || binary.LittleEndian.Uint32(data) == 10) {
			w.opaque.add(n)
			return
		}
	case ltRaw:
		if len(data) == 0 {
			return
		}
		switch data[0] >> 4 {
		case 4:
			first = layers.LayerTypeIPv4
		case 6:
			first = layers.LayerTypeIPv6
		default:
			return // not IP: undecodable for the analyzer
		}
	case ltIPv4:
		first = layers.LayerTypeIPv4
	case ltIPv6:
		first = layers.LayerTypeIPv6
	case ltNFLOG, ltRawBSD, ltRawOpenBSD, ltReserved:
		w.opaque.add(n) // decoded by the analyzer, not followed here
		return
	default:
		return // counted, not decoded (DESIGN: an unknown link type is a warning)
	}
	p := gopacket.NewPacket(data, first, gopacket.DecodeOptions{NoCopy: true})
	var src, dst netip.Addr
	v4 := false
	for _, l := range p.Layers() {
		switch l := l.(type) {
		case *layers.Ethernet, *layers.Dot1Q, *layers.LinuxSLL, *layers.LinuxSLL2:
			if src.IsValid() {
				return // Ethernet inside IP (a tunnel): the analyzer does not follow it
			}
			switch et := etherTypeOf(l); {
			case et == 0xffff:
				return // "Raw" to gopacket, which reads IPv4 into it whatever it holds; not IP to the analyzer
			case followedByTheAnalyzerOnly(et):
				w.opaque.add(n)
				return
			}
		case *layers.Loopback:
		case *layers.IPv4:
			if src.IsValid() {
				return // IP in IP: the analyzer does not follow tunnels
			}
			if l.Version != 4 {
				// gopacket stopped inside the header (options running past it, say) and
				// left the rest unset; the analyzer skips options by the header length.
				w.opaque.add(n)
				return
			}
			src, _ = netip.AddrFromSlice(l.SrcIP)
			dst, _ = netip.AddrFromSlice(l.DstIP)
			v4 = true
			if l.Flags&layers.IPv4MoreFragments != 0 || l.FragOffset != 0 {
				w.fragments.add(n)
				return
			}
		case *layers.IPv6:
			if src.IsValid() {
				return
			}
			src, _ = netip.AddrFromSlice(l.SrcIP)
			dst, _ = netip.AddrFromSlice(l.DstIP)
		case *layers.IPv6HopByHop, *layers.IPv6Routing, *layers.IPv6Destination:
		case *layers.IPSecAH:
			if v4 {
				return // the analyzer walks AH in IPv6 only
			}
		case *layers.IPv6Fragment:
			if l.FragmentOffset != 0 || l.MoreFragments {
				w.fragments.add(n)
				return
			}
		case *layers.UDP:
			w.flow(netip.AddrPortFrom(src, uint16(l.SrcPort)), netip.AddrPortFrom(dst, uint16(l.DstPort)), "udp", n)
			return
		case *layers.TCP:
			a, b := netip.AddrPortFrom(src, uint16(l.SrcPort)), netip.AddrPortFrom(dst, uint16(l.DstPort))
			k := oracleKeyOf(a, b, "tcp")
			c := w.conns[k]
			if c == nil {
				c = &tcpConn{}
				w.conns[k] = c
			}
			side := 0
			if a != k.lo {
				side = 1
			}
			if l.SYN && !l.ACK {
				if c.syn[side] && (c.synSeq[side] != l.Seq || c.ended && c.payload) || !c.syn[side] && (c.payload || c.ended) {
					*c = tcpConn{n: c.n + 1}
				}
				c.syn[side], c.synSeq[side] = true, l.Seq
			}
			c.payload = c.payload || len(l.Payload) > 0
			c.ended = c.ended || l.FIN || l.RST
			k.conn = c.n
			w.add(k, n)
			return
		case *gopacket.DecodeFailure:
			w.opaque.add(n)
			return
		default:
			if src.IsValid() && !v4 {
				if ip6, ok := p.Layer(layers.LayerTypeIPv6).(*layers.IPv6); ok && walkedByTheAnalyzerOnly(ip6, p) {
					w.opaque.add(n)
				}
			}
			return
		}
	}
}

func (w *wireCount) flow(src, dst netip.AddrPort, proto string, n int64) {
	w.add(oracleKeyOf(src, dst, proto), n)
}

func (w *wireCount) add(k oracleKey, n int64) {
	if w.flows[k] == nil {
		w.flows[k] = &tally{}
	}
	w.flows[k].add(n)
}

// etherTypeOf is the EtherType a link layer hands its payload to.
func etherTypeOf(l gopacket.Layer) (et layers.EthernetType) {
	switch l := l.(type) {
	case *layers.Ethernet:
		et = l.EthernetType
	case *layers.Dot1Q:
		et = l.Type
	case *layers.LinuxSLL:
		et = l.EthernetType
	case *layers.LinuxSLL2:
		et = l.ProtocolType
	}
	return et
}

// followedByTheAnalyzerOnly says whether a link layer's EtherType is a protocol the
// analyzer decodes and gopacket decodes differently or not at all: PPPoE, MPLS and the
// pre-standard QinQ tags 0x9100 and 0x9200.
func followedByTheAnalyzerOnly(et layers.EthernetType) bool {
	switch et {
	case layers.EthernetTypePPPoESession, layers.EthernetTypeMPLSUnicast, layers.EthernetTypeMPLSMulticast, 0x9100, 0x9200:
		return true
	}
	return false
}

// walkedByTheAnalyzerOnly says whether the IPv6 packet's last header is one the analyzer
// walks past and gopacket does not: Mobility (135), HIP (139), Shim6 (140).
func walkedByTheAnalyzerOnly(ip6 *layers.IPv6, p gopacket.Packet) bool {
	nh := ip6.NextHeader
	for _, l := range p.Layers() {
		switch l := l.(type) {
		case *layers.IPv6HopByHop:
			nh = l.NextHeader
		case *layers.IPv6Routing:
			nh = l.NextHeader
		case *layers.IPv6Destination:
			nh = l.NextHeader
		case *layers.IPv6Fragment:
			nh = l.NextHeader
		case *layers.IPSecAH:
			nh = l.NextHeader
		}
	}
	return nh == 135 || nh == 139 || nh == 140
}

// checkWire holds the report c of data to wire bytes counted independently (countWire):
//
//   - the capture's packets and wire_bytes are its records and the sum of their lengths,
//     exactly; where one reader stops before the other (pcapgo is stricter on some
//     headers, the analyzer on some blocks), up to where the first one stopped;
//   - each listed flow's packets and wire_bytes are those of the packets of its 5-tuple,
//     exactly when nothing legitimately sets the two apart: capture duplicates (the
//     analyzer drops a copy by a digest heuristic a test can only imitate), undecodable
//     packets (the analyzer's header checks, stricter than gopacket's on some fields),
//     IP fragments (their bytes go to the flow of the rebuilt datagram), opaque packets
//     (see wireCount) and flows beyond the cap. With any of those, the differences are
//     bounded by them: packets missing from the flows by the duplicates and undecodable
//     packets, bytes in excess by the fragments' and the opaque packets' bytes;
//   - every part of every direction's overhead is non-negative, and media_payload_bytes
//     plus the overhead is wire_bytes.
func checkWire(t testing.TB, data []byte, c report.Capture) {
	t.Helper()
	for _, d := range c.Directions {
		o := d.OverheadBytes
		for _, part := range []struct {
			name string
			v    int64
		}{{"link_ip_transport", o.LinkIPTransport}, {"framing", o.Framing}, {"rtp_headers", o.RTPHeaders},
			{"padding", o.Padding}, {"rtx", o.RTX}, {"tcp_retransmissions", o.TCPRetransmissions}, {"acks", o.ACKs},
			{"rtcp", o.RTCP}, {"stun", o.STUN}, {"other", o.Other}} {
			if part.v < 0 {
				t.Errorf("direction %s: overhead %s is %d", d.ID, part.name, part.v)
			}
		}
		if d.WireBytes != d.MediaPayloadBytes+o.Sum() {
			t.Errorf("direction %s: wire %d != media %d + overhead %d", d.ID, d.WireBytes, d.MediaPayloadBytes, o.Sum())
		}
	}

	w, ok := countWire(data)
	if !ok {
		return // not a file pcapgo opens: nothing to compare with
	}
	prefix := func(n int64) (sum int64) {
		for _, b := range w.records[:n] {
			sum += b
		}
		return sum
	}
	n := int64(len(w.records))
	switch {
	case w.complete && !c.Truncated:
		if c.Packets != n || c.WireBytes != prefix(n) {
			t.Errorf("capture: %d packets, %d wire bytes; the records hold %d and %d", c.Packets, c.WireBytes, n, prefix(n))
		}
	case c.Packets <= n:
		// One of the readers stopped early: the analyzer read the first c.Packets records.
		if c.WireBytes != prefix(c.Packets) {
			t.Errorf("capture: %d wire bytes in %d packets; the first %d records hold %d (pcapgo read %d, to the end: %v)",
				c.WireBytes, c.Packets, c.Packets, prefix(c.Packets), n, w.complete)
		}
		if w.complete && !c.Truncated {
			t.Errorf("capture: %d packets of %d, not truncated", c.Packets, n)
		}
	default:
		// pcapgo stopped first, on a record the analyzer took: the first n are the same.
		if c.WireBytes < prefix(n) {
			t.Errorf("capture: %d wire bytes in %d packets; the first %d records alone hold %d", c.WireBytes, c.Packets, n, prefix(n))
		}
	}

	var listedBytes, listedPackets int64
	var missing, excess int64
	exact := c.CaptureDuplicates == 0 && c.UndecodablePackets == 0 && w.fragments.packets == 0 && w.opaque.packets == 0 &&
		w.complete && !c.Truncated && !beyondFlowCap(c)
	conn := map[oracleKey]int{} // report flows met so far on each 4-tuple, in order
	for _, f := range c.Flows {
		a, errA := netip.ParseAddrPort(f.A)
		b, errB := netip.ParseAddrPort(f.B)
		if errA != nil || errB != nil {
			t.Errorf("flow %s: endpoints %q %q", f.ID, f.A, f.B)
			continue
		}
		listedBytes += f.WireBytes
		listedPackets += f.Packets
		got := tally{f.Packets, f.WireBytes}
		want := tally{}
		k := oracleKeyOf(a, b, f.Proto)
		k.conn = conn[k]
		conn[oracleKeyOf(a, b, f.Proto)]++
		if o := w.flows[k]; o != nil {
			want = *o
		}
		if exact {
			if got != want {
				t.Errorf("flow %s %s %s-%s: %d packets, %d wire bytes; its packets hold %d and %d",
					f.ID, f.Proto, f.A, f.B, got.packets, got.bytes, want.packets, want.bytes)
			}
			continue
		}
		missing += max(0, want.packets-got.packets)
		excess += max(0, got.bytes-want.bytes)
	}
	if listedBytes > c.WireBytes || listedPackets > c.Packets {
		t.Errorf("the flows hold %d packets, %d wire bytes; the capture %d and %d", listedPackets, listedBytes, c.Packets, c.WireBytes)
	}
	if exact {
		if tracked := int64(len(c.Flows)) + c.OtherFlows; tracked != int64(len(w.flows)) {
			t.Errorf("%d flows (%d listed, %d others); the packets make %d", tracked, len(c.Flows), c.OtherFlows, len(w.flows))
		}
		return
	}
	if !w.complete || c.Truncated {
		return // the flows hold the packets one reader took and the other did not
	}
	if limit := c.CaptureDuplicates + c.UndecodablePackets; missing > limit {
		t.Errorf("the flows lack %d packets of their 5-tuples; capture duplicates and undecodable packets are only %d",
			missing, limit)
	}
	if limit := w.fragments.bytes + w.opaque.bytes; excess > limit {
		t.Errorf("the flows hold %d bytes more than the packets of their 5-tuples; fragments and opaque packets are only %d",
			excess, limit)
	}
}

// beyondFlowCap says whether the analyzer stopped tracking new flows (a warning says so).
func beyondFlowCap(c report.Capture) bool {
	for _, w := range c.Warnings {
		if bytes.Contains([]byte(w), []byte("flows beyond the first")) {
			return true
		}
	}
	return false
}

// TestWireCount checks the oracle on a call whose bytes are known by construction.
func TestWireCount(t *testing.T) {
	s := audio()
	w, ok := countWire(pcapOf(t, s.Packets()))
	if !ok || !w.complete || len(w.records) != 500 {
		t.Fatalf("ok %v complete %v records %d; want a whole capture of 500", ok, w.complete, len(w.records))
	}
	k := oracleKeyOf(alice, bob, "udp")
	if got, want := *w.flows[k], (tally{500, 500 * 214}); got != want || len(w.flows) != 1 {
		t.Errorf("flows %v: %v, want one with %v", w.flows, got, want)
	}
}
