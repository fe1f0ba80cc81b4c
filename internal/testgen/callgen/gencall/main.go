// Command gencall writes a large synthetic call capture for the benchmarks (see
// callgen.WriteUDPBench and WriteTCPBench); memory stays flat whatever the size.
//
//	go run ./internal/testgen/callgen/gencall -packets 1000000 -o /tmp/udp.pcap
//	go run ./internal/testgen/callgen/gencall -tcp -packets 1000000 -o /tmp/tcp.pcap
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
)

func main() {
	packets := flag.Int("packets", 1_000_000, "how many packets to write")
	out := flag.String("o", "call.pcap", "output file")
	tcp := flag.Bool("tcp", false, "TURN over TCP instead of UDP")
	flag.Parse()
	f, err := os.Create(*out)
	if err == nil {
		if *tcp {
			err = callgen.WriteTCPBench(f, *packets)
		} else {
			err = callgen.WriteUDPBench(f, *packets)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencall:", err)
		os.Exit(1)
	}
}
