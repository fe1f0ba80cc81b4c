package capture_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"
	"testing"
	"testing/iotest"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// TestPcapVariants reads classic pcap in both resolutions and byte orders.
func TestPcapVariants(t *testing.T) {
	frame := pcapgen.EtherUDP(a4, b4, []byte("hello"))
	const ts = 1_700_000_001_123_456_789
	for _, tc := range []struct {
		name      string
		nano, big bool
		want      int64
	}{
		{"micro-le", false, false, 1_700_000_001_123_456_000},
		{"micro-be", false, true, 1_700_000_001_123_456_000},
		{"nano-le", true, false, ts},
		{"nano-be", true, true, ts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := pcapgen.NewPcap(&buf, capture.LinkEthernet, tc.nano, tc.big, 0)
			must(t, w.Write(ts, 0, frame, 0))
			must(t, w.Write(ts+1e9, 0, frame, 0))
			r, ps, err := readAllBytes(t, buf.Bytes())
			must(t, err)
			if r.Format() != "pcap" || r.Compression() != "none" || !cmp.Equal(r.LinkTypes(), []capture.LinkType{capture.LinkEthernet}) {
				t.Errorf("format %s compression %s links %v", r.Format(), r.Compression(), r.LinkTypes())
			}
			if len(ps) != 2 || ps[0].Time != tc.want || ps[1].Time != tc.want+1e9 || ps[0].Kind != capture.KindUDP {
				t.Fatalf("packets %+v", ps)
			}
			if _, ok := r.InterfaceDrops(); ok {
				t.Error("classic pcap reports interface drops")
			}
		})
	}
}

// TestPcapTimestampOverflow: a fractional field of 1e9 or more must neither panic nor go
// negative.
func TestPcapTimestampOverflow(t *testing.T) {
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkEthernet, true, false, 0)
	must(t, w.Write(5e9, 0, []byte{1}, 0))
	b := buf.Bytes()
	binary.LittleEndian.PutUint32(b[24:], 0xffffffff) // ts_sec
	binary.LittleEndian.PutUint32(b[28:], 0xffffffff) // ts_nsec
	p := onePacket(t, b)
	if want := int64(0xffffffff)*1e9 + 0xffffffff; p.Time != want {
		t.Errorf("time %d, want %d", p.Time, want)
	}
}

// TestPcapSwappedLengths: before version 2.3 the length fields came swapped.
func TestPcapSwappedLengths(t *testing.T) {
	frame := pcapgen.EtherUDP(a4, b4, []byte("hello"))
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0)
	must(t, w.Write(t0, 0, frame, 1000))
	b := buf.Bytes()
	binary.LittleEndian.PutUint16(b[6:], 2)             // version 2.2
	binary.LittleEndian.PutUint32(b[32:], 1000)         // "incl_len" holds orig_len
	binary.LittleEndian.PutUint32(b[36:], len32(frame)) // "orig_len" holds incl_len
	p := onePacket(t, b)
	if p.CapLen != len(frame) || p.WireLen != 1000 || p.Kind != capture.KindUDP {
		t.Errorf("%+v", summary(p))
	}
}

func len32(b []byte) uint32 { return uint32(len(b)) }

// TestPcapNGManySections: 70,000 sections of one interface and one packet each, as pcapng
// files concatenated make: every packet read, each on an interface of its own (the global
// index goes on), one link type, the drops of every section summed. The interface table
// was the whole file's, and the 65,537th interface ended the reading as damaged.
func TestPcapNGManySections(t *testing.T) {
	const n = 70_000
	var buf bytes.Buffer
	w := pcapgen.NewPcapNG(&buf, []pcapgen.Iface{{Link: capture.LinkEthernet}})
	frame := pcapgen.Ether(pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a4, b4, []byte("hello"))), pcapgen.EtherTypeIPv4)
	for i := range n {
		if i > 0 {
			must(t, w.NewSection(false, []pcapgen.Iface{{Link: capture.LinkEthernet}}))
		}
		must(t, w.Write(int64(i)*1e6, 0, frame, 0))
		if i%10_000 == 0 {
			must(t, w.WriteISB(0, 2))
		}
	}
	r, ps, err := readAllBytes(t, buf.Bytes())
	must(t, err)
	if len(ps) != n || ps[n-1].Iface != n-1 || ps[n-1].Kind != capture.KindUDP {
		t.Fatalf("%d packets, the last on interface %d, %v; want %d, %d, udp", len(ps), ps[len(ps)-1].Iface, ps[len(ps)-1].Kind, n, n-1)
	}
	if d := cmp.Diff([]capture.LinkType{capture.LinkEthernet}, r.LinkTypes()); d != "" {
		t.Errorf("link types (-want +got):\n%s", d)
	}
	if drops, ok := r.InterfaceDrops(); drops != 14 || !ok {
		t.Errorf("drops %d %v, want 14 true", drops, ok)
	}
}

