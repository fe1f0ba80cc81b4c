package capture_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/google/go-cmp/cmp"
)

// decoded is the part of a Packet the decoding tables compare.
type decoded struct {
	Kind                     capture.Kind
	Src, Dst                 string
	IPProto                  uint8
	SrcPort, DstPort         uint16
	HeaderLen, PayloadLen    int
	Payload                  string
	Snapped, Reassembled     bool
	Fragment                 bool
	WireLen, FrameLen, Iface int
}

func summary(p capture.Packet) decoded {
	d := decoded{Kind: p.Kind, IPProto: p.IPProto, SrcPort: p.SrcPort, DstPort: p.DstPort,
		HeaderLen: p.HeaderLen, PayloadLen: p.PayloadLen, Payload: string(p.Payload),
		Snapped: p.Snapped, Reassembled: p.Reassembled, Fragment: p.Fragment,
		WireLen: p.WireLen, FrameLen: p.FrameLen, Iface: p.Iface}
	if p.Src.IsValid() {
		d.Src, d.Dst = p.Src.String(), p.Dst.String()
	}
	return d
}

func udp4(hdr int) decoded {
	return decoded{Kind: capture.KindUDP, Src: "192.0.2.1", Dst: "198.51.100.2", IPProto: 17,
		SrcPort: 5004, DstPort: 40000, HeaderLen: hdr, PayloadLen: 5, Payload: "hello",
		WireLen: hdr + 5, FrameLen: hdr + 5}
}

func udp6(hdr int) decoded {
	return decoded{Kind: capture.KindUDP, Src: "2001:db8::1", Dst: "2001:db8::2", IPProto: 17,
		SrcPort: 5004, DstPort: 3478, HeaderLen: hdr, PayloadLen: 5, Payload: "hello",
		WireLen: hdr + 5, FrameLen: hdr + 5}
}

