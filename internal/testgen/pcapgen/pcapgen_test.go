package pcapgen

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/netip"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/wire"
	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

var (
	a4 = netip.MustParseAddrPort("192.0.2.1:5004")
	b4 = netip.MustParseAddrPort("198.51.100.2:40000")
	a6 = netip.MustParseAddrPort("[2001:db8::1]:5004")
	b6 = netip.MustParseAddrPort("[2001:db8::2]:3478")
)

// TestPcapBytes pins the file layout byte by byte (the capture package reads these files
// back in its own tests).
func TestPcapBytes(t *testing.T) {
	frame := []byte{0xde, 0xad, 0xbe, 0xef, 0x01}
	for _, tc := range []struct {
		name      string
		nano, big bool
		snap      int
		want      []byte
	}{
		{"micro-le", false, false, 0, []byte{
			0xd4, 0xc3, 0xb2, 0xa1, // magic, µs
			2, 0, 4, 0, // version 2.4
			0, 0, 0, 0, 0, 0, 0, 0, // thiszone, sigfigs
			0x00, 0x00, 0x04, 0x00, // snaplen 262144
			1, 0, 0, 0, // LINKTYPE_ETHERNET
			0x01, 0xf1, 0x53, 0x65, // ts_sec 1700000001
			0x40, 0xe2, 0x01, 0x00, // ts_usec 123456
			5, 0, 0, 0, 5, 0, 0, 0, // caplen, len
			0xde, 0xad, 0xbe, 0xef, 0x01,
		}},
		{"nano-be-snapped", true, true, 3, []byte{
			0xa1, 0xb2, 0x3c, 0x4d, // magic, ns, big-endian
			0, 2, 0, 4,
			0, 0, 0, 0, 0, 0, 0, 0,
			0, 0, 0, 3, // snaplen 3
			0, 0, 0, 1,
			0x65, 0x53, 0xf1, 0x01, // ts_sec
			0x07, 0x5b, 0xcd, 0x15, // ts_nsec 123456789
			0, 0, 0, 3, 0, 0, 0, 5, // caplen 3 of 5
			0xde, 0xad, 0xbe,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewPcap(&buf, capture.LinkEthernet, tc.nano, tc.big, tc.snap)
			must(t, w.Write(1700000001_123456789, 0, frame, 0))
			if d := cmp.Diff(tc.want, buf.Bytes()); d != "" {
				t.Errorf("bytes (-want +got):\n%s", d)
			}
		})
	}
}

func TestPcapNGBytes(t *testing.T) {
	var buf bytes.Buffer
	w := NewPcapNG(&buf, []Iface{{Link: capture.LinkLinuxSLL2, SnapLen: 2, TSResol: 9}})
	must(t, w.Write(0x1_0000_0002, 0, []byte{7, 8, 9}, 0))
	must(t, w.WriteISB(0, 5))
	b := buf.Bytes()
	shbLen := int(binary.LittleEndian.Uint32(b[4:]))
	want := []byte{
		0x0a, 0x0d, 0x0d, 0x0a, byte(shbLen), 0, 0, 0, // SHB
		0x4d, 0x3c, 0x2b, 0x1a, // byte-order magic
		1, 0, 0, 0, // version 1.0
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // section length unknown
	}
	if d := cmp.Diff(want, b[:len(want)]); d != "" {
		t.Fatalf("SHB (-want +got):\n%s", d)
	}
	b = b[shbLen:]
	want = []byte{
		1, 0, 0, 0, 32, 0, 0, 0, // IDB, 32 bytes
		0x14, 0x01, 0, 0, // LINKTYPE_LINUX_SLL2 (276), reserved
		2, 0, 0, 0, // snaplen 2
		9, 0, 1, 0, 9, 0, 0, 0, // if_tsresol 9
		0, 0, 0, 0, // opt_endofopt
		32, 0, 0, 0,
		6, 0, 0, 0, 36, 0, 0, 0, // EPB, 36 bytes
		0, 0, 0, 0, // interface 0
		1, 0, 0, 0, 2, 0, 0, 0, // timestamp high, low
		2, 0, 0, 0, 3, 0, 0, 0, // caplen 2 of 3
		7, 8, 0, 0, // data, padding
		36, 0, 0, 0,
		5, 0, 0, 0, 40, 0, 0, 0, // ISB, 40 bytes
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // interface 0, timestamp 0
		5, 0, 8, 0, 5, 0, 0, 0, 0, 0, 0, 0, // isb_ifdrop 5
		0, 0, 0, 0, // opt_endofopt
		40, 0, 0, 0,
	}
	if d := cmp.Diff(want, b); d != "" {
		t.Errorf("IDB, EPB, ISB (-want +got):\n%s", d)
	}
}