// TestPcapNG: several sections (the second big-endian), interfaces of different link types
// and resolutions, SPB, ISB drops and blocks to skip.
func TestPcapNG(t *testing.T) {
	var buf bytes.Buffer
	w := pcapgen.NewPcapNG(&buf, []pcapgen.Iface{
		{Link: capture.LinkEthernet, TSResol: 6},
		{Link: capture.LinkLinuxSLL2, TSResol: 9},
		{Link: capture.LinkRaw, TSResol: 0x80 | 20}, // 2^-20 s
	})
	ip4 := pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a4, b4, []byte("hello")))
	const ts = 1_700_000_000_123_456_789
	must(t, w.Write(ts, 0, pcapgen.Ether(ip4, pcapgen.EtherTypeIPv4), 0))
	must(t, w.WriteBlock(0x0A, []byte("secrets"))) // Decryption Secrets Block
	must(t, w.WriteBlock(4, nil))                  // Name Resolution Block
	must(t, w.Write(ts, 1, pcapgen.SLL2(ip4, pcapgen.EtherTypeIPv4, 3), 0))
	must(t, w.Write(ts, 2, ip4, 0))
	must(t, w.WriteISB(0, 3))
	must(t, w.WriteISB(0, 5)) // cumulative: replaces 3
	must(t, w.WriteSPB(pcapgen.Ether(ip4, pcapgen.EtherTypeIPv4), 0))
	must(t, w.NewSection(true, []pcapgen.Iface{{Link: capture.LinkIPv4, TSResol: 9, TSOffset: 10}}))
	must(t, w.Write(ts, 0, ip4, 0))
	must(t, w.WriteISB(0, 7))

	r, ps, err := readAllBytes(t, buf.Bytes())
	must(t, err)
	if r.Format() != "pcapng" {
		t.Errorf("format %s", r.Format())
	}
	wantLinks := []capture.LinkType{capture.LinkEthernet, capture.LinkLinuxSLL2, capture.LinkRaw, capture.LinkIPv4}
	if d := cmp.Diff(wantLinks, r.LinkTypes()); d != "" {
		t.Errorf("link types (-want +got):\n%s", d)
	}
	if n, ok := r.InterfaceDrops(); n != 12 || !ok {
		t.Errorf("drops %d %v, want 12 true", n, ok)
	}
	type pk struct {
		Iface int
		Link  capture.LinkType
		Time  int64
		Kind  capture.Kind
	}
	var got []pk
	for _, p := range ps {
		got = append(got, pk{p.Iface, p.LinkType, p.Time, p.Kind})
	}
	// What units of 2^-20 s keep of ts.
	u := uint64(ts)/1e9<<20 + uint64(ts)%1e9<<20/1e9
	hi, lo := bits.Mul64(u, 1e9)
	binTS := int64(lo>>20 | hi<<44)
	want := []pk{
		{0, capture.LinkEthernet, 1_700_000_000_123_456_000, capture.KindUDP},
		{1, capture.LinkLinuxSLL2, ts, capture.KindUDP},
		{2, capture.LinkRaw, binTS, capture.KindUDP},
		{0, capture.LinkEthernet, binTS, capture.KindUDP}, // SPB: first interface, previous time
		{3, capture.LinkIPv4, ts, capture.KindUDP},        // second section: ids restart
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("packets (-want +got):\n%s", d)
	}
}