// TestLinkTypes decodes one UDP datagram over every link type.
func TestLinkTypes(t *testing.T) {
	hello := []byte("hello")
	ip4 := pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a4, b4, hello))
	ip6 := pcapgen.IPv6(a6.Addr(), b6.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a6, b6, hello))
	swapped := func(b []byte) []byte { // a NULL header in the other byte order
		c := bytes.Clone(b)
		c[0], c[1], c[2], c[3] = c[3], c[2], c[1], c[0]
		return c
	}
	nflog := func(ip []byte) []byte {
		b := []byte{2, 0, 0, 0} // AF_INET, version 0, resource 0
		b = binary.LittleEndian.AppendUint16(b, 8)
		b = binary.LittleEndian.AppendUint16(b, 1) // NFULA_PACKET_HDR
		b = append(b, 0, 0, 0, 0)
		b = binary.LittleEndian.AppendUint16(b, uint16(4+len(ip)))
		b = binary.LittleEndian.AppendUint16(b, 9) // NFULA_PAYLOAD
		return append(b, ip...)
	}
	for _, tc := range []struct {
		name  string
		link  capture.LinkType
		frame []byte
		want  decoded
	}{
		{"ethernet-ipv4", capture.LinkEthernet, pcapgen.Ether(ip4, pcapgen.EtherTypeIPv4), udp4(14 + 20 + 8)},
		{"ethernet-ipv6", capture.LinkEthernet, pcapgen.Ether(ip6, pcapgen.EtherTypeIPv6), udp6(14 + 40 + 8)},
		{"vlan", capture.LinkEthernet, pcapgen.Ether(ip4, pcapgen.EtherTypeIPv4, 100), udp4(18 + 20 + 8)},
		{"qinq", capture.LinkEthernet, pcapgen.Ether(ip4, pcapgen.EtherTypeIPv4, 100, 200), udp4(22 + 20 + 8)},
		{"qinqinq-9100", capture.LinkEthernet, pcapgen.EtherTags(ip6, pcapgen.EtherTypeIPv6,
			pcapgen.VLANTag{TPID: 0x9100, TCI: 1}, pcapgen.VLANTag{TPID: 0x88a8, TCI: 2}, pcapgen.VLANTag{TPID: 0x8100, TCI: 3}),
			udp6(26 + 40 + 8)},
		{"sll", capture.LinkLinuxSLL, pcapgen.SLL(ip4, pcapgen.EtherTypeIPv4), udp4(16 + 20 + 8)},
		{"sll2", capture.LinkLinuxSLL2, pcapgen.SLL2(ip6, pcapgen.EtherTypeIPv6, 4), udp6(20 + 40 + 8)},
		{"raw-v4", capture.LinkRaw, ip4, udp4(28)},
		{"raw-v6", capture.LinkRaw, ip6, udp6(48)},
		{"bsd-raw-12", 12, ip4, udp4(28)},
		{"ipv4", capture.LinkIPv4, ip4, udp4(28)},
		{"ipv6", capture.LinkIPv6, ip6, udp6(48)},
		{"null-2", capture.LinkNull, pcapgen.Null(ip4, 2), udp4(4 + 28)},
		{"null-24", capture.LinkNull, pcapgen.Null(ip6, 24), udp6(4 + 48)},
		{"null-28", capture.LinkNull, pcapgen.Null(ip6, 28), udp6(4 + 48)},
		{"null-30-swapped", capture.LinkNull, swapped(pcapgen.Null(ip6, 30)), udp6(4 + 48)},
		{"loop", capture.LinkLoop, pcapgen.Loop(ip4, 2), udp4(4 + 28)},
		{"loop-host-order", capture.LinkLoop, pcapgen.Null(ip6, 24), udp6(4 + 48)},
		{"nflog", capture.LinkNFLOG, nflog(ip4), udp4(16 + 28)},
		{"null-other-family", capture.LinkNull, pcapgen.Null(ip4, 7),
			decoded{Kind: capture.KindNonIP, WireLen: 4 + 33, FrameLen: 4 + 33}},
		{"arp", capture.LinkEthernet, pcapgen.Ether(make([]byte, 28), pcapgen.EtherTypeARP),
			decoded{Kind: capture.KindNonIP, WireLen: 42, FrameLen: 42}},
		{"unknown-link", 147, ip4, decoded{Kind: capture.KindUnknownLink, WireLen: 33, FrameLen: 33}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := onePacket(t, pcapFile(t, tc.link, tc.frame))
			if p.LinkType != tc.link || p.Time != t0 || p.CapLen != len(tc.frame) {
				t.Errorf("link %v time %d caplen %d", p.LinkType, p.Time, p.CapLen)
			}
			if d := cmp.Diff(tc.want, summary(p)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestOutgoing: the packet type a Linux cooked capture writes says whether the capture
// host sent the packet; other link types say nothing of it.
func TestOutgoing(t *testing.T) {
	ip4 := pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a4, b4, []byte("hello")))
	sllSent := pcapgen.SLL(ip4, pcapgen.EtherTypeIPv4)
	sllSent[1] = pcapgen.PacketOutgoing
	for _, tc := range []struct {
		name        string
		link        capture.LinkType
		frame       []byte
		out, marked bool
	}{
		{"sll2 sent", capture.LinkLinuxSLL2, pcapgen.SLL2Typed(ip4, pcapgen.EtherTypeIPv4, 2, pcapgen.PacketOutgoing), true, true},
		{"sll2 arrived", capture.LinkLinuxSLL2, pcapgen.SLL2(ip4, pcapgen.EtherTypeIPv4, 2), false, true},
		{"sll2 other host", capture.LinkLinuxSLL2, pcapgen.SLL2Typed(ip4, pcapgen.EtherTypeIPv4, 2, 3), false, true},
		{"sll sent", capture.LinkLinuxSLL, sllSent, true, true},
		{"sll arrived", capture.LinkLinuxSLL, pcapgen.SLL(ip4, pcapgen.EtherTypeIPv4), false, true},
		{"ethernet", capture.LinkEthernet, pcapgen.Ether(ip4, pcapgen.EtherTypeIPv4), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := onePacket(t, pcapFile(t, tc.link, tc.frame))
			if out, marked := p.Outgoing(); out != tc.out || marked != tc.marked {
				t.Errorf("Outgoing() = %v, %v; want %v, %v", out, marked, tc.out, tc.marked)
			}
		})
	}
}

