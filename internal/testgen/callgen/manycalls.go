package callgen

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// MaxBenchCalls is the most calls WriteUDPCallsBench and WriteTCPCallsBench lay out: each
// call's addresses are numbered inside a /24.
const MaxBenchCalls = 250

// The server captures' call patterns (DESIGN, Performance).
const (
	BenchUDPCalls = 40 // WriteUDPCallsBench: concurrent calls of a media server
	BenchTCPCalls = 8  // WriteTCPCallsBench: concurrent TURN/TCP calls at 2.5 Mbps each way
)

// Many-call bench media: video at ~2 Mbps per UDP stream, ~2.5 Mbps per TCP stream. The
// TCP MSS is the simulator's default, as in WriteTCPBench (a TURN client behind a tunnel):
// with Ethernet's 1460 the frames of 1M packets would weigh 0.79 GB instead of ~0.67, away
// from the 0.7 GB TCP captures DESIGN's measurements were made on.
const (
	udpCallsVideoInterval = 4 * time.Millisecond
	udpCallsVideoPayload  = 1000
	tcpCallsVideoInterval = 3500 * time.Microsecond
	tcpCallsVideoPayload  = 1100
	tcpCallsAudioPayload  = 150 // not a multiple of 4: ChannelData pads it over TCP
	tcpCallsMSS           = 1200
	tcpCallsCoalesce      = 5 * time.Millisecond
)

// UDPCallAddrs are the two ends of call k (0-based) of WriteUDPCallsBench:
// 10.0.1.(k+1):40000+2k and 198.51.100.(k+1):50000+2k.
func UDPCallAddrs(k int) (a, b netip.AddrPort) {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 1, byte(k + 1)}), uint16(40000+2*k)),
		netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, 100, byte(k + 1)}), uint16(50000+2*k))
}

// TCPCallAddrs are the addresses of call k (0-based) of WriteTCPCallsBench: its TURN
// client 10.0.2.(k+1):51234+k, the one TURN server 203.0.113.7:443, its relayed address
// 203.0.113.7:50012+2k and its peer 198.51.100.(k+1):61000+k.
func TCPCallAddrs(k int) (client, server, relayed, peer netip.AddrPort) {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 2, byte(k + 1)}), uint16(51234+k)),
		benchTCPServer,
		netip.AddrPortFrom(benchTCPServer.Addr(), uint16(50012+2*k)),
		netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, 100, byte(k + 1)}), uint16(61000+k))
}

// benchSSRC is the SSRC of stream i of call k: distinct for distinct (k, i) with i < 4, never
// 0, and scattered as random SSRCs are.
func benchSSRC(k, i int) uint32 { return uint32(4*k+i+1) * 0x9e3779b1 }

// benchISN is the initial sequence number of direction dir of call k's connection,
// scattered as random ISNs are; call 0's server starts 1 MB short of the 32-bit wrap, so
// that any capture longer than a few seconds crosses it on one connection.
func benchISN(k, dir int) uint32 {
	if k == 0 && dir == 1 {
		return 1<<32 - 1_000_000
	}
	return uint32(2*k+dir+1) * 0x85ebca6b
}

// benchStream is stream i of call k: video (PT 96, 90 kHz) when its interval is under
// 10 ms, else audio (PT 111, 48 kHz), with its own SSRC and first sequence number and
// timestamp scattered as random ones are (some streams' sequence numbers wrap early).
func benchStream(k, i int, interval time.Duration, payload int, start time.Duration) Stream {
	ssrc := benchSSRC(k, i)
	s := Stream{SSRC: ssrc, PT: 96, ClockRate: 90000, Interval: interval, PayloadSize: payload,
		Start: start, StartSeq: uint16(ssrc >> 16), StartTS: ssrc * 3}
	if interval >= 10*time.Millisecond {
		s.PT, s.ClockRate = 111, 48000
	}
	return s
}

// callStart is when call k of n starts: the calls are spread over the first second.
func callStart(k, n int) time.Duration { return time.Duration(k) * time.Second / time.Duration(n) }

func checkCalls(calls int) error {
	if calls < 1 || calls > MaxBenchCalls {
		return fmt.Errorf("callgen: %d calls, want 1 to %d", calls, MaxBenchCalls)
	}
	return nil
}