func TestPcapNGLinkTypesAtOpen(t *testing.T) {
	var buf bytes.Buffer
	pcapgen.NewPcapNG(&buf, []pcapgen.Iface{{Link: capture.LinkLinuxSLL}, {Link: capture.LinkEthernet}})
	r, err := capture.Open(&buf)
	must(t, err)
	if d := cmp.Diff([]capture.LinkType{capture.LinkLinuxSLL, capture.LinkEthernet}, r.LinkTypes()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var p capture.Packet
	wantErr(t, r.Next(&p), io.EOF)
}

// TestCompressed reads pcap and pcapng inside gzip and zstd.
func TestCompressed(t *testing.T) {
	frames := [][]byte{pcapgen.EtherUDP(a4, b4, []byte("one")), pcapgen.EtherUDP(a6, b6, []byte("two"))}
	plain := pcapFile(t, capture.LinkEthernet, frames...)
	var ng bytes.Buffer
	w := pcapgen.NewPcapNG(&ng, []pcapgen.Iface{{Link: capture.LinkEthernet}})
	for _, f := range frames {
		must(t, w.Write(t0, 0, f, 0))
	}
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		zw := gzip.NewWriter(&out)
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	zs := func(b []byte) []byte {
		zw, _ := zstd.NewWriter(nil)
		defer zw.Close()
		return zw.EncodeAll(b, nil)
	}
	for _, tc := range []struct {
		name, format, compression string
		data                      []byte
	}{
		{"pcap-gzip", "pcap", "gzip", gz(plain)},
		{"pcap-zstd", "pcap", "zstd", zs(plain)},
		{"pcapng-gzip", "pcapng", "gzip", gz(ng.Bytes())},
		{"pcapng-zstd", "pcapng", "zstd", zs(ng.Bytes())},
		// A skippable frame first (magic 0x184D2A5?, a length, that many bytes), as pzstd
		// writes: a zstd stream all the same.
		{"pcap-zstd-skippable-first", "pcap", "zstd", append([]byte{0x5e, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4}, zs(plain)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ps, err := readAllBytes(t, tc.data)
			must(t, err)
			defer r.Close()
			if r.Format() != tc.format || r.Compression() != tc.compression || len(ps) != 2 ||
				string(ps[1].Payload) != "two" {
				t.Errorf("%s %s %d packets", r.Format(), r.Compression(), len(ps))
			}
		})
		t.Run(tc.name+"-truncated", func(t *testing.T) {
			_, ps, err := readAllBytes(t, tc.data[:len(tc.data)-12])
			if err == nil {
				t.Fatalf("no error, %d packets", len(ps))
			}
			t.Logf("%d packets, %v", len(ps), err)
		})
	}
	t.Run("gzip-of-garbage", func(t *testing.T) {
		_, _, err := readAllBytes(t, gz([]byte("this is not a capture")))
		wantErr(t, err, capture.ErrNotCapture)
	})
	t.Run("gzip-header-only", func(t *testing.T) {
		_, _, err := readAllBytes(t, []byte{0x1f, 0x8b, 8, 0})
		wantErr(t, err, capture.ErrCorrupt)
	})
}

// TestReaders reads through readers that return little at a time.
func TestReaders(t *testing.T) {
	var frames [][]byte
	for i := range 50 {
		frames = append(frames, pcapgen.EtherUDP(a4, b4, bytes.Repeat([]byte{byte(i)}, i*20)))
	}
	data := pcapFile(t, capture.LinkEthernet, frames...)
	for name, src := range map[string]io.Reader{
		"one-byte": iotest.OneByteReader(bytes.NewReader(data)),
		"half":     iotest.HalfReader(bytes.NewReader(data)),
		"data-err": iotest.DataErrReader(bytes.NewReader(data)),
	} {
		_, ps, err := readAllFrom(t, src)
		must(t, err)
		if len(ps) != 50 || ps[49].PayloadLen != 49*20 {
			t.Errorf("%s: %d packets", name, len(ps))
		}
	}
	// A failing reader is reported as such, not as a damaged file.
	_, _, err := readAllFrom(t, iotest.TimeoutReader(bytes.NewReader(data)))
	wantErr(t, err, iotest.ErrTimeout)
}

// TestLargeRecord: a record bigger than the 1 MiB buffer.
func TestLargeRecord(t *testing.T) {
	frame := pcapgen.Ether(make([]byte, 3<<20), 0x88b5)
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 4<<20)
	must(t, w.Write(t0, 0, frame, 0))
	must(t, w.Write(t0, 0, []byte("small frame..."), 0))
	_, ps, err := readAllBytes(t, buf.Bytes())
	must(t, err)
	if len(ps) != 2 || ps[0].CapLen != len(frame) || !bytes.Equal(ps[0].Data, frame) {
		t.Errorf("%d packets", len(ps))
	}
	// The same record cut short.
	_, ps, err = readAllBytes(t, buf.Bytes()[:2<<20])
	wantErr(t, err, capture.ErrTruncated)
	if len(ps) != 0 {
		t.Errorf("%d packets", len(ps))
	}
}