// TestMalformed feeds damaged headers: each must come back as data, never a panic.
func TestMalformed(t *testing.T) {
	hello := []byte("hello")
	ip4 := pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a4, b4, hello))
	mod := func(b []byte, f func([]byte)) []byte { c := bytes.Clone(b); f(c); return c }
	tcp := pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoTCP,
		pcapgen.TCP(a4, b4, 1, 2, capture.FlagACK, 100, hello))
	for _, tc := range []struct {
		name  string
		frame []byte // raw IP
		kind  capture.Kind
	}{
		{"empty", nil, capture.KindUndecodable},
		{"version-5", mod(ip4, func(b []byte) { b[0] = 0x55 }), capture.KindUndecodable},
		{"ihl-4", mod(ip4, func(b []byte) { b[0] = 0x44 }), capture.KindUndecodable},
		{"ihl-past-end", mod(ip4, func(b []byte) { b[0] = 0x4f }), capture.KindUndecodable},
		{"total-below-ihl", mod(ip4, func(b []byte) { b[2], b[3] = 0, 10 }), capture.KindUndecodable},
		{"ip-cut-at-udp", ip4[:24], capture.KindUndecodable},
		{"udp-length-3", mod(ip4, func(b []byte) { b[24], b[25] = 0, 3 }), capture.KindUndecodable},
		{"tcp-offset-4", mod(tcp, func(b []byte) { b[32] = 0x40 }), capture.KindUndecodable},
		{"tcp-offset-past-ip", mod(tcp, func(b []byte) { b[32] = 0xf0 }), capture.KindUndecodable},
		{"ipv6-cut", pcapgen.IPv6(a6.Addr(), b6.Addr(), 17, nil)[:39], capture.KindUndecodable},
		{"ipv6-ext-past-end", pcapgen.IPv6(a6.Addr(), b6.Addr(), 17, []byte{17, 200, 0, 0, 0, 0, 0, 0}, pcapgen.ExtHeader{Type: 0})[:48], capture.KindUndecodable},
		{"icmp", pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoICMP, []byte{8, 0, 0, 0}), capture.KindIPOther},
		{"ipv6-no-next", pcapgen.IPv6(a6.Addr(), b6.Addr(), pcapgen.ProtoNoNext, nil), capture.KindIPOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := onePacket(t, pcapFile(t, capture.LinkRaw, tc.frame))
			if p.Kind != tc.kind {
				t.Errorf("kind %d, want %d", p.Kind, tc.kind)
			}
		})
	}
	// Short link headers.
	for _, link := range []capture.LinkType{capture.LinkEthernet, capture.LinkLinuxSLL, capture.LinkLinuxSLL2,
		capture.LinkNull, capture.LinkLoop, capture.LinkNFLOG, capture.LinkIPv4, capture.LinkIPv6} {
		for _, n := range []int{0, 3, 13} {
			p := onePacket(t, pcapFile(t, link, make([]byte, n)))
			if p.Kind != capture.KindUndecodable && p.Kind != capture.KindNonIP {
				t.Errorf("%v with %d bytes: kind %d", link, n, p.Kind)
			}
		}
	}
}

