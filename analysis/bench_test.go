package analysis

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/callgen"
)

// benchCapture writes a 200,000-packet UDP call once per benchmark run.
func benchCapture(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "udp.pcap")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := callgen.WriteUDPBench(f, 200_000); err != nil {
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
// reader alone, and the whole analysis.
func BenchmarkUDP(b *testing.B) {
	path := benchCapture(b)
	size := fileSize(b, path)
	b.Run("read", func(b *testing.B) {
		b.SetBytes(size)
		buf := make([]byte, 1<<20)
		for b.Loop() {
			f, _ := os.Open(path)
			io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
			f.Close()
		}
	})
	b.Run("capture", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			f, _ := os.Open(path)
			rd, err := capture.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			var p capture.Packet
			for rd.Next(&p) == nil {
			}
			f.Close()
		}
	})
	b.Run("analyze", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			f, _ := os.Open(path)
			if _, err := Analyze(context.Background(), "udp.pcap", f, Options{}); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}

// BenchmarkFile analyzes the capture named by $CALLPCAP_BENCH_FILE (skipped when unset),
// for profiling on large generated captures:
//
//	go run ./internal/callgen/gencall -packets 1000000 -o /tmp/udp.pcap
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
