// Command gencall writes a large synthetic call capture for the benchmarks; memory stays
// flat whatever the size, and the bytes are the same on every run. One call (the default)
// is callgen.WriteUDPBench, or with -tcp WriteTCPBench; several calls are a server's or a
// gateway's capture: callgen.WriteUDPCallsBench, or with -tcp WriteTCPCallsBench.
//
//	go run ./internal/testgen/callgen/gencall -packets 1000000 -o udp.pcap
//	go run ./internal/testgen/callgen/gencall -tcp -packets 1000000 -o tcp.pcap
//	go run ./internal/testgen/callgen/gencall -calls 40 -packets 1000000 -o udp40.pcap
//	go run ./internal/testgen/callgen/gencall -tcp -calls 8 -packets 1000000 -o tcp8.pcap
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
)

func main() {
	packets := flag.Int("packets", 1_000_000, "how many packets to write")
	out := flag.String("o", "call.pcap", "output file")
	tcp := flag.Bool("tcp", false, "TURN over TCP instead of UDP")
	calls := flag.Int("calls", 1, fmt.Sprintf("concurrent calls (1 to %d); the benchmarks use %d over UDP, %d over TCP",
		callgen.MaxBenchCalls, callgen.BenchUDPCalls, callgen.BenchTCPCalls))
	flag.Parse()
	if flag.NArg() > 0 || *calls < 1 || *calls > callgen.MaxBenchCalls {
		flag.Usage()
		os.Exit(2)
	}
	var write func(io.Writer, int) error
	switch {
	case *calls == 1 && *tcp:
		write = callgen.WriteTCPBench
	case *calls == 1:
		write = callgen.WriteUDPBench
	case *tcp:
		write = func(w io.Writer, n int) error { return callgen.WriteTCPCallsBench(w, *calls, n) }
	default:
		write = func(w io.Writer, n int) error { return callgen.WriteUDPCallsBench(w, *calls, n) }
	}
	f, err := os.Create(*out)
	if err == nil {
		err = write(f, *packets)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencall:", err)
		os.Exit(1)
	}
}
