package tcpframe

import (
	"bytes"
	"io"
	"net/netip"
	"os"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/transport"
)

// benchCache keeps the decoded packets of the benchmark captures: the testing package may
// call a benchmark function more than once.
var benchCache = map[string][]capture.Packet{}

// benchPackets decodes a generated capture into packets that own their bytes, so that a
// benchmark measures tcpframe alone: no reading, no decoding, no demux.
func benchPackets(b *testing.B, name string, write func(io.Writer, int) error, n int) []capture.Packet {
	b.Helper()
	if pkts, ok := benchCache[name]; ok {
		return pkts
	}
	var buf bytes.Buffer
	if err := write(&buf, n); err != nil {
		b.Fatal(err)
	}
	rd, err := capture.Open(&buf)
	if err != nil {
		b.Fatal(err)
	}
	var out []capture.Packet
	for {
		var p capture.Packet
		if err := rd.Next(&p); err != nil {
			break
		}
		if p.Kind != capture.KindTCP {
			continue
		}
		p.Data = nil
		p.Payload = bytes.Clone(p.Payload)
		out = append(out, p)
	}
	benchCache[name] = out
	return out
}

// BenchmarkCaptureTCP feeds the TCP segments of a generated TURN-over-TCP call to Conns as
// the analysis does (payloads borrowed, detached every 256 packets), with an emit that only
// counts: the cost of reassembly, unframing and delivery dating per packet.
func BenchmarkCaptureTCP(b *testing.B) {
	benchConns(b, benchPackets(b, "tcp", callgen.WriteTCPBench, 200_000))
}

// BenchmarkCaptureFile is BenchmarkCaptureTCP on the first 200k packets of the capture
// named by $CALLPCAP_BENCH_FILE (skipped when unset), for profiling tcpframe on large
// generated captures (internal/testgen/callgen/gencall).
func BenchmarkCaptureFile(b *testing.B) {
	path := os.Getenv("CALLPCAP_BENCH_FILE")
	if path == "" {
		b.Skip("CALLPCAP_BENCH_FILE not set")
	}
	benchConns(b, benchPackets(b, path, func(w io.Writer, n int) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.CopyN(w, f, 256<<20)
		if err == io.EOF {
			err = nil
		}
		return err
	}, 0))
}

// benchConns feeds pkts to one Conn per connection, found by an index made beforehand.
func benchConns(b *testing.B, pkts []capture.Packet) {
	idx := make([]int, len(pkts))
	var ends [][2]netip.AddrPort
	for i := range pkts {
		src, dst := pkts[i].SrcAddrPort(), pkts[i].DstAddrPort()
		idx[i] = -1
		for j, e := range ends {
			if e == [2]netip.AddrPort{src, dst} || e == [2]netip.AddrPort{dst, src} {
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			idx[i] = len(ends)
			ends = append(ends, [2]netip.AddrPort{src, dst})
		}
	}
	var msgs int
	var warm byte
	emit := func(m *transport.Message) { msgs++ }
	b.ReportAllocs()
	for b.Loop() {
		conns := make([]*Conn, len(ends))
		for i, e := range ends {
			conns[i] = NewConn(Config{BorrowPayload: true}, e[0], e[1])
		}
		var lent []*Conn
		for i := range pkts {
			if i%benchDetach == 0 {
				// In the analysis a batch's payloads were just read on the other core: bring
				// them into the cache, untimed, so that the benchmark does not measure the
				// first touch of cold memory, which the analysis does not pay.
				b.StopTimer()
				for j := i; j < min(i+benchDetach, len(pkts)); j++ {
					for k := 0; k < len(pkts[j].Payload); k += 64 {
						warm += pkts[j].Payload[k]
					}
				}
				b.StartTimer()
			}
			p := &pkts[i]
			c := conns[idx[i]]
			c.Segment(p, emit)
			if n := len(lent); n == 0 || lent[n-1] != c {
				lent = append(lent, c)
			}
			if i%benchDetach == benchDetach-1 {
				for _, c := range lent {
					c.Detach()
				}
				lent = lent[:0]
			}
		}
		for _, c := range conns {
			c.Close(emit)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pkts)), "ns/packet")
	if warm == 1 && msgs < 0 {
		b.Log(warm) // keeps the warming reads
	}
}

// benchDetach is how many packets the benchmarks feed between calls to Detach: the
// analysis's batch.
var benchDetach = 256