// WriteUDPCallsBench writes what a media server's capture holds for the benchmarks: calls
// concurrent calls over UDP (BenchUDPCalls in the benchmarks), each one video stream each
// way (1000-byte payloads every 4 ms, ~2 Mbps) between its own addresses (UDPCallAddrs)
// with its own SSRCs, call k starting at k/calls s (the second direction 2 ms after the
// first), every stream losing the packets i%997 == 500 (~0.1%, as WriteUDPBench). So
// 2*calls streams interleaved in time; 1M packets are ~1.07 GB. It streams the frames out,
// so memory stays flat at any size.
func WriteUDPCallsBench(out io.Writer, calls, packets int) error {
	if err := checkCalls(calls); err != nil {
		return err
	}
	streams := make([]Stream, 0, 2*calls)
	for k := range calls {
		a, b := UDPCallAddrs(k)
		s := benchStream(k, 0, udpCallsVideoInterval, udpCallsVideoPayload, callStart(k, calls))
		s.Src, s.Dst = a, b
		r := benchStream(k, 1, udpCallsVideoInterval, udpCallsVideoPayload, s.Start+udpCallsVideoInterval/2)
		r.Src, r.Dst = b, a
		streams = append(streams, s, r)
	}
	return writeUDPBench(out, streams, packets)
}

// WriteTCPCallsBench writes what a gateway in front of TURN clients captures for the
// benchmarks, with UDP blocked: calls concurrent calls (BenchTCPCalls in the benchmarks),
// each relayed over its own TCP connection from its own client to the one TURN server on
// 443 (TCPCallAddrs), captured next to the clients (see TCPCall). Each connection carries:
//
//   - its TURN Allocate and ChannelBind (channel 0x4000 on every connection), then video
//     (1100-byte payloads every 3.5 ms, ~2.5 Mbps) and audio (150 bytes every 20 ms) each
//     way in ChannelData, with its own SSRCs;
//   - coalescing senders (MSS 1200, a partial segment flushed after 5 ms: TCPCall.Coalesce),
//     so most data segments are 1200 bytes with messages straddling them;
//   - a pure ACK for every data segment, with SACK blocks while a hole is open
//     (TCPCall.SACK);
//   - one segment in 1000 lost each way, index%1000 == 500 from the client (after the
//     capture: seen twice) and index%1000 == 700 from the server (before it: seen once,
//     late), each resent 1.5 RTT after it was sent, as SACK recovery does;
//   - RTT 40 + 5*(k%8) ms for call k, its SYN at k/calls s, the setup RTT + 10 ms later,
//     media from 4 RTT after the SYN; call 0's server sequence numbers wrap (benchISN).
//
// packets counts every frame, ACKs included; 1M packets are ~0.7 GB. The connections are
// simulated side by side and merged in time order (MergeFrames), so memory stays flat at
// any size and the bytes are the same on every run.
func WriteTCPCallsBench(out io.Writer, calls, packets int) error {
	if err := checkCalls(calls); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	w := pcapgen.NewPcap(bw, capture.LinkEthernet, false, false, 0)
	seqs := make([]iter.Seq2[int64, []byte], calls)
	for k := range calls {
		seqs[k] = benchTCPCallFrames(k, calls)
	}
	n := 0
	for t, frame := range MergeFrames(seqs...) {
		if n == packets {
			break
		}
		if err := w.Write(t, 0, frame, 0); err != nil {
			return err
		}
		n++
	}
	return bw.Flush()
}

// benchTCPCallFrames is the endless connection of call k of n of WriteTCPCallsBench.
func benchTCPCallFrames(k, n int) iter.Seq2[int64, []byte] {
	const channel = 0x4000
	client, server, relayed, peer := TCPCallAddrs(k)
	rtt := 40*time.Millisecond + time.Duration(k%8)*5*time.Millisecond
	start := callStart(k, n)
	media := start + 4*rtt
	streams := []Stream{
		benchStream(k, 0, tcpCallsVideoInterval, tcpCallsVideoPayload, media),
		benchStream(k, 1, tcpCallsVideoInterval, tcpCallsVideoPayload, media+time.Millisecond),
		benchStream(k, 2, 20*time.Millisecond, tcpCallsAudioPayload, media),
		benchStream(k, 3, 20*time.Millisecond, tcpCallsAudioPayload, media+time.Millisecond),
	}
	for i := range streams {
		streams[i].Src = [2]netip.AddrPort{client, peer}[i%2]
	}
	setup := turnTCPSetup(k, start+rtt+10*time.Millisecond, rtt, relayed, peer, channel)
	next := turnTCPWrites(setup, streams, peer, channel, 0)
	call := TCPCall{Client: client, Server: server, Start: start, RTT: rtt, RTO: rtt * 3 / 2,
		MSS: tcpCallsMSS, ISN: [2]uint32{benchISN(k, 0), benchISN(k, 1)},
		Coalesce: tcpCallsCoalesce, SACK: true,
		LoseAfter:  func(seg int) bool { return seg%1000 == 500 },
		LoseBefore: func(seg int) bool { return seg%1000 == 700 },
	}
	return call.Frames(next)
}
