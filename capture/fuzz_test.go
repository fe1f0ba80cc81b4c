package capture_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/corpus"
	"github.com/callpcap/callpcap/internal/testgen/golden"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// fuzzSeeds returns small captures that reach every part of the reader and decoder.
func fuzzSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	hello := []byte("\x80\x60\x00\x01hello")
	ip4 := pcapgen.IPv4(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a4, b4, hello), 0x94, 4, 0, 0)
	ip6 := pcapgen.IPv6(a6.Addr(), b6.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a6, b6, hello),
		pcapgen.ExtHeader{Type: pcapgen.ProtoHopByHop}, pcapgen.ExtHeader{Type: pcapgen.ProtoDestOpts})
	tcp := pcapgen.EtherTCP(a4, b4, 1, 2, capture.FlagACK, 9, hello, pcapgen.SACK(capture.SACKBlock{Left: 1, Right: 2}))

	seeds["pcap-ether"] = pcapFile(t, capture.LinkEthernet, pcapgen.Ether(ip4, pcapgen.EtherTypeIPv4, 7, 8), tcp)
	seeds["pcap-raw"] = pcapFile(t, capture.LinkRaw, ip4, ip6)
	seeds["pcap-sll2"] = pcapFile(t, capture.LinkLinuxSLL2, pcapgen.SLL2(ip6, pcapgen.EtherTypeIPv6, 2))
	seeds["pcap-null"] = pcapFile(t, capture.LinkNull, pcapgen.Null(ip6, 30), pcapgen.Null(ip4, 2))

	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkLinuxSLL, true, true, 40)
	w.Write(t0, 0, pcapgen.SLL(ip4, pcapgen.EtherTypeIPv4), 0)
	seeds["pcap-nano-be-snapped"] = bytes.Clone(buf.Bytes())

	frag4, _ := v4frags(5, 40, 16)
	frag6, _ := v6frags(6, 40, 16)
	var frames [][]byte
	for _, f := range append(frag4, frag6...) {
		frames = append(frames, f.frame)
	}
	seeds["pcap-fragments"] = pcapFile(t, capture.LinkEthernet, frames...)

	buf.Reset()
	w = pcapgen.NewPcapNG(&buf, []pcapgen.Iface{{Link: capture.LinkEthernet, TSResol: 9}, {Link: capture.LinkRaw, TSResol: 0x8a}})
	w.Write(t0, 0, tcp, 0)
	w.Write(t0, 1, ip6, 0)
	w.WriteISB(1, 3)
	w.WriteBlock(0x0a, []byte("dsb"))
	w.WriteSPB(tcp, 0)
	w.NewSection(true, []pcapgen.Iface{{Link: capture.LinkLoop, SnapLen: 30}})
	w.Write(t0, 0, pcapgen.Loop(ip4, 2), 0)
	seeds["pcapng-sections"] = bytes.Clone(buf.Bytes())

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(seeds["pcap-raw"])
	zw.Close()
	seeds["gzip"] = gz.Bytes()
	enc, _ := zstd.NewWriter(nil)
	seeds["zstd"] = enc.EncodeAll(seeds["pcapng-sections"], nil)
	enc.Close()
	return seeds
}

// TestWriteFuzzSeeds checks that testdata/fuzz/FuzzReader holds the seeds fuzzSeeds makes;
// -update rewrites them.
func TestWriteFuzzSeeds(t *testing.T) {
	for name, data := range fuzzSeeds(t) {
		golden.Check(t, filepath.Join("testdata", "fuzz", "FuzzReader", "seed-"+name), golden.FuzzSeed(data))
	}
}

// FuzzReader feeds arbitrary bytes to Open and Next: no panic, no hang, the packet
// invariants hold, and a reader told that its packets come zero (GivenZero) decodes each
// into a zero packet exactly as another does into one reused from the packet before.
func FuzzReader(f *testing.F) {
	for _, data := range fuzzSeeds(f) {
		f.Add(data)
	}
	// Small real captures, where the corpus is at hand.
	if dir, ok := corpus.Lookup(); ok {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && info.Size() < 4096 && e.Name() != "MANIFEST.md" {
				if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
					f.Add(b)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := capture.Open(bytes.NewReader(data))
		if err != nil {
			return
		}
		defer r.Close()
		rz, err := capture.Open(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("opened once, not twice: %v", err)
		}
		defer rz.Close()
		rz.GivenZero()
		var p capture.Packet
		for {
			err := r.Next(&p)
			var z capture.Packet
			if errz := rz.Next(&z); (errz == nil) != (err == nil) || err == nil && !reflect.DeepEqual(p, z) {
				t.Fatalf("reused packet %+v (%v), zero one %+v (%v)", p, err, z, errz)
			}
			if err != nil {
				if err != io.EOF && r.Next(&p) != err {
					t.Fatal("Next error is not sticky")
				}
				break
			}
			if p.CapLen != len(p.Data) || p.Time < 0 || p.FrameLen < p.CapLen || p.WireLen < p.FrameLen && !p.Reassembled {
				t.Fatalf("lengths: caplen %d data %d frame %d wire %d time %d", p.CapLen, len(p.Data), p.FrameLen, p.WireLen, p.Time)
			}
			if p.Kind == capture.KindUDP || p.Kind == capture.KindTCP {
				if p.HeaderLen+p.PayloadLen != p.WireLen || p.HeaderLen < 0 || p.PayloadLen < 0 ||
					len(p.Payload) > p.PayloadLen || p.Snapped != (len(p.Payload) < p.PayloadLen) && p.Kind == capture.KindUDP {
					t.Fatalf("header %d payload %d (%d captured) wire %d snapped %v", p.HeaderLen, p.PayloadLen, len(p.Payload), p.WireLen, p.Snapped)
				}
			}
			if p.TCP.NSACK > 4 {
				t.Fatalf("%d SACK blocks", p.TCP.NSACK)
			}
		}
		if s := r.Stats(); s.Pending > 1024 {
			t.Fatalf("%d pending datagrams", s.Pending)
		}
		r.LinkTypes()
		r.InterfaceDrops()
	})
}