// TestUDPLengths covers Ethernet padding and UDP lengths that disagree with IP.
func TestUDPLengths(t *testing.T) {
	hi := []byte("hi")
	small := pcapgen.EtherUDP(a4, b4, hi) // 44 bytes
	padded := append(bytes.Clone(small), make([]byte, 60-len(small))...)
	p := onePacket(t, pcapFile(t, capture.LinkEthernet, padded))
	if p.Kind != capture.KindUDP || p.PayloadLen != 2 || string(p.Payload) != "hi" || p.HeaderLen != 58 || p.WireLen != 60 {
		t.Errorf("padded: %+v", summary(p))
	}

	// A UDP length beyond the IP payload (tcpdump's rtp-seg-fault): the IP length wins.
	long := bytes.Clone(small)
	binary.BigEndian.PutUint16(long[14+20+4:], 1000)
	p = onePacket(t, pcapFile(t, capture.LinkEthernet, long))
	if p.Kind != capture.KindUDP || p.PayloadLen != 2 || p.Snapped || p.HeaderLen+p.PayloadLen != p.WireLen {
		t.Errorf("long UDP length: %+v", summary(p))
	}
	// And it is counted (Stats.UDPBeyond), where the padded one is not.
	for _, tc := range []struct {
		frame []byte
		want  int64
	}{{long, 1}, {padded, 0}} {
		r, err := capture.Open(bytes.NewReader(pcapFile(t, capture.LinkEthernet, tc.frame)))
		if err != nil {
			t.Fatal(err)
		}
		var q capture.Packet
		if err := r.Next(&q); err != nil {
			t.Fatal(err)
		}
		if got := r.Stats().UDPBeyond; got != tc.want {
			t.Errorf("UDPBeyond %d, want %d", got, tc.want)
		}
		r.Close()
	}

	// A UDP length shorter than the IP payload: the rest is trailer.
	shortLen := pcapgen.EtherUDP(a4, b4, []byte("hello"))
	binary.BigEndian.PutUint16(shortLen[14+20+4:], 8+2)
	p = onePacket(t, pcapFile(t, capture.LinkEthernet, shortLen))
	if p.PayloadLen != 2 || string(p.Payload) != "he" || p.HeaderLen != len(shortLen)-2 {
		t.Errorf("short UDP length: %+v", summary(p))
	}

	// An IP total length beyond the frame (a damaged header) is bounded by the frame.
	longIP := bytes.Clone(small)
	binary.BigEndian.PutUint16(longIP[14+2:], 1400)
	p = onePacket(t, pcapFile(t, capture.LinkEthernet, longIP))
	if p.Kind != capture.KindUDP || p.HeaderLen+p.PayloadLen != p.WireLen {
		t.Errorf("long IP length: %+v", summary(p))
	}

	// Total length 0, as segmentation offload writes it: the frame bounds the datagram.
	tso := bytes.Clone(small)
	binary.BigEndian.PutUint16(tso[14+2:], 0)
	p = onePacket(t, pcapFile(t, capture.LinkEthernet, tso))
	if p.Kind != capture.KindUDP || p.PayloadLen != 2 {
		t.Errorf("TSO: %+v", summary(p))
	}
}