func TestTSResolBinary(t *testing.T) {
	for _, tc := range []struct {
		ns    int64
		resol uint8
		want  uint64
	}{
		{1_500_000_000, 6, 1_500_000},
		{1_500_000_000, 9, 1_500_000_000},
		{1_500_000_000, 0x80 | 10, 1536}, // 1.5 s in units of 2^-10 s
		{2_000_000_000, 0x80, 2},
	} {
		if got := units(tc.ns, tc.resol); got != tc.want {
			t.Errorf("units(%d, %#x) = %d, want %d", tc.ns, tc.resol, got, tc.want)
		}
	}
}

// TestFrames decodes every builder's output with gopacket and checks the checksums.
func TestFrames(t *testing.T) {
	payload := []byte("0123456789abcdef")
	sack := SACK(capture.SACKBlock{Left: 100, Right: 200}, capture.SACKBlock{Left: 300, Right: 400})
	for _, tc := range []struct {
		name  string
		frame []byte
		first gopacket.Decoder
		want  []gopacket.LayerType
	}{
		{"ether-udp4", EtherUDP(a4, b4, payload), layers.LayerTypeEthernet,
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, gopacket.LayerTypePayload}},
		{"ether-udp6", EtherUDP(a6, b6, payload), layers.LayerTypeEthernet,
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv6, layers.LayerTypeUDP, gopacket.LayerTypePayload}},
		{"ether-tcp-sack", EtherTCP(a4, b4, 1, 2, capture.FlagACK, 1000, payload, sack), layers.LayerTypeEthernet,
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeTCP, gopacket.LayerTypePayload}},
		{"qinq", Ether(IPv4(a4.Addr(), b4.Addr(), ProtoUDP, UDP(a4, b4, payload)), EtherTypeIPv4, 10, 20), layers.LayerTypeEthernet,
			[]gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeDot1Q, layers.LayerTypeDot1Q, layers.LayerTypeIPv4, layers.LayerTypeUDP, gopacket.LayerTypePayload}},
		{"sll", SLL(IPv6(a6.Addr(), b6.Addr(), ProtoUDP, UDP(a6, b6, payload)), EtherTypeIPv6), layers.LayerTypeLinuxSLL,
			[]gopacket.LayerType{layers.LayerTypeLinuxSLL, layers.LayerTypeIPv6, layers.LayerTypeUDP, gopacket.LayerTypePayload}},
		{"sll2", SLL2(IPv4(a4.Addr(), b4.Addr(), ProtoUDP, UDP(a4, b4, payload)), EtherTypeIPv4, 3), layers.LayerTypeLinuxSLL2,
			[]gopacket.LayerType{layers.LayerTypeLinuxSLL2, layers.LayerTypeIPv4, layers.LayerTypeUDP, gopacket.LayerTypePayload}},
		{"null", Null(IPv4(a4.Addr(), b4.Addr(), ProtoUDP, UDP(a4, b4, payload)), 2), layers.LayerTypeLoopback,
			[]gopacket.LayerType{layers.LayerTypeLoopback, layers.LayerTypeIPv4, layers.LayerTypeUDP, gopacket.LayerTypePayload}},
		{"ipv4-options", IPv4(a4.Addr(), b4.Addr(), ProtoUDP, UDP(a4, b4, payload), 0x94, 4, 0, 0), layers.LayerTypeIPv4,
			[]gopacket.LayerType{layers.LayerTypeIPv4, layers.LayerTypeUDP, gopacket.LayerTypePayload}},
		{"ipv6-ext", IPv6(a6.Addr(), b6.Addr(), ProtoUDP, UDP(a6, b6, payload),
			ExtHeader{Type: ProtoHopByHop}, ExtHeader{Type: ProtoDestOpts, Data: make([]byte, 10)}), layers.LayerTypeIPv6,
			[]gopacket.LayerType{layers.LayerTypeIPv6, layers.LayerTypeIPv6HopByHop, layers.LayerTypeIPv6Destination, layers.LayerTypeUDP, gopacket.LayerTypePayload}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkt := gopacket.NewPacket(tc.frame, tc.first, gopacket.Default)
			if el := pkt.ErrorLayer(); el != nil {
				t.Fatalf("decode: %v", el.Error())
			}
			var got []gopacket.LayerType
			for _, l := range pkt.Layers() {
				got = append(got, l.LayerType())
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("layers (-want +got):\n%s", d)
			}
			if app := pkt.ApplicationLayer(); app == nil || !bytes.Equal(app.Payload(), payload) {
				t.Errorf("payload %v", app)
			}
			if ip4, ok := pkt.NetworkLayer().(*layers.IPv4); ok {
				if s := wire.ChecksumFold(wire.ChecksumAdd(0, ip4.Contents)); s != 0xffff {
					t.Errorf("IPv4 header checksum wrong: %#x", s)
				}
			}
			if tl := pkt.TransportLayer(); tl != nil {
				nl := pkt.NetworkLayer()
				src, _ := netip.AddrFromSlice(nl.NetworkFlow().Src().Raw())
				dst, _ := netip.AddrFromSlice(nl.NetworkFlow().Dst().Raw())
				seg := append(append([]byte(nil), tl.LayerContents()...), tl.LayerPayload()...)
				proto := uint8(ProtoUDP)
				if tl.LayerType() == layers.LayerTypeTCP {
					proto = ProtoTCP
				}
				if s := wire.ChecksumFold(wire.ChecksumAdd(wire.PseudoHeaderSum(src, dst, proto, len(seg)), seg)); s != 0xffff {
					t.Errorf("transport checksum wrong: %#x", s)
				}
			}
			if tcp, ok := pkt.TransportLayer().(*layers.TCP); ok {
				var n int
				for _, o := range tcp.Options {
					if o.OptionType == layers.TCPOptionKindSACK {
						n = len(o.OptionData) / 8
					}
				}
				if n != 2 {
					t.Errorf("SACK blocks %d, want 2", n)
				}
			}
		})
	}
}

