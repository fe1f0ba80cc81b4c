package capture_test

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/klauspost/compress/gzip"
)

// TestDataOffset: the bytes of the decompressed file at DataOffset are each packet's Data,
// in pcap (a record larger than a read chunk among them) and pcapng (EPB and SPB), read in
// one piece, in chunks and one byte at a time, plain and gzip'd; TransportOff is where the
// UDP or TCP header starts (Ethernet 14 + IPv4 20, + IPv6 40), -1 for a reassembled
// datagram.
func TestDataOffset(t *testing.T) {
	udp4 := pcapgen.EtherUDP(a4, b4, []byte("\x80\x60hello"))
	tcp6 := pcapgen.EtherTCP(a6, b6, 1, 2, capture.FlagACK, 9, []byte("world"))
	big := pcapgen.EtherUDP(a4, b4, make([]byte, 60000)) // 60 KB, cut into fragments below
	var frags [][]byte
	for _, f := range pcapgen.IPv4Fragments(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, 7, pcapgen.UDP(a4, b4, make([]byte, 3000)), 1480) {
		frags = append(frags, pcapgen.Ether(f, pcapgen.EtherTypeIPv4))
	}
	huge := pcapgen.Ether(make([]byte, 300<<10), 0x88b5) // above the 256 KiB read chunk

	var pc bytes.Buffer
	w := pcapgen.NewPcap(&pc, capture.LinkEthernet, true, false, 400<<10)
	for i, f := range append([][]byte{udp4, tcp6, big, huge}, frags...) {
		w.Write(t0+int64(i), 0, f, 0)
	}
	var ng bytes.Buffer
	w = pcapgen.NewPcapNG(&ng, []pcapgen.Iface{{Link: capture.LinkEthernet}})
	w.Write(t0, 0, udp4, 0)
	w.WriteISB(0, 1)
	w.WriteSPB(tcp6, 0)
	w.Write(t0+1, 0, tcp6, 0)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(pc.Bytes())
	zw.Close()

	// huge is no IP and a fragment held for reassembly has no transport header: 0; the
	// datagram the last fragment completes is in a reassembly buffer: -1.
	wantL4 := []int{34, 54, 34, 0, 0, -1}
	for _, tc := range []struct {
		name   string
		file   []byte // as decompressed
		in     []byte
		wantL4 []int
	}{
		{"pcap", pc.Bytes(), pc.Bytes(), wantL4},
		{"pcap.gz", pc.Bytes(), gz.Bytes(), wantL4},
		{"pcapng", ng.Bytes(), ng.Bytes(), []int{34, 54, 54}},
	} {
		for _, rd := range []struct {
			name string
			r    func() io.Reader
		}{
			{"whole", func() io.Reader { return bytes.NewReader(tc.in) }},
			{"chunks", func() io.Reader { return struct{ io.Reader }{bytes.NewReader(tc.in)} }},
			{"bytes", func() io.Reader { return iotest.OneByteReader(bytes.NewReader(tc.in)) }},
		} {
			t.Run(tc.name+"/"+rd.name, func(t *testing.T) {
				r, err := capture.Open(rd.r())
				if err != nil {
					t.Fatal(err)
				}
				var p capture.Packet
				n := 0
				for ; r.Next(&p) == nil; n++ {
					off := r.DataOffset()
					if got := tc.file[off : off+int64(len(p.Data))]; !bytes.Equal(got, p.Data) {
						t.Errorf("packet %d: the file at DataOffset %d is not its Data", n, off)
					}
					if k := len(tc.wantL4) - 1; n < k && p.TransportOff != tc.wantL4[n] ||
						p.Reassembled && p.TransportOff != tc.wantL4[k] {
						t.Errorf("packet %d: TransportOff %d (reassembled %v)", n, p.TransportOff, p.Reassembled)
					}
				}
				if want := map[string]int{"pcap": 4 + len(frags), "pcap.gz": 4 + len(frags), "pcapng": 3}[tc.name]; n != want {
					t.Errorf("%d packets, want %d", n, want)
				}
			})
		}
	}
}