// TestOpenErrors: what Open refuses.
func TestOpenErrors(t *testing.T) {
	pcapHdr := func(major, minor uint16) []byte {
		b := pcapFile(t, capture.LinkEthernet)
		binary.LittleEndian.PutUint16(b[4:], major)
		binary.LittleEndian.PutUint16(b[6:], minor)
		return b
	}
	var ng bytes.Buffer
	pcapgen.NewPcapNG(&ng, []pcapgen.Iface{{Link: capture.LinkEthernet}})
	ngVer := func(major, minor uint16) []byte {
		b := bytes.Clone(ng.Bytes())
		binary.LittleEndian.PutUint16(b[12:], major)
		binary.LittleEndian.PutUint16(b[14:], minor)
		return b
	}
	ngMod := func(f func(b []byte)) []byte { b := bytes.Clone(ng.Bytes()); f(b); return b }
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"zero-bytes", nil, capture.ErrNotCapture},
		{"three-bytes", []byte{0xd4, 0xc3, 0xb2}, capture.ErrNotCapture},
		{"text", []byte("GET / HTTP/1.1\r\n"), capture.ErrNotCapture},
		{"pcap-header-cut", pcapFile(t, capture.LinkEthernet)[:20], capture.ErrCorrupt},
		{"pcap-major-1", pcapHdr(1, 4), capture.ErrUnsupported},
		{"pcap-major-3", pcapHdr(3, 0), capture.ErrUnsupported},
		{"modified-pcap", []byte{0x34, 0xcd, 0xb2, 0xa1, 2, 0, 4, 0}, capture.ErrUnsupported},
		{"pcapng-major-2", ngVer(2, 0), capture.ErrUnsupported},
		{"pcapng-minor-1", ngVer(1, 1), capture.ErrUnsupported},
		{"pcapng-shb-cut", ng.Bytes()[:20], capture.ErrCorrupt},
		{"pcapng-bad-bom", ngMod(func(b []byte) { b[8] = 0 }), capture.ErrCorrupt},
		{"pcapng-shb-len-odd", ngMod(func(b []byte) { b[4]++ }), capture.ErrCorrupt},
		{"pcapng-shb-trailer", ngMod(func(b []byte) { b[int(binary.LittleEndian.Uint32(b[4:]))-4]++ }), capture.ErrCorrupt},
		{"pcapng-shb-option-overrun", ngMod(func(b []byte) { b[26] = 0xff }), capture.ErrCorrupt},
		{"pcapng-huge-shb", ngMod(func(b []byte) { binary.LittleEndian.PutUint32(b[4:], 0xfffffff0) }), capture.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := capture.Open(bytes.NewReader(tc.data))
			wantErr(t, err, tc.want)
		})
	}
}

