package callgen

import (
	"bufio"
	"errors"
	"io"
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// WriteUDPBench writes a large call for the benchmarks: video (1100-byte payloads every
// 2.5 ms, ~3.5 Mbps) and audio (160 bytes every 20 ms) each way over UDP, interleaved in
// time, losing about 0.1%. It streams the frames out, so memory stays flat at any size.
func WriteUDPBench(out io.Writer, packets int) error {
	a := netip.MustParseAddrPort("10.0.0.1:40000")
	b := netip.MustParseAddrPort("198.51.100.9:50000")
	streams := []Stream{
		{Src: a, Dst: b, SSRC: 0x11111111, PT: 96, ClockRate: 90000, Interval: 2500 * time.Microsecond, PayloadSize: 1100},
		{Src: b, Dst: a, SSRC: 0x22222222, PT: 96, ClockRate: 90000, Interval: 2500 * time.Microsecond, PayloadSize: 1100},
		{Src: a, Dst: b, SSRC: 0x33333333, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 160},
		{Src: b, Dst: a, SSRC: 0x44444444, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 160},
	}
	return writeUDPBench(out, streams, packets)
}

// writeUDPBench writes the first packets of streams interleaved in time, each stream losing
// the packets i%997 == 500 (~0.1%), streamed out.
func writeUDPBench(out io.Writer, streams []Stream, packets int) error {
	bw := bufio.NewWriterSize(out, 1<<20)
	w := pcapgen.NewPcap(bw, capture.LinkEthernet, false, false, 0)
	in := newInterleaver(streams)
	for n := 0; n < packets; {
		s, i, t := in.next()
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

// TCP bench addresses: a TURN client and its server on 443.
var (
	benchTCPClient = netip.MustParseAddrPort("10.0.0.1:51234")
	benchTCPServer = netip.MustParseAddrPort("203.0.113.7:443")
	benchTCPPeer   = netip.MustParseAddrPort("198.51.100.9:61000")
)

// errEnough stops a simulation once the bench has its packets.
var errEnough = errors.New("callgen: enough packets")

// WriteTCPBench writes a large call relayed over TURN over TCP for the benchmarks, captured
// at the client: video (1180-byte payloads every 2.5 ms, ~3.8 Mbps, one ~1200-byte segment
// each) and audio (160 bytes every 20 ms) each way in ChannelData, a pure ACK for every data
// segment, 60 ms of RTT, and one segment in 1000 lost each way (after the capture from the
// client, before it from the server), resent 305 ms later. packets counts every frame,
// ACKs included. It streams the frames out, so memory stays flat at any size.
func WriteTCPBench(out io.Writer, packets int) error {
	bw := bufio.NewWriterSize(out, 1<<20)
	w := pcapgen.NewPcap(bw, capture.LinkEthernet, false, false, 0)
	const channel = 0x4000
	streams := []Stream{
		{Src: benchTCPClient, Dst: benchTCPPeer, SSRC: 0x11111111, PT: 96, ClockRate: 90000, Interval: 2500 * time.Microsecond, PayloadSize: 1180},
		{Src: benchTCPPeer, Dst: benchTCPClient, SSRC: 0x22222222, PT: 96, ClockRate: 90000, Interval: 2500 * time.Microsecond, PayloadSize: 1180},
		{Src: benchTCPClient, Dst: benchTCPPeer, SSRC: 0x33333333, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 160},
		{Src: benchTCPPeer, Dst: benchTCPClient, SSRC: 0x44444444, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 160},
	}
	start := 200 * time.Millisecond
	setup := TURNTCPSetup(70*time.Millisecond, 60*time.Millisecond,
		netip.MustParseAddrPort("203.0.113.7:50012"), benchTCPPeer, channel)
	source := turnTCPWrites(setup, streams, benchTCPPeer, channel, start)
	call := TCPCall{Client: benchTCPClient, Server: benchTCPServer, ISN: [2]uint32{1000, 900000},
		LoseAfter:  func(seg int) bool { return seg%1000 == 500 },
		LoseBefore: func(seg int) bool { return seg%1000 == 700 },
	}
	n := 0
	err := call.Run(source, func(t int64, frame []byte) error {
		if n == packets {
			return errEnough
		}
		n++
		return w.Write(t, 0, frame, 0)
	})
	if err != nil && err != errEnough {
		return err
	}
	return bw.Flush()
}

// turnTCPWrites returns the writes of a TURN-over-TCP call: the setup first, then the
// streams' packets in send order as ChannelData on channel, each shifted by offset. Packets
// from peer go server to client (direction 1).
func turnTCPWrites(setup []TCPWrite, streams []Stream, peer netip.AddrPort, channel uint16, offset time.Duration) func() (TCPWrite, bool) {
	in := newInterleaver(streams)
	return func() (TCPWrite, bool) {
		if len(setup) > 0 {
			wr := setup[0]
			setup = setup[1:]
			return wr, true
		}
		s, i, t := in.next()
		dir := 0
		if s.Src == peer {
			dir = 1
		}
		return TCPWrite{T: offset + time.Duration(t), Dir: dir, Data: ChannelData(channel, s.RTP(i))}, true
	}
}

// interleaver hands out the packets of several streams, without end, in the order they are
// sent: stream s's packet i at s.Start + i*s.Interval.
type interleaver struct {
	streams []Stream
	at      []int64 // send time of each stream's next packet, from the capture's start
	idx     []int   // index of each stream's next packet
}

func newInterleaver(streams []Stream) *interleaver {
	v := &interleaver{streams: streams, at: make([]int64, len(streams)), idx: make([]int, len(streams))}
	for j := range streams {
		v.at[j] = int64(streams[j].Start)
	}
	return v
}

// next returns the stream whose next packet is sent first (the earliest of equal times),
// that packet's index and its send time.
func (v *interleaver) next() (s *Stream, i int, t int64) {
	k := 0
	for j := range v.streams {
		if v.at[j] < v.at[k] {
			k = j
		}
	}
	s, i, t = &v.streams[k], v.idx[k], v.at[k]
	v.idx[k]++
	v.at[k] += int64(s.Interval)
	return s, i, t
}
