package callgen

import (
	"bufio"
	"io"
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/pcapgen"
)

// WriteUDPBench writes a large call for the benchmarks: video (1100-byte payloads every
// 2.5 ms, ~3.5 Mbps) and audio (160 bytes every 20 ms) each way over UDP, interleaved in
// time, losing about 0.1%. It streams the frames out, so memory stays flat at any size.
func WriteUDPBench(out io.Writer, packets int) error {
	bw := bufio.NewWriterSize(out, 1<<20)
	w := pcapgen.NewPcap(bw, capture.LinkEthernet, false, false, 0)
	a := netip.MustParseAddrPort("10.0.0.1:40000")
	b := netip.MustParseAddrPort("198.51.100.9:50000")
	streams := []Stream{
		{Src: a, Dst: b, SSRC: 0x11111111, PT: 96, ClockRate: 90000, Interval: 2500 * time.Microsecond, PayloadSize: 1100},
		{Src: b, Dst: a, SSRC: 0x22222222, PT: 96, ClockRate: 90000, Interval: 2500 * time.Microsecond, PayloadSize: 1100},
		{Src: a, Dst: b, SSRC: 0x33333333, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 160},
		{Src: b, Dst: a, SSRC: 0x44444444, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 160},
	}
	next := make([]int64, len(streams)) // next send time of each stream, from the capture start
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
		t := next[k]
		next[k] += int64(s.Interval)
		if i%997 == 500 {
			continue
		}
		if err := w.Write(Epoch+t, 0, pcapgen.EtherUDP(s.Src, s.Dst, s.RTP(i)), 0); err != nil {
			return err
		}
		n++
	}
	return bw.Flush()
}
