package analysis

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
)

// benchCapture writes a 200,000-packet call with write once per benchmark run, synced so
// that writeback does not slow the first sub-benchmark.
func benchCapture(b *testing.B, write func(io.Writer, int) error) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "call.pcap")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := write(f, 200_000); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

func fileSize(b *testing.B, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}

// BenchmarkUDP compares, on the same file in one run: reading it (cat's work), the capture
// reader alone, and the whole analysis, for a call over UDP (callgen.WriteUDPBench).
func BenchmarkUDP(b *testing.B) { benchAnalyze(b, callgen.WriteUDPBench) }

// BenchmarkTCP is BenchmarkUDP for a call relayed through TURN over TCP
// (callgen.WriteTCPBench).
func BenchmarkTCP(b *testing.B) { benchAnalyze(b, callgen.WriteTCPBench) }

// BenchmarkUDPCalls is BenchmarkUDP for a media server's capture: 40 concurrent calls over
// UDP, 80 video streams (callgen.WriteUDPCallsBench).
func BenchmarkUDPCalls(b *testing.B) {
	benchAnalyze(b, func(w io.Writer, n int) error { return callgen.WriteUDPCallsBench(w, callgen.BenchUDPCalls, n) })
}

// BenchmarkTCPCalls is BenchmarkUDP for a gateway's capture of 8 concurrent calls relayed
// through TURN over TCP at 2.5 Mbps each way (callgen.WriteTCPCallsBench).
func BenchmarkTCPCalls(b *testing.B) {
	benchAnalyze(b, func(w io.Writer, n int) error { return callgen.WriteTCPCallsBench(w, callgen.BenchTCPCalls, n) })
}

func benchAnalyze(b *testing.B, write func(io.Writer, int) error) {
	path := benchCapture(b, write)
	size := fileSize(b, path)
	b.Run("read", func(b *testing.B) {
		b.SetBytes(size)
		buf := make([]byte, 1<<20)
		for b.Loop() {
			f, _ := os.Open(path)
			io.CopyBuffer(struct{ io.Writer }{io.Discard}, struct{ io.Reader }{f}, buf)
			f.Close()
		}
	})
	// capture reads and decodes on one goroutine; pipe hands the packets across the pipeline
	// to a goroutine that only looks at each one: what the hand-over between the reading
	// goroutine and the analysing one costs on the machine at hand.
	for _, c := range []struct {
		name string
		read func(*capture.Reader) int
	}{{"capture", sumKinds}, {"pipe", sumKindsThroughPipe}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				f, _ := os.Open(path)
				rd, err := capture.Open(f)
				if err != nil {
					b.Fatal(err)
				}
				if c.read(rd) == 0 {
					b.Fatal("no packet decoded")
				}
				f.Close()
			}
		})
	}
	b.Run("analyze", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			f, _ := os.Open(path)
			if _, err := Analyze(context.Background(), "call.pcap", f, Options{}); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}

// sumKinds reads rd to the end and sums its packets' kinds.
func sumKinds(rd *capture.Reader) (kinds int) {
	var p capture.Packet
	for rd.Next(&p) == nil {
		kinds += int(p.Kind)
	}
	return kinds
}

// sumKindsThroughPipe is sumKinds with the packets handed across the pipeline.
func sumKindsThroughPipe(rd *capture.Reader) (kinds int) {
	ps := readBatches(context.Background(), rd)
	for bt, ok := ps.next(); ok; bt, ok = ps.next() {
		for i := range bt.pkts {
			kinds += int(bt.pkts[i].Kind)
		}
		ps.release(bt)
	}
	return kinds
}

// BenchmarkFile analyzes the capture named by $CALLPCAP_BENCH_FILE (skipped when unset),
// for profiling on large generated captures (gencall -calls 40, or -tcp -calls 8, for the
// many-call ones):
//
//	go run ./internal/testgen/callgen/gencall -packets 1000000 -o /tmp/udp.pcap
//	CALLPCAP_BENCH_FILE=/tmp/udp.pcap go test -run '^$' -bench BenchmarkFile -cpuprofile cpu.prof ./analysis
func BenchmarkFile(b *testing.B) {
	path := os.Getenv("CALLPCAP_BENCH_FILE")
	if path == "" {
		b.Skip("CALLPCAP_BENCH_FILE not set")
	}
	b.SetBytes(fileSize(b, path))
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze(context.Background(), filepath.Base(path), f, Options{}); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