// TestIPv4Options checks that the header length, not 20, locates UDP.
func TestIPv4Options(t *testing.T) {
	ip := pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a4, b4, []byte("hello")),
		0x94, 0x04, 0x00, 0x00, // Router Alert (RFC 2113)
		0x01, 0x01, 0x01) // NOPs, padded to 8 option bytes
	p := onePacket(t, pcapFile(t, capture.LinkEthernet, pcapgen.Ether(ip, pcapgen.EtherTypeIPv4)))
	if d := cmp.Diff(udp4(14+28+8), summary(p)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestIPv6ExtensionHeaders(t *testing.T) {
	hello := []byte("hello")
	routing := make([]byte, 6+16) // type 0... segments left 0, one address
	routing[0] = 2                // routing type 2 (RFC 6275)
	for _, tc := range []struct {
		name string
		ext  []pcapgen.ExtHeader
		hdr  int
	}{
		{"hop-by-hop", []pcapgen.ExtHeader{{Type: pcapgen.ProtoHopByHop}}, 8},
		{"hbh-routing-destopts", []pcapgen.ExtHeader{{Type: pcapgen.ProtoHopByHop, Data: make([]byte, 12)},
			{Type: pcapgen.ProtoRouting, Data: routing}, {Type: pcapgen.ProtoDestOpts}}, 16 + 24 + 8},
		{"atomic-fragment", []pcapgen.ExtHeader{pcapgen.FragHeader(0, false, 9)}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ip := pcapgen.IPv6(a6.Addr(), b6.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a6, b6, hello), tc.ext...)
			p := onePacket(t, pcapFile(t, capture.LinkIPv6, ip))
			if d := cmp.Diff(udp6(40+tc.hdr+8), summary(p)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestTCP(t *testing.T) {
	sack := pcapgen.SACK(capture.SACKBlock{Left: 1000, Right: 2000}, capture.SACKBlock{Left: 3000, Right: 4000},
		capture.SACKBlock{Left: 5000, Right: 6000})
	frame := pcapgen.EtherTCP(a6, b6, 0xfffffff0, 77, capture.FlagACK|capture.FlagPSH, 512, []byte("data"),
		pcapgen.Timestamps(1, 2), sack)
	p := onePacket(t, pcapFile(t, capture.LinkEthernet, frame))
	want := capture.TCPHeader{Seq: 0xfffffff0, Ack: 77, Flags: capture.FlagACK | capture.FlagPSH, Window: 512,
		SACK: [4]capture.SACKBlock{{1000, 2000}, {3000, 4000}, {5000, 6000}}, NSACK: 3}
	if d := cmp.Diff(want, p.TCP); d != "" {
		t.Errorf("TCP header (-want +got):\n%s", d)
	}
	// 20 + 10 (timestamps) + 26 (SACK of 3 blocks) = 56 bytes of TCP header.
	if p.Kind != capture.KindTCP || string(p.Payload) != "data" || p.PayloadLen != 4 || p.HeaderLen != 14+40+56 ||
		p.SrcPort != 5004 || p.DstPort != 3478 {
		t.Errorf("%+v", summary(p))
	}
}

// TestTCPWindowScale: the window scale option of a SYN (RFC 7323, 2.2), beside MSS; a shift
// above 14 is read as 14 (2.3).
func TestTCPWindowScale(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shift uint8
		want  uint8
	}{{"shift 7", 7, 7}, {"shift 0", 0, 0}, {"shift 15 is 14", 15, 14}} {
		t.Run(tc.name, func(t *testing.T) {
			frame := pcapgen.EtherTCP(a6, b6, 1, 0, capture.FlagSYN, 65535, nil, pcapgen.MSS(1460),
				pcapgen.WScale(tc.shift))
			p := onePacket(t, pcapFile(t, capture.LinkEthernet, frame))
			if !p.TCP.HasWScale || p.TCP.WScale != tc.want || p.TCP.Window != 65535 {
				t.Errorf("wscale %v %d window %d; want true %d 65535", p.TCP.HasWScale, p.TCP.WScale, p.TCP.Window, tc.want)
			}
		})
	}
}

// TestTCPOptionsDamaged: option lengths that lie stop the walk without a panic.
func TestTCPOptionsDamaged(t *testing.T) {
	for _, opt := range [][]byte{
		{5, 0xff, 0, 0},                       // SACK longer than the options
		{5, 1, 0, 0},                          // length below 2
		{2},                                   // kind without length (padded with EOL by the builder)
		{5, 10, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, // SACK of one block and 2 spare bytes
	} {
		seg := pcapgen.TCP(a4, b4, 1, 2, capture.FlagACK, 1, nil)
		o := append(bytes.Clone(opt), make([]byte, (4-len(opt)%4)%4)...)
		seg = append(seg[:20:20], o...)
		seg[12] = byte((20+len(o))/4) << 4
		p := onePacket(t, pcapFile(t, capture.LinkRaw, pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoTCP, seg)))
		if p.Kind != capture.KindTCP || p.TCP.NSACK > 1 {
			t.Errorf("options %x: kind %d, %d SACK blocks", opt, p.Kind, p.TCP.NSACK)
		}
	}
}

// TestSnapped cuts frames at the snap length: headers still decode, the payload is partial.
func TestSnapped(t *testing.T) {
	payload := bytes.Repeat([]byte{0x80}, 200)
	for _, tc := range []struct {
		name    string
		frame   []byte
		snap    int
		kind    capture.Kind
		payload int // captured payload bytes
	}{
		{"udp4", pcapgen.EtherUDP(a4, b4, payload), 60, capture.KindUDP, 60 - 42},
		{"udp6", pcapgen.EtherUDP(a6, b6, payload), 70, capture.KindUDP, 70 - 62},
		{"tcp4", pcapgen.EtherTCP(a4, b4, 1, 1, capture.FlagACK, 1, payload), 64, capture.KindTCP, 64 - 54},
		{"udp-header-cut", pcapgen.EtherUDP(a4, b4, payload), 38, capture.KindUDP, 0}, // the ports only
		{"udp-ports-cut", pcapgen.EtherUDP(a4, b4, payload), 37, capture.KindUndecodable, 0},
		{"ip-header-cut", pcapgen.EtherUDP(a4, b4, payload), 20, capture.KindUndecodable, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, tc.snap)
			must(t, w.Write(t0, 0, tc.frame, 0))
			p := onePacket(t, buf.Bytes())
			if p.Kind != tc.kind || !p.Snapped || len(p.Payload) != tc.payload || p.CapLen != tc.snap ||
				p.WireLen != len(tc.frame) {
				t.Errorf("%+v", summary(p))
			}
			if tc.kind != capture.KindUndecodable && (p.PayloadLen != 200 || p.HeaderLen+p.PayloadLen != p.WireLen) {
				t.Errorf("lengths %+v", summary(p))
			}
		})
	}
}

// TestTunnels: PPPoE and MPLS carry IP too.
func TestTunnels(t *testing.T) {
	ip4 := pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a4, b4, []byte("hello")))
	pppoe := append([]byte{0x11, 0, 0, 1, 0, byte(len(ip4) + 2), 0x00, 0x21}, ip4...)
	mpls := append([]byte{0, 1, 0, 64, 0, 2, 1, 64}, ip4...) // two labels, bottom of stack on the second
	for name, f := range map[string][]byte{
		"pppoe": pcapgen.Ether(pppoe, 0x8864),
		"mpls":  pcapgen.Ether(mpls, 0x8847),
	} {
		p := onePacket(t, pcapFile(t, capture.LinkEthernet, f))
		if p.Kind != capture.KindUDP || string(p.Payload) != "hello" {
			t.Errorf("%s: %+v", name, summary(p))
		}
	}
}

