// Command gencall writes a large synthetic call capture for the benchmarks: video and audio
// RTP streams over UDP, interleaved in time, with a little loss. It streams the frames out,
// so memory stays flat whatever the size.
//
//	go run ./internal/callgen/gencall -packets 1000000 -o /tmp/udp.pcap
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/callgen"
	"github.com/callpcap/callpcap/internal/pcapgen"
)

func main() {
	packets := flag.Int("packets", 1_000_000, "how many packets to write")
	out := flag.String("o", "call.pcap", "output file")
	flag.Parse()
	if err := write(*out, *packets); err != nil {
		fmt.Fprintln(os.Stderr, "gencall:", err)
		os.Exit(1)
	}
}

func write(name string, packets int) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := pcapgen.NewPcap(bw, capture.LinkEthernet, false, false, 0)
	a := netip.MustParseAddrPort("10.0.0.1:40000")
	b := netip.MustParseAddrPort("198.51.100.9:50000")
	// Four streams: video and audio each way. Video: 1100-byte payloads every 2.5 ms
	// (~3.5 Mbps); audio: 160 bytes every 20 ms.
	streams := []callgen.Stream{
		{Src: a, Dst: b, SSRC: 0x11111111, PT: 96, ClockRate: 90000, Interval: 2500 * time.Microsecond, PayloadSize: 1100},
		{Src: b, Dst: a, SSRC: 0x22222222, PT: 96, ClockRate: 90000, Interval: 2500 * time.Microsecond, PayloadSize: 1100},
		{Src: a, Dst: b, SSRC: 0x33333333, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 160},
		{Src: b, Dst: a, SSRC: 0x44444444, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 160},
	}
	next := make([]int64, len(streams)) // next send time of each stream
	idx := make([]int, len(streams))
	for n := 0; n < packets; {
		k := 0
		for i := range streams {
			if next[i] < next[k] {
				k = i
			}
		}
		s := &streams[k]
		i := idx[k]
		idx[k]++
		next[k] += int64(s.Interval)
		if i%997 == 500 { // a little loss: about 0.1%
			continue
		}
		frame := pcapgen.EtherUDP(s.Src, s.Dst, s.RTP(i))
		if err := w.Write(callgen.Epoch+next[k], 0, frame, 0); err != nil {
			return err
		}
		n++
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}
