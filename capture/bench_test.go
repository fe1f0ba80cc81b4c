package capture_test

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

const benchPackets = 200_000

// benchFile writes a capture of benchPackets Ethernet/IPv4 frames carrying 1200-byte
// payloads (RTP-sized) over UDP or TCP, 20 ms apart per 50 packets, and returns its path
// and size.
func benchFile(b *testing.B, proto string) (string, int64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), proto+".pcap")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := pcapgen.NewPcap(bw, capture.LinkEthernet, false, false, 0)
	payload := make([]byte, 1200)
	payload[0] = 0x80
	var frame []byte
	var seqAt int
	if proto == "udp" {
		frame, seqAt = pcapgen.EtherUDP(a4, b4, payload), 14+20+8+2 // RTP sequence number
	} else {
		frame, seqAt = pcapgen.EtherTCP(a4, b4, 1, 1, capture.FlagACK|capture.FlagPSH, 1000, payload), 14+20+4
	}
	for i := range benchPackets {
		if proto == "udp" {
			binary.BigEndian.PutUint16(frame[seqAt:], uint16(i))
		} else {
			binary.BigEndian.PutUint32(frame[seqAt:], uint32(1+i*len(payload)))
		}
		if err := w.Write(t0+int64(i)*400_000, 0, frame, 0); err != nil {
			b.Fatal(err)
		}
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	// Flush the dirty pages now: writeback during the measurement would slow whichever
	// sub-benchmark runs first.
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path, fi.Size()
}

// BenchmarkRead measures Open+Next over a whole file from disk (page cache warm after the
// first run) against copying the same file to io.Discard, the `cat FILE > /dev/null` of the
// DESIGN's targets.
func BenchmarkRead(b *testing.B) {
	for _, proto := range []string{"udp", "tcp"} {
		path, size := benchFile(b, proto)
		b.Run(proto+"/capture", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			var payload int
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				r, err := capture.Open(f)
				if err != nil {
					b.Fatal(err)
				}
				var p capture.Packet
				n := 0
				for r.Next(&p) == nil {
					n++
					payload += p.PayloadLen
				}
				f.Close()
				if n != benchPackets {
					b.Fatalf("%d packets", n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchPackets, "ns/packet")
		})
		// The bare pcapgo read loop over the same buffer size, the DESIGN's reference point:
		// records only, no decoding.
		b.Run(proto+"/pcapgo-1MiB", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				r, err := pcapgo.NewReader(bufio.NewReaderSize(f, 1<<20))
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					if _, _, err := r.ZeroCopyReadPacketData(); err != nil {
						break
					}
					n++
				}
				f.Close()
				if n != benchPackets {
					b.Fatalf("%d packets", n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchPackets, "ns/packet")
		})
		b.Run(proto+"/io.Copy", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, f); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchPackets, "ns/packet")
		})
		b.Run(proto+"/read-1MiB", func(b *testing.B) {
			b.SetBytes(size)
			buf := make([]byte, 1<<20)
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := f.Read(buf); err != nil {
						break
					}
				}
				f.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchPackets, "ns/packet")
		})
	}
}