func TestFragments(t *testing.T) {
	payload := UDP(a4, b4, bytes.Repeat([]byte{1, 2, 3}, 1000))
	frags := IPv4Fragments(a4.Addr(), b4.Addr(), ProtoUDP, 77, payload, 1000)
	if len(frags) != 4 {
		t.Fatalf("%d fragments, want 4", len(frags))
	}
	var joined []byte
	for i, f := range frags {
		off := int(binary.BigEndian.Uint16(f[6:])&0x1fff) * 8
		more := f[6]&0x20 != 0
		if off != len(joined) || more != (i < 3) || binary.BigEndian.Uint16(f[4:]) != 77 {
			t.Errorf("fragment %d: offset %d more %v", i, off, more)
		}
		joined = append(joined, f[20:]...)
	}
	if !bytes.Equal(joined, payload) {
		t.Error("IPv4 fragments do not join to the payload")
	}

	p6 := UDP(a6, b6, bytes.Repeat([]byte{9}, 3000))
	f6 := IPv6Fragments(a6.Addr(), b6.Addr(), ProtoUDP, 0xabcdef, p6, 1232, ExtHeader{Type: ProtoHopByHop})
	joined = joined[:0]
	for i, f := range f6 {
		pkt := gopacket.NewPacket(f, layers.LayerTypeIPv6, gopacket.Default)
		fr, ok := pkt.Layer(layers.LayerTypeIPv6Fragment).(*layers.IPv6Fragment)
		if !ok {
			t.Fatalf("fragment %d: no fragment header", i)
		}
		if int(fr.FragmentOffset)*8 != len(joined) || fr.MoreFragments != (i < len(f6)-1) || fr.Identification != 0xabcdef {
			t.Errorf("fragment %d: %+v", i, fr)
		}
		joined = append(joined, fr.Payload...)
	}
	if !bytes.Equal(joined, p6) {
		t.Error("IPv6 fragments do not join to the payload")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestEmpty: the header-only files are valid captures of nothing.
func TestEmpty(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		format string
	}{
		{"pcap", EmptyPcap(), "pcap"},
		{"pcapng", EmptyPcapNG(), "pcapng"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := capture.Open(bytes.NewReader(tc.data))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer r.Close()
			var p capture.Packet
			if err := r.Next(&p); err != io.EOF {
				t.Errorf("Next = %v, want io.EOF", err)
			}
			if got := r.LinkTypes(); r.Format() != tc.format || len(got) != 1 || got[0] != capture.LinkEthernet {
				t.Errorf("format %s, link types %v; want %s, [ETHERNET]", r.Format(), got, tc.format)
			}
		})
	}
	if n := len(EmptyPcap()); n != 24 {
		t.Errorf("EmptyPcap is %d bytes, want the 24 of a pcap file header", n)
	}
}