// TestEmpty: a valid header and no packets is not an error.
func TestEmpty(t *testing.T) {
	var ng bytes.Buffer
	pcapgen.NewPcapNG(&ng, []pcapgen.Iface{{Link: capture.LinkEthernet}})
	var ngNoIface bytes.Buffer
	pcapgen.NewPcapNG(&ngNoIface, nil)
	for name, data := range map[string][]byte{
		"pcap":          pcapFile(t, capture.LinkEthernet),
		"pcapng":        ng.Bytes(),
		"pcapng-no-idb": ngNoIface.Bytes(),
	} {
		r, err := capture.Open(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var p capture.Packet
		if err := r.Next(&p); err != io.EOF {
			t.Errorf("%s: Next %v, want io.EOF", name, err)
		}
		if err := r.Next(&p); err != io.EOF {
			t.Errorf("%s: second Next %v, want io.EOF", name, err)
		}
	}
}

// TestTruncated cuts files inside a record header, inside record data and inside a block.
func TestTruncated(t *testing.T) {
	frame := pcapgen.EtherUDP(a4, b4, []byte("hello"))
	pc := pcapFile(t, capture.LinkEthernet, frame, frame)
	var ngb bytes.Buffer
	w := pcapgen.NewPcapNG(&ngb, []pcapgen.Iface{{Link: capture.LinkEthernet}})
	must(t, w.Write(t0, 0, frame, 0))
	must(t, w.Write(t0, 0, frame, 0))
	ng := ngb.Bytes()
	recLen := 16 + len(frame)
	epbLen := 32 + (len(frame)+3)&^3
	for _, tc := range []struct {
		name string
		data []byte
		n    int // packets before the error
	}{
		{"pcap-mid-record-header", pc[:24+recLen+10], 1},
		{"pcap-mid-record-data", pc[:24+recLen+16+5], 1},
		{"pcap-first-record", pc[:24+3], 0},
		{"pcapng-mid-block-header", ng[:len(ng)-epbLen+5], 1},
		{"pcapng-mid-block", ng[:len(ng)-10], 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ps, err := readAllBytes(t, tc.data)
			wantErr(t, err, capture.ErrTruncated)
			if len(ps) != tc.n {
				t.Errorf("%d packets before the error, want %d", len(ps), tc.n)
			}
		})
	}
}

// TestCorruptBlocks damages pcapng blocks after the header.
func TestCorruptBlocks(t *testing.T) {
	frame := pcapgen.EtherUDP(a4, b4, []byte("hello"))
	build := func(f func(w *pcapgen.Writer)) []byte {
		var b bytes.Buffer
		w := pcapgen.NewPcapNG(&b, []pcapgen.Iface{{Link: capture.LinkEthernet}})
		must(t, w.Write(t0, 0, frame, 0))
		f(w)
		return b.Bytes()
	}
	le := binary.LittleEndian
	block := func(bt uint32, n uint32, body []byte, trailer uint32) []byte {
		b := le.AppendUint32(nil, bt)
		b = le.AppendUint32(b, n)
		b = append(b, body...)
		return le.AppendUint32(b, trailer)
	}
	epb := func(iface, caplen uint32) []byte {
		b := le.AppendUint32(nil, iface)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, caplen)
		b = le.AppendUint32(b, caplen)
		return append(b, 1, 2, 3, 4)
	}
	for _, tc := range []struct {
		name  string
		block []byte
	}{
		{"length-below-12", block(6, 8, nil, 8)},
		{"length-not-multiple-of-4", block(6, 18, []byte{1, 2}, 18)},
		{"length-huge", block(6, 1<<30, nil, 0)},
		{"trailer-mismatch", block(99, 16, []byte{0, 0, 0, 0}, 20)},
		{"epb-too-short", block(6, 16, []byte{0, 0, 0, 0}, 16)},
		{"idb-too-short", block(1, 16, []byte{1, 0, 0, 0}, 16)},
		{"idb-option-overrun", block(1, 28, []byte{1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0xff, 0, 6, 0, 0, 0}, 28)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := build(func(w *pcapgen.Writer) { w.WriteRaw(tc.block) })
			_, ps, err := readAllBytes(t, data)
			wantErr(t, err, capture.ErrCorrupt)
			if len(ps) != 1 {
				t.Errorf("%d packets before the error, want 1", len(ps))
			}
		})
	}
	// A packet block of an interface its section did not describe, or whose captured length
	// overruns it, whose own length holds: its bytes cannot be read, the blocks after it
	// can. Before, reading stopped there and the packets after it were lost.
	for _, tc := range []struct {
		name  string
		block []byte
		wire  int
	}{
		{"epb-unknown-interface", block(6, 36, epb(5, 4), 36), 4},
		// A captured length beyond its block: the packet is malformed, the file is not.
		{"epb-caplen-overrun", block(6, 36, epb(0, 100), 36), 4},
		{"opb-unknown-interface", block(2, 36, epb(7, 4), 36), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := build(func(w *pcapgen.Writer) {
				w.WriteRaw(tc.block)
				must(t, w.Write(t0+1e6, 0, frame, 0))
			})
			_, ps, err := readAllBytes(t, data)
			if err != nil || len(ps) != 3 || ps[1].Kind != capture.KindUndecodable || ps[1].WireLen != tc.wire ||
				ps[1].Time != t0 || ps[2].Kind != capture.KindUDP {
				t.Fatalf("error %v, %d packets %+v; want 3, the middle undecodable", err, len(ps), ps)
			}
		})
	}
	// A simple packet block before any interface description.
	var b bytes.Buffer
	w := pcapgen.NewPcapNG(&b, nil)
	w.WriteRaw(block(3, 20, append(le.AppendUint32(nil, 4), 1, 2, 3, 4), 20))
	_, ps, err := readAllBytes(t, b.Bytes())
	if err != nil || len(ps) != 1 || ps[0].Kind != capture.KindUndecodable || ps[0].WireLen != 4 {
		t.Errorf("spb before any interface: error %v, packets %+v; want one undecodable", err, ps)
	}
}