// A record's original length beyond 256 KiB and beyond what it holds is damaged (no link
// carries such a frame): its captured length is the wire length, and it is counted
// (Stats.OrigBeyond). 256 KiB itself is taken as given. Both formats.
func TestOrigLenBeyondAnyLink(t *testing.T) {
	frame := pcapgen.EtherUDP(a4, b4, []byte("hi")) // 44 bytes
	for _, tc := range []struct {
		orig    int
		wire    int
		counted int64
	}{
		{0xFFFFFFFF, 44, 1},
		{256<<10 + 1, 44, 1},
		{256 << 10, 256 << 10, 0},
		{1500, 1500, 0},
	} {
		for _, ng := range []bool{false, true} {
			var buf bytes.Buffer
			var w *pcapgen.Writer
			if ng {
				w = pcapgen.NewPcapNG(&buf, []pcapgen.Iface{{Link: capture.LinkEthernet}})
			} else {
				w = pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0)
			}
			must(t, w.Write(t0, 0, frame, tc.orig))
			r, err := capture.Open(bytes.NewReader(buf.Bytes()))
			must(t, err)
			var p capture.Packet
			must(t, r.Next(&p))
			if p.WireLen != tc.wire || p.FrameLen != tc.wire || r.Stats().OrigBeyond != tc.counted {
				t.Errorf("pcapng %v, orig_len %d: wire %d frame %d counted %d, want %d %d",
					ng, tc.orig, p.WireLen, p.FrameLen, r.Stats().OrigBeyond, tc.wire, tc.counted)
			}
			r.Close()
		}
	}
}