// TestRecordLimit: a classic pcap record longer than the limit is an error, not an
// allocation.
func TestRecordLimit(t *testing.T) {
	b := pcapFile(t, capture.LinkEthernet, []byte{1, 2, 3})
	binary.LittleEndian.PutUint32(b[24+8:], 0x7fffffff)
	_, _, err := readAllBytes(t, b)
	wantErr(t, err, capture.ErrCorrupt)
}

// TestPcapNGFineResolutionsAndStrayStats: interfaces with if_tsresol 10^-40 and 2^-127
// (pcapng allows any power to -127) are read, their stamps under a nanosecond; an
// interface statistics block naming interface 5 of a section of three is skipped and
// counted, and the packet after it read. Before, the first made the file damaged, and the
// second stopped the read (h161: 10 packets of 50).
func TestPcapNGFineResolutionsAndStrayStats(t *testing.T) {
	frame := pcapgen.EtherUDP(a4, b4, []byte("hello"))
	var b bytes.Buffer
	w := pcapgen.NewPcapNG(&b, []pcapgen.Iface{{Link: capture.LinkEthernet}, {Link: capture.LinkEthernet, TSResol: 40},
		{Link: capture.LinkEthernet, TSResol: 0xff}})
	must(t, w.Write(t0, 0, frame, 0))
	le := binary.LittleEndian
	block := func(bt uint32, body []byte) []byte {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		n := uint32(12 + len(body))
		out := le.AppendUint32(le.AppendUint32(nil, bt), n)
		return le.AppendUint32(append(out, body...), n)
	}
	epb := func(iface uint32, ts uint64) []byte {
		body := le.AppendUint32(nil, iface)
		body = le.AppendUint32(body, uint32(ts>>32))
		body = le.AppendUint32(body, uint32(ts))
		body = le.AppendUint32(body, uint32(len(frame)))
		body = le.AppendUint32(body, uint32(len(frame)))
		return block(6, append(body, frame...))
	}
	w.WriteRaw(epb(1, 5))
	w.WriteRaw(epb(2, 1<<63))
	w.WriteRaw(block(5, make([]byte, 12))) // ISB of interface 0: fine
	isb := make([]byte, 12)
	isb[0] = 5
	w.WriteRaw(block(5, isb))
	must(t, w.Write(t0+1e9, 0, frame, 0))
	r, ps, err := readAllBytes(t, b.Bytes())
	if err != nil || len(ps) != 4 {
		t.Fatalf("%d packets, error %v; want 4, none", len(ps), err)
	}
	if ps[1].Time != 0 || ps[2].Time != 0 || ps[3].Time != t0+1e9 {
		t.Errorf("times %d %d %d, want 0 0 %d", ps[1].Time, ps[2].Time, ps[3].Time, int64(t0+1e9))
	}
	if n := r.Stats().StatsOfNone; n != 1 {
		t.Errorf("%d statistics blocks of no interface, want 1", n)
	}
}
