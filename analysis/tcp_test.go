package analysis

import (
	"bytes"
	"math"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
)

var (
	tcpClient  = netip.MustParseAddrPort("10.0.0.1:51234")
	tcpServer  = netip.MustParseAddrPort("203.0.113.7:443")
	tcpRelayed = netip.MustParseAddrPort("203.0.113.7:50012")
)

// The TCP calls below send, each 20 ms from mediaStart, one PCMU packet (160 bytes) and one
// H.263 packet (1100 bytes) each way: with ChannelData (4 bytes) that is 176 + 1116 = 1292
// bytes per write, two segments of at most 1200 bytes: the first holds the audio and the
// head of the video packet, the second (92 bytes) its tail. The capture is next to the
// client; the RTT is 60 ms, the RTO 305 ms.
const (
	tcpTicks    = 150
	mediaStart  = 500 * time.Millisecond
	serverShift = 5 * time.Millisecond // the server writes 5 ms after the client
	channel     = 0x4000
)

func tcpStreams(lose func(i int) bool) []callgen.Stream {
	mk := func(src, dst netip.AddrPort, ssrc uint32, pt uint8, rate, size int, start time.Duration) callgen.Stream {
		return callgen.Stream{Src: src, Dst: dst, SSRC: ssrc, PT: pt, ClockRate: rate, Interval: 20 * time.Millisecond,
			PayloadSize: size, Count: tcpTicks, StartSeq: 1000, StartTS: 5000, Start: start, Lose: lose}
	}
	return []callgen.Stream{
		mk(tcpClient, bob, 0x0a0a0a0a, 0, 8000, 160, mediaStart),
		mk(tcpClient, bob, 0x1b1b1b1b, 34, 90000, 1100, mediaStart),
		mk(bob, tcpClient, 0x2c2c2c2c, 0, 8000, 160, mediaStart+serverShift),
		mk(bob, tcpClient, 0x3d3d3d3d, 34, 90000, 1100, mediaStart+serverShift),
	}
}

func fromServer(s *callgen.Stream) int {
	if s.Src == bob {
		return 1
	}
	return 0
}

// turnTCPWrites is the allocation and channel binding at 10 ms, then the media.
func turnTCPWrites(lose func(i int) bool) []callgen.TCPWrite { return turnTCPWritesOn(channel, lose) }

// turnTCPWritesOn is turnTCPWrites with the channel number ch.
func turnTCPWritesOn(ch uint16, lose func(i int) bool) []callgen.TCPWrite {
	setup := callgen.TURNTCPSetup(10*time.Millisecond, 60*time.Millisecond, tcpRelayed, bob, ch)
	media := callgen.MediaWrites(func(b []byte) []byte { return callgen.ChannelData(ch, b) }, fromServer,
		tcpStreams(lose)...)
	return callgen.MergeWrites(setup, media)
}

// seg is the index among a direction's first transmissions of tick k's first segment: two
// STUN messages come first.
func seg(k int) int { return 2 + 2*k }

// frameSums splits a connection's frames: per sender, every frame and the pure ACKs.
type frameSums struct{ all, acks [2]int64 }

func sumFrames(pkts []callgen.Packet, client netip.AddrPort) frameSums {
	var s frameSums
	c4 := client.Addr().As4()
	for _, p := range pkts {
		d := 1
		if [4]byte(p.Frame[26:30]) == c4 { // IPv4 source
			d = 0
		}
		s.all[d] += int64(len(p.Frame))
		flags := p.Frame[14+20+13]
		if len(p.Frame) == 54 && flags&0x02 == 0 { // no options, no payload, no SYN
			s.acks[d] += 54
		}
	}
	return s
}

// impairedCall loses, client to server, tick 50's first segment after the capture (seen
// twice) and sends tick 100's second segment again although it arrived (spurious); server to
// client, it loses tick 50's first segment before the capture (seen once, as the resend).
func impairedCall() callgen.TCPCall {
	return callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000},
		LoseAfter:  func(i int) bool { return i == seg(50) },
		Spurious:   func(i int) bool { return i == seg(100)+1 },
		LoseBefore: func(i int) bool { return i == seg(50) },
	}
}

// tcpFigures are the figures of one TCP direction the tests assert.
type tcpFigures struct {
	Vantage                                                           string
	DataSegments, PureAcks, RetransmittedSegments, RetransmittedBytes int64
	Spurious, CaptureGap, Messages, FramingBytes, ResyncSkipped       int64
	HOLDelayed                                                        int64
	HOLMaxMS                                                          float64
}

type dirFigures struct {
	From, To, Transport              string
	MediaPackets, MediaPayload, Wire int64
	Overhead                         report.Overhead
	Lost, DroppedBeforeTCP           int64
	Late, HOLBlocked                 int64
	DelayMaxMS, TCPRetransmittedPct  float64
	GoodputKbps                      float64
}

func tcpFiguresOf(d report.TCPDir) tcpFigures {
	f := tcpFigures{Vantage: string(d.Vantage), DataSegments: d.DataSegments, PureAcks: d.PureAcks,
		RetransmittedSegments: d.RetransmittedSegments, RetransmittedBytes: d.RetransmittedBytes,
		Spurious: -1, CaptureGap: d.CaptureGapBytes, Messages: d.Messages,
		FramingBytes: d.FramingBytes, ResyncSkipped: d.ResyncSkippedBytes, HOLDelayed: d.HOLDelayedMessages}
	if d.SpuriousRetransmittedBytes != nil {
		f.Spurious = *d.SpuriousRetransmittedBytes // -1: null
	}
	if d.HOLDelayMS != nil {
		f.HOLMaxMS = d.HOLDelayMS.Max
	}
	return f
}

func dirFiguresOf(d report.Direction) dirFigures {
	f := dirFigures{From: d.From, To: d.To, Transport: string(d.Transport), MediaPackets: d.MediaPackets,
		MediaPayload: d.MediaPayloadBytes, Wire: d.WireBytes, Overhead: d.OverheadBytes,
		Lost: d.Loss.Lost, DroppedBeforeTCP: deref(d.Loss.DroppedBeforeTCP), GoodputKbps: derefF(d.GoodputKbps),
		TCPRetransmittedPct: derefF(d.TCPRetransmittedPct)}
	if d.Late != nil {
		f.Late, f.HOLBlocked = d.Late.Packets, d.Late.HOLBlocked
	}
	if d.DelayMS != nil {
		f.DelayMaxMS = d.DelayMS.Max
	}
	return f
}

func TestTURNOverTCP(t *testing.T) {
	writes := turnTCPWrites(nil)
	pkts := impairedCall().Packets(writes)
	frames := sumFrames(pkts, tcpClient)
	c := analyze(t, pcapOf(t, pkts), Options{})

	if len(c.Legs) != 1 || len(c.Flows) != 1 || len(c.Directions) != 2 || len(c.Streams) != 4 {
		t.Fatalf("legs %d flows %d directions %d streams %d; want 1 1 2 4", len(c.Legs), len(c.Flows),
			len(c.Directions), len(c.Streams))
	}
	rel := tcpRelayed.String()
	wantLeg := report.Leg{ID: "l1", Transport: "turn-tcp", Client: tcpClient.String(), Server: tcpServer.String(),
		Relayed: &rel, Peers: []string{bob.String()}, Flows: []string{"f1"}}
	if d := cmp.Diff(wantLeg, c.Legs[0]); d != "" {
		t.Errorf("leg (-want +got):\n%s", d)
	}
	fl := c.Flows[0]
	if fl.TCP == nil || fl.Framing == nil || *fl.Framing != "turn" || fl.WireBytes != frames.all[0]+frames.all[1] {
		t.Fatalf("flow framing %v tcp %v wire %d, want turn and %d", fl.Framing, fl.TCP, fl.WireBytes, frames.all[0]+frames.all[1])
	}
	stun0, stun1 := int64(0), int64(0) // STUN payload bytes each way
	for _, w := range writes[:4] {
		if w.Dir == 0 {
			stun0 += int64(len(w.Data))
		} else {
			stun1 += int64(len(w.Data))
		}
	}
	// Client to server: 2 STUN segments, 300 media segments, the copy of tick 50's first
	// segment (1,200 bytes, lost after the capture) and the spurious copy of tick 100's
	// second (92 bytes). Each arrival but the lost one is acknowledged: 303 pure ACKs back.
	// The 15 ticks sent within the RTO after tick 50 (their 30 messages) wait for its
	// resend: the first one longest, 305 − 20 = 285 ms.
	// Server to client: tick 50's first segment is seen once, filling the hole 305 ms late:
	// a retransmission that cost nothing here; the same 30 messages wait behind it.
	want := [2]tcpFigures{
		{Vantage: "sender", DataSegments: 304, PureAcks: 303, RetransmittedSegments: 2, RetransmittedBytes: 1292,
			Spurious: 92, Messages: 302, FramingBytes: 300 * 4, HOLDelayed: 30, HOLMaxMS: 285},
		{Vantage: "receiver", DataSegments: 302, PureAcks: 303, RetransmittedSegments: 1, RetransmittedBytes: 1200,
			Messages: 302, FramingBytes: 300 * 4, HOLDelayed: 30, HOLMaxMS: 285},
	}
	got := [2]tcpFigures{tcpFiguresOf(fl.TCP.AToB), tcpFiguresOf(fl.TCP.BToA)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tcp (-want +got):\n%s", d)
	}

	// Per direction: 150 × (160 + 1100) payload bytes; 300 segments of 54 header bytes; 4
	// bytes of ChannelData and 12 of RTP header per packet; pure ACKs of the other side, 54
	// bytes each (the server's 303; the client's 302 and its handshake ACK); the SYN or
	// SYN/ACK (58 bytes with MSS) under other. Late: tick 50's two packets (305 ms) and
	// ticks 51-57's (285 … 165 ms); tick 58's wait is 145 ms, within the 150 ms budget.
	// Every late packet was held by the retransmission: tick 50's two, whose bytes it
	// carried (the audio whole, the video's head), by their own repair; the 14 of ticks
	// 51-57 behind it (head-of-line blocking). Goodput: 189,000 bytes over the 2.98 s from
	// the first tick to the last.
	pay := int64(tcpTicks * (160 + 1100))
	wantD := []dirFigures{
		{From: tcpClient.String(), To: bob.String(), Transport: "turn-tcp", MediaPackets: 300, MediaPayload: pay,
			Wire: frames.all[0] - frames.acks[0] + frames.acks[1],
			Overhead: report.Overhead{LinkIPTransport: 300 * 54, Framing: 300 * 4, RTPHeaders: 300 * 12,
				TCPRetransmissions: (1200 + 54) + (92 + 54), ACKs: 303 * 54, STUN: 2*54 + stun0, Other: 58},
			Late: 16, HOLBlocked: 14, DelayMaxMS: 305, GoodputKbps: 507.383,
			TCPRetransmittedPct: 0.662}, // 100 × 1,292 / (stun0 + 150 × 1,292 + 1,292)
		{From: bob.String(), To: tcpClient.String(), Transport: "turn-tcp", MediaPackets: 300, MediaPayload: pay,
			Wire: frames.all[1] - frames.acks[1] + frames.acks[0],
			Overhead: report.Overhead{LinkIPTransport: 300 * 54, Framing: 300 * 4, RTPHeaders: 300 * 12,
				ACKs: 303 * 54, STUN: 2*54 + stun1, Other: 58},
			Late: 16, HOLBlocked: 14, DelayMaxMS: 305, GoodputKbps: 507.383,
			TCPRetransmittedPct: 0.619}, // 100 × 1,200 / (stun1 + 150 × 1,292)
	}
	gotD := directionFigures(t, c)
	if d := cmp.Diff(wantD, gotD); d != "" {
		t.Errorf("directions (-want +got):\n%s", d)
	}
	if gotD[0].Wire+gotD[1].Wire != fl.WireBytes {
		t.Errorf("directions' wire %d + %d, want the leg's %d", gotD[0].Wire, gotD[1].Wire, fl.WireBytes)
	}
	if want, got := 100*1292/float64(stun0+150*1292+1292), gotD[0].TCPRetransmittedPct; math.Abs(want-got) > 0.001 {
		t.Errorf("tcp_retransmitted_pct %v, want %v", got, want)
	}
	for _, s := range c.Streams {
		if s.Packets != 150 || deref(s.Lost) != 0 || s.Late == nil || s.Late.Packets != 8 || s.Late.HOLBlocked != 7 ||
			s.DelayMS == nil || s.DelayMS.Max != 305 || s.DelayMS.P50 != 0 || s.Leg != "l1" {
			t.Errorf("stream %s %s: packets %d lost %d late %+v delay %+v leg %s; want 150, 0, 8 late, 7 behind a retransmission, max 305 ms",
				s.ID, s.SSRC, s.Packets, deref(s.Lost), s.Late, s.DelayMS, s.Leg)
		}
	}
	// One finding, the cause: its symptoms are its figures, none a finding of its own. 1,292
	// + 1,200 bytes retransmitted of 2 × 150 × 1,292 media bytes and the STUN: 0.64%; the
	// 2 × 16 late packets of 600, 2 × 14 behind the retransmission; TCP's cost, 2,792 bytes of
	// copies, 2 × 303 × 54 of ACKs and 2 × 300 × 4 of framing, 8.0% of the wire bytes.
	checkFindingList(t, c.Findings, []report.Finding{{Code: "media_over_tcp", Severity: "bad",
		Text: "Media between 10.0.0.1:51234 and 198.51.100.9:50000 was relayed over TCP through TURN 203.0.113.7:443: " +
			"0.6% of the bytes on that connection were retransmissions; 32 media packets (5.3%) arrived more than 150 ms late, " +
			"28 of them held behind a retransmitted segment (head-of-line blocking), 4 whose own bytes were retransmitted; " +
			"TCP's ACKs, framing and retransmissions took 8.0% of the wire bytes.",
		Legs: []string{"l1"}, Directions: []string{"d1", "d2"},
		Figures: map[string]float64{"tcp_retransmitted_pct": round3(100 * 2492 / float64(stunLen(writes)+300*1292+1292)),
			"retransmitted_bytes": 2492, "late_packets": 32, "late_pct": 5.333, "hol_blocked": 28, "late_retransmitted": 4,
			"avoidable_overhead_pct": round3(100 * float64(2*(303*54+300*4)+1254+146) / float64(gotD[0].Wire+gotD[1].Wire))}}})
}

// A client that does not pad ChannelData over TCP (RFC 8656 12.5 says it must), sending
// Opus of 101 bytes: RTP of 113, ChannelData Length 0x71. Read as padded, the next header
// would start on the next message's Length low byte, 0x71, which in sync reads as a channel
// (RFC 5766's range): the direction must still be read unpadded, every packet a stream's.
// The server pads (Length 0x4D, 77 bytes of RTP, 3 of padding). A clean call: each write one
// segment, each acknowledged.
func TestTURNOverTCPUnpadded(t *testing.T) {
	mk := func(src, dst netip.AddrPort, ssrc uint32, size int, start time.Duration) callgen.Stream {
		return callgen.Stream{Src: src, Dst: dst, SSRC: ssrc, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond,
			PayloadSize: size, Count: tcpTicks, StartSeq: 1000, StartTS: 5000, Start: start}
	}
	frame := func(b []byte) []byte {
		cd := callgen.ChannelData(channel, b)
		if len(b) == 12+101 {
			return cd[:4+len(b)] // the client's: no padding
		}
		return cd
	}
	setup := callgen.TURNTCPSetup(10*time.Millisecond, 60*time.Millisecond, tcpRelayed, bob, channel)
	media := callgen.MediaWrites(frame, fromServer, mk(tcpClient, bob, 0x0a0a0a0a, 101, mediaStart),
		mk(bob, tcpClient, 0x2c2c2c2c, 65, mediaStart+serverShift))
	writes := callgen.MergeWrites(setup, media)
	call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000}}
	pkts := call.Packets(writes)
	frames := sumFrames(pkts, tcpClient)
	c := analyze(t, pcapOf(t, pkts), Options{})

	if len(c.Legs) != 1 || len(c.Flows) != 1 || len(c.Directions) != 2 || len(c.Streams) != 2 {
		t.Fatalf("legs %d flows %d directions %d streams %d; want 1 1 2 2", len(c.Legs), len(c.Flows),
			len(c.Directions), len(c.Streams))
	}
	var stun [2]int64
	for _, w := range writes[:4] {
		stun[w.Dir] += int64(len(w.Data))
	}
	// 2 STUN messages and 150 ChannelData each way, each acknowledged by a pure ACK (and the
	// client's handshake ACK); framing: 150 headers, and the server's 3 bytes of padding each.
	fl := c.Flows[0]
	want := [2]tcpFigures{
		{Vantage: "sender", DataSegments: 152, PureAcks: 153, Messages: 152, FramingBytes: 150 * 4},
		{Vantage: "receiver", DataSegments: 152, PureAcks: 152, Messages: 152, FramingBytes: 150 * (4 + 3)},
	}
	if got := [2]tcpFigures{tcpFiguresOf(fl.TCP.AToB), tcpFiguresOf(fl.TCP.BToA)}; !cmp.Equal(want, got) {
		t.Errorf("tcp (-want +got):\n%s", cmp.Diff(want, got))
	}
	// Per direction: 152 segments of 54 header bytes (150 under link_ip_transport, 2 under
	// stun with the STUN payload); the other side's pure ACKs; the SYN or SYN/ACK (58 bytes).
	wantD := []dirFigures{
		{From: tcpClient.String(), To: bob.String(), Transport: "turn-tcp", MediaPackets: 150, MediaPayload: 150 * 101,
			Wire: frames.all[0] - frames.acks[0] + frames.acks[1],
			Overhead: report.Overhead{LinkIPTransport: 150 * 54, Framing: 150 * 4, RTPHeaders: 150 * 12,
				ACKs: 152 * 54, STUN: 2*54 + stun[0], Other: 58},
			GoodputKbps: 40.671}, // 15,150 bytes over the 2.98 s from the first packet to the last
		{From: bob.String(), To: tcpClient.String(), Transport: "turn-tcp", MediaPackets: 150, MediaPayload: 150 * 65,
			Wire: frames.all[1] - frames.acks[1] + frames.acks[0],
			Overhead: report.Overhead{LinkIPTransport: 150 * 54, Framing: 150 * (4 + 3), RTPHeaders: 150 * 12,
				ACKs: 153 * 54, STUN: 2*54 + stun[1], Other: 58},
			GoodputKbps: 26.174},
	}
	gotD := directionFigures(t, c)
	if d := cmp.Diff(wantD, gotD); d != "" {
		t.Errorf("directions (-want +got):\n%s", d)
	}
	for i, s := range c.Streams {
		ssrc, pay := []string{"0x0a0a0a0a", "0x2c2c2c2c"}[i], []int64{150 * 101, 150 * 65}[i]
		if s.SSRC != ssrc || s.Packets != 150 || s.PayloadBytes != pay || deref(s.Lost) != 0 {
			t.Errorf("stream %s %s: packets %d payload %d lost %d; want %s, 150, %d, 0",
				s.ID, s.SSRC, s.Packets, s.PayloadBytes, deref(s.Lost), ssrc, pay)
		}
	}
}

// checkFindingList compares findings exactly: codes, severities, sentences, calls, figures.
func checkFindingList(t *testing.T, got, want []report.Finding) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// stunLen is the STUN payload bytes of writes (setup), both ways.
func stunLen(writes []callgen.TCPWrite) int64 {
	var n int64
	for _, w := range writes[:4] {
		n += int64(len(w.Data))
	}
	return n
}

// checkFindings checks that each code is present and that its texts, joined, hold every
// fragment.
func checkFindings(t *testing.T, fs []report.Finding, want map[string][]string) {
	t.Helper()
	for code, frags := range want {
		var all string
		for _, f := range fs {
			if string(f.Code) == code {
				all += f.Text + "\n"
			}
		}
		if all == "" {
			t.Errorf("no %s finding in %+v", code, fs)
			continue
		}
		for _, fr := range frags {
			if !strings.Contains(all, fr) {
				t.Errorf("%s findings %q lack %q", code, all, fr)
			}
		}
	}
}

// The sender skips sequence numbers on a clean connection: ticks 30-32 of the client's audio
// and video are never written (libwebrtc's full send buffer), and tick 80 of the server's.
// TCP lost nothing, so those 6 + 2 packets were dropped before TCP: lost at the RTP level,
// no network loss of the leg.
func TestDroppedBeforeTCP(t *testing.T) {
	lose := func(i int) bool { return i >= 30 && i <= 32 }
	setup := callgen.TURNTCPSetup(10*time.Millisecond, 60*time.Millisecond, tcpRelayed, bob, channel)
	ss := tcpStreams(nil)
	ss[0].Lose, ss[1].Lose = lose, lose
	ss[2].Lose = func(i int) bool { return i == 80 }
	ss[3].Lose = ss[2].Lose
	media := callgen.MediaWrites(func(b []byte) []byte { return callgen.ChannelData(channel, b) }, fromServer, ss...)
	call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000}}
	c := analyze(t, pcapOf(t, call.Packets(callgen.MergeWrites(setup, media))), Options{})
	var got [][3]int64
	for _, s := range c.Streams {
		got = append(got, [3]int64{s.Packets, deref(s.Lost), deref(s.DroppedBeforeTCP)})
	}
	if d := cmp.Diff([][3]int64{{147, 3, 3}, {147, 3, 3}, {149, 1, 1}, {149, 1, 1}}, got); d != "" {
		t.Errorf("streams [packets lost dropped] (-want +got):\n%s", d)
	}
	var dirs [][2]int64
	for _, d := range c.Directions {
		dirs = append(dirs, [2]int64{d.Loss.Lost, deref(d.Loss.DroppedBeforeTCP)})
		if d.TCPRetransmittedPct == nil || *d.TCPRetransmittedPct != 0 {
			t.Errorf("%s: tcp_retransmitted_pct %v, want 0", d.ID, d.TCPRetransmittedPct)
		}
	}
	if d := cmp.Diff([][2]int64{{6, 6}, {2, 2}}, dirs); d != "" {
		t.Errorf("directions [lost dropped] (-want +got):\n%s", d)
	}
	checkFindings(t, c.Findings, map[string][]string{
		"dropped_before_tcp": {"10.0.0.1:51234 -> 198.51.100.9:50000: 6 RTP packets never entered the TCP connection",
			"198.51.100.9:50000 -> 10.0.0.1:51234: 2 RTP packets"},
	})
	for _, f := range c.Findings {
		if f.Code == "rtp_loss" || f.Code == "tcp_retransmissions" {
			t.Errorf("unexpected finding %+v", f)
		}
	}
}

// The capture misses tick 20's first segment from the client (the server acknowledged it):
// a 1,200-byte capture gap. Its audio packet and the video packet it began are missing; the
// unframer skips the video packet's 92-byte tail to resynchronise. Across the gap the two
// lost packets cannot be told from drops before TCP: lost, and not dropped before TCP (0),
// on the streams and the direction. Before, the drops of a direction with a gap anywhere
// were null: so with drops before TCP elsewhere (TestDropsAwayFromACaptureGap). The receiver
// had them (the server acknowledged the bytes): the capture_gaps finding says so, and no
// rtp_loss finding calls them lost on the path, as one did before.
func TestCaptureGapIsNotDroppedBeforeTCP(t *testing.T) {
	call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000},
		Miss: func(dir, i int) bool { return dir == 0 && i == seg(20) }}
	c := analyze(t, pcapOf(t, call.Packets(turnTCPWrites(nil))), Options{})
	a := c.Flows[0].TCP.AToB
	if a.CaptureGapBytes != 1200 || a.ResyncSkippedBytes != 92 || a.RetransmittedBytes != 0 {
		t.Errorf("capture gap %d, resync skipped %d, retransmitted %d; want 1200, 92, 0",
			a.CaptureGapBytes, a.ResyncSkippedBytes, a.RetransmittedBytes)
	}
	d := c.Directions[0]
	if d.Loss.Lost != 2 || d.Loss.DroppedBeforeTCP == nil || *d.Loss.DroppedBeforeTCP != 0 {
		t.Errorf("lost %d, dropped before TCP %v; want 2 and 0", d.Loss.Lost, d.Loss.DroppedBeforeTCP)
	}
	for _, s := range c.Streams {
		if s.Direction == d.ID && deref(s.Lost) > 0 && deref(s.DroppedBeforeTCP) != 0 {
			t.Errorf("stream %s: lost %d, dropped before TCP %d; want 0", s.ID, deref(s.Lost), *s.DroppedBeforeTCP)
		}
	}
	checkFindings(t, c.Findings, map[string][]string{
		"capture_gaps": {"1,200 bytes"},
	})
	for _, f := range c.Findings {
		if f.Code == report.FindingRTPLoss {
			t.Errorf("rtp_loss finding %q for packets the capture missed", f.Text)
		}
	}
}

// TestDropsAwayFromACaptureGap: the capture gap of TestCaptureGapIsNotDroppedBeforeTCP at
// tick 20, and ticks 100-102 of the client's audio never written (a full send buffer). The
// gap's two losses may be either; the three later ones, with every byte around them in the
// capture, were dropped before TCP (DESIGN: "where TCP itself lost nothing (no capture gap
// there)"). Before, one capture gap anywhere in the direction made its drops null and the
// three network loss.
func TestDropsAwayFromACaptureGap(t *testing.T) {
	setup := callgen.TURNTCPSetup(10*time.Millisecond, 60*time.Millisecond, tcpRelayed, bob, channel)
	ss := tcpStreams(nil)
	ss[0].Lose = func(i int) bool { return i >= 100 && i <= 102 }
	media := callgen.MediaWrites(func(b []byte) []byte { return callgen.ChannelData(channel, b) }, fromServer, ss...)
	call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000},
		Miss: func(dir, i int) bool { return dir == 0 && i == seg(20) }}
	c := analyze(t, pcapOf(t, call.Packets(callgen.MergeWrites(setup, media))), Options{})
	if a := c.Flows[0].TCP.AToB; a.CaptureGapBytes == 0 {
		t.Fatalf("no capture gap: %+v", a)
	}
	var got [][2]int64
	for _, s := range c.Streams {
		if s.Direction == c.Directions[0].ID {
			got = append(got, [2]int64{deref(s.Lost), deref(s.DroppedBeforeTCP)})
		}
	}
	d := c.Directions[0].Loss
	if diff := cmp.Diff([][2]int64{{4, 3}, {1, 0}}, got); diff != "" || d.Lost != 5 || deref(d.DroppedBeforeTCP) != 3 {
		t.Errorf("streams [lost dropped] (-want +got):\n%s; direction lost %d, dropped %v; want 5 and 3", diff, d.Lost, d.DroppedBeforeTCP)
	}
}

// ICE-TCP (RFC 4571): the same media each way with a 2-byte length per packet, directly
// between the two endpoints.
func TestICETCP(t *testing.T) {
	pkts, peer := iceTCPCall()
	frames := sumFrames(pkts, tcpClient)
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Legs) != 1 || c.Legs[0].Transport != "ice-tcp" || c.Legs[0].Client != tcpClient.String() ||
		c.Legs[0].Server != peer.String() {
		t.Fatalf("legs %+v, want one ice-tcp leg", c.Legs)
	}
	if f := c.Flows[0]; f.Framing == nil || *f.Framing != "rfc4571" || f.TCP.AToB.FramingBytes != 300*2 ||
		f.TCP.AToB.Messages != 300 || f.TCP.BToA.Messages != 300 {
		t.Errorf("flow framing %v tcp %+v", f.Framing, f.TCP)
	}
	// 1292 − 2×(4 − 2) = 1288 bytes per tick: segments of 1200 and 88.
	pay := int64(tcpTicks * (160 + 1100))
	want := []dirFigures{
		{From: tcpClient.String(), To: peer.String(), Transport: "ice-tcp", MediaPackets: 300, MediaPayload: pay,
			Wire:        frames.all[0] - frames.acks[0] + frames.acks[1],
			Overhead:    report.Overhead{LinkIPTransport: 300 * 54, Framing: 300 * 2, RTPHeaders: 300 * 12, ACKs: 300 * 54, Other: 58},
			GoodputKbps: 507.383, TCPRetransmittedPct: 0},
		{From: peer.String(), To: tcpClient.String(), Transport: "ice-tcp", MediaPackets: 300, MediaPayload: pay,
			Wire:        frames.all[1] - frames.acks[1] + frames.acks[0],
			Overhead:    report.Overhead{LinkIPTransport: 300 * 54, Framing: 300 * 2, RTPHeaders: 300 * 12, ACKs: 301 * 54, Other: 58},
			GoodputKbps: 507.383, TCPRetransmittedPct: 0},
	}
	var got []dirFigures
	for _, d := range c.Directions {
		got = append(got, dirFiguresOf(d))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("directions (-want +got):\n%s", d)
	}
	checkFindings(t, c.Findings, map[string][]string{"media_over_tcp": {"over TCP (ice-tcp) between 10.0.0.1:51234 and 198.51.100.9:9"}})
}

// TestDecodeAsTCP: --decode-as imposes a TCP framing. rfc4571 on the ICE-TCP call's port
// gives what detection finds; turn on it finds no frame that validates, so no stream.
func TestDecodeAsTCP(t *testing.T) {
	pkts, _ := iceTCPCall()
	data := pcapOf(t, pkts)
	detected := analyze(t, data, Options{})
	forced := analyze(t, data, Options{DecodeAs: []DecodeAs{{Proto: "rfc4571", Port: 9}}})
	if len(forced.Streams) != len(detected.Streams) || len(forced.Streams) == 0 ||
		*forced.Flows[0].Framing != "rfc4571" || forced.Streams[0].Packets != detected.Streams[0].Packets {
		t.Errorf("forced rfc4571: %d streams, framing %v; detected %d streams", len(forced.Streams),
			*forced.Flows[0].Framing, len(detected.Streams))
	}
	wrong := analyze(t, data, Options{DecodeAs: []DecodeAs{{Proto: "turn", Port: 9}}})
	if len(wrong.Streams) != 0 || *wrong.Flows[0].Framing != "turn" {
		t.Errorf("forced turn: %d streams, framing %v; want none and turn", len(wrong.Streams), *wrong.Flows[0].Framing)
	}
}

// iceTCPCall is the media of tcpStreams between tcpClient and a peer on port 9 over ICE-TCP
// (RFC 4571 framing), without TURN.
func iceTCPCall() ([]callgen.Packet, netip.AddrPort) {
	writes, call := iceTCPWrites(tcpTicks)
	return call.Packets(writes), call.Server
}

// iceTCPWrites is iceTCPCall's writes, ticks packets a stream, and its connection.
func iceTCPWrites(ticks int) ([]callgen.TCPWrite, callgen.TCPCall) {
	peer := netip.MustParseAddrPort("198.51.100.9:9")
	ss := tcpStreams(nil)
	for i := range ss {
		ss[i].Count = ticks
		if ss[i].Src == bob {
			ss[i].Src, ss[i].Dst = peer, tcpClient
		} else {
			ss[i].Dst = peer
		}
	}
	dir := func(s *callgen.Stream) int {
		if s.Src == peer {
			return 1
		}
		return 0
	}
	call := callgen.TCPCall{Client: tcpClient, Server: peer, ISN: [2]uint32{7, 1 << 31}}
	return callgen.MediaWrites(callgen.Frame4571, dir, ss...), call
}

// directionFigures returns the figures of c's directions, checking that each one's wire
// bytes are its media payload and overhead.
func directionFigures(t *testing.T, c report.Capture) []dirFigures {
	t.Helper()
	var got []dirFigures
	for _, d := range c.Directions {
		got = append(got, dirFiguresOf(d))
		if d.WireBytes != d.MediaPayloadBytes+d.OverheadBytes.Sum() {
			t.Errorf("%s: wire %d != media %d + overhead %d", d.ID, d.WireBytes, d.MediaPayloadBytes, d.OverheadBytes.Sum())
		}
	}
	return got
}

// TestTCPPortReused: a client reuses its address and port for a second TURN/TCP connection
// after the first, to the same server: a new SYN, a new allocation with another relayed
// address. Each connection is a flow and a leg of its own, with its allocation's relayed
// address and its own streams; the second's were merged into the first's flow, its media
// read by nobody, its Allocate unread.
func TestTCPPortReused(t *testing.T) {
	first := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000}}
	second := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{5_000_000, 7_000_000}, Start: 5 * time.Second}
	relayed2 := netip.MustParseAddrPort("203.0.113.7:50013")
	w2 := callgen.MergeWrites(callgen.TURNTCPSetup(10*time.Millisecond, 60*time.Millisecond, relayed2, bob, channel),
		callgen.MediaWrites(func(b []byte) []byte { return callgen.ChannelData(channel, b) }, fromServer, tcpStreams(nil)...))
	for i := range w2 {
		w2[i].T += 5 * time.Second
	}
	c := analyze(t, pcapOf(t, append(first.Packets(turnTCPWrites(nil)), second.Packets(w2)...)), Options{})

	var tcpFlows int
	for _, f := range c.Flows {
		if f.Proto == "tcp" {
			tcpFlows++
		}
	}
	var relayed []string
	for _, l := range c.Legs {
		if l.Transport == report.TransportTURNTCP && l.Relayed != nil {
			relayed = append(relayed, *l.Relayed)
		}
	}
	var whole int
	for _, s := range c.Streams {
		if s.Packets == tcpTicks {
			whole++
		}
	}
	if tcpFlows != 2 || !slices.Equal(relayed, []string{"203.0.113.7:50012", "203.0.113.7:50013"}) || whole != 8 {
		t.Errorf("%d TCP flows, TURN/TCP legs relayed at %v, %d whole streams; want 2, both addresses, 8", tcpFlows, relayed, whole)
	}
}

// TestTURNClientOnATURNPort: turnTCPWrites' call with the client on port 3478 and the TURN
// server on an ephemeral port (h133's renumbering). The Allocate says which is the client;
// before, the first TURN segment, read before the Allocate was, asked, and the ports'
// answer stuck: the leg named the server the client, no relayed address, and the client's
// own streams came from the peer.
func TestTURNClientOnATURNPort(t *testing.T) {
	client, server := netip.MustParseAddrPort("10.0.0.1:3478"), netip.MustParseAddrPort("203.0.113.7:51234")
	call := callgen.TCPCall{Client: client, Server: server, ISN: [2]uint32{1000, 900000}}
	c := analyze(t, pcapOf(t, call.Packets(turnTCPWrites(nil))), Options{})
	if len(c.Legs) != 1 || c.Legs[0].Client != client.String() || c.Legs[0].Server != server.String() ||
		c.Legs[0].Relayed == nil || *c.Legs[0].Relayed != tcpRelayed.String() {
		t.Fatalf("legs %+v, want the client %v, the server %v, relayed %v", c.Legs, client, server, tcpRelayed)
	}
	for _, d := range c.Directions {
		if d.From == client.String() && len(d.Streams) != 2 || d.From != client.String() && d.From != bob.String() {
			t.Errorf("direction %s -> %s with %d streams", d.From, d.To, len(d.Streams))
		}
	}
}

// TestRetransmittedWhileHeld: turnTCPWrites' call with a STUN Binding request from the client
// 10 ms after tick 50, whose segment is sent again (spurious) 10 ms after tick 50's first
// segment, lost after the capture, is: the resend is seen while the request still waits
// (at the client's side, for the ACK that passes the repair). Its payload is a TCP
// retransmission, as it would be once delivered; before, it counted as STUN (h131: stun
// 184 and tcp_retransmissions 0 where 92 and 92).
func TestRetransmittedWhileHeld(t *testing.T) {
	req := stun.MustBuild(stun.TransactionID, stun.BindingRequest, stun.NewSoftware("callpcap test"))
	writes := callgen.MergeWrites(turnTCPWrites(nil),
		[]callgen.TCPWrite{{T: mediaStart + 50*20*time.Millisecond + 10*time.Millisecond, Dir: 0, Data: req.Raw}})
	run := func(spurious bool) report.Direction {
		call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000},
			LoseAfter: func(i int) bool { return i == seg(50) },
			Spurious:  func(i int) bool { return spurious && i == seg(50)+2 }}
		c := analyze(t, pcapOf(t, call.Packets(writes)), Options{})
		for _, d := range c.Directions {
			if d.From == tcpClient.String() {
				if d.WireBytes != d.MediaPayloadBytes+d.OverheadBytes.Sum() {
					t.Errorf("spurious %v: wire %d does not add up", spurious, d.WireBytes)
				}
				return d
			}
		}
		t.Fatalf("no direction from %v", tcpClient)
		return report.Direction{}
	}
	// The resent frame (its headers too, as a resent RTP message's) is a retransmission;
	// the server's duplicate ACK of it is the direction's too.
	once, twice := run(false), run(true)
	resent := int64(54 + len(req.Raw))
	if twice.OverheadBytes.STUN != once.OverheadBytes.STUN ||
		twice.OverheadBytes.TCPRetransmissions-once.OverheadBytes.TCPRetransmissions != resent ||
		twice.WireBytes-once.WireBytes != resent+54 {
		t.Errorf("resent while held: stun %d (once %d), retransmissions +%d, wire +%d; want the same stun, +%d and +%d",
			twice.OverheadBytes.STUN, once.OverheadBytes.STUN,
			twice.OverheadBytes.TCPRetransmissions-once.OverheadBytes.TCPRetransmissions, twice.WireBytes-once.WireBytes,
			resent, resent+54)
	}
}

// TestWireSeriesByFrameTime: turnTCPWrites' call, and the same with the server's tick 45
// first segment (1,254-byte frame, seen at 1.435 s, in the direction's second 0 from
// 0.535 s) lost before the capture, its resend seen 305 ms later (second 1). The messages
// behind the hole are delivered with the resend, but their frames crossed the wire when
// they came, and the wire series counts a message when its own bytes had all come
// (Complete): from second 0 to 1 move only the lost frame, the client's ACK of it (it
// acknowledges the resend), and the 146-byte frame of tick 45's video tail, whose message
// began in the lost frame. h131: ticks 46-49's bytes went to second 1 too.
func TestWireSeriesByFrameTime(t *testing.T) {
	run := func(lose bool) []float64 {
		call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000},
			LoseBefore: func(i int) bool { return lose && i == seg(45) }}
		c := analyze(t, pcapOf(t, call.Packets(turnTCPWrites(nil))), Options{})
		for _, d := range c.Directions {
			if d.From == bob.String() {
				if d.Series.T0S != 0.535 {
					t.Fatalf("series from %v s, want 0.535", d.Series.T0S)
				}
				return d.Series.WireKbps
			}
		}
		t.Fatal("no direction from bob")
		return nil
	}
	clean, lossy := run(false), run(true)
	moved := (1254 + 54 + 146) * 8 / 1000.0
	for i := range clean {
		want := clean[i]
		switch i {
		case 0:
			want -= moved
		case 1:
			want += moved
		}
		if math.Abs(lossy[i]-want) > 1e-6 {
			t.Errorf("second %d: wire %v kbps, want %v (%v without the loss)", i, lossy[i], want, clean[i])
		}
	}
}

// TestICETCPShortWithGarbage: a short ICE-TCP call, 12 ticks (48 messages in all), whose
// client wrote 37 bytes of garbage once among its frames. The framing broke once and held
// everywhere else: an ice-tcp leg, the 37 bytes skipped, every packet in its stream. Before,
// one break in fewer than 100 messages made it an other flow, with no stream and no word.
func TestICETCPShortWithGarbage(t *testing.T) {
	writes, call := iceTCPWrites(12)
	at := writes[10].T + time.Millisecond
	garbage := callgen.TCPWrite{T: at, Dir: 0, Data: bytes.Repeat([]byte{0xff}, 37)}
	writes = append(writes[:11], append([]callgen.TCPWrite{garbage}, writes[11:]...)...)
	c := analyze(t, pcapOf(t, call.Packets(writes)), Options{})
	if len(c.Legs) != 1 || c.Legs[0].Transport != "ice-tcp" || len(c.Flows) != 1 {
		t.Fatalf("legs %+v, %d flows; want one ice-tcp leg", c.Legs, len(c.Flows))
	}
	if f := c.Flows[0].TCP; f == nil || f.AToB.ResyncSkippedBytes != 37 || f.AToB.Messages != 24 || f.BToA.Messages != 24 {
		t.Errorf("tcp %+v, want 37 bytes skipped, 24 messages each way", f)
	}
	if len(c.Streams) != 4 {
		t.Fatalf("%d streams, want 4", len(c.Streams))
	}
	for _, s := range c.Streams {
		if s.Packets != 12 || s.Lost == nil || *s.Lost != 0 {
			t.Errorf("stream %s: %d packets, lost %v; want 12, 0", s.SSRC, s.Packets, s.Lost)
		}
	}
}

// TestSenderVantageSparseStart: an ICE-TCP call captured at its sender over a clean
// 400 ms round trip, whose first three audio packets go out 0.6 s apart before the steady
// 20 ms: its first message waits for a third data/ACK sample longer than maxHold, and the
// vantage is then decided from the two there are. Every message is dated ACK − RTT/2, the
// same 200 ms after its sending: no delay, nothing late. Before, the first two were let go
// with the vantage unknown and dated at their capture, setting the baseline 200 ms early:
// 62 of 63 late (h151).
func TestSenderVantageSparseStart(t *testing.T) {
	peer := netip.MustParseAddrPort("198.51.100.9:9")
	send := func(i int) time.Duration {
		if i < 3 {
			return 500*time.Millisecond + time.Duration(i)*600*time.Millisecond
		}
		return 1700*time.Millisecond + time.Duration(i-2)*20*time.Millisecond
	}
	s := callgen.Stream{Src: tcpClient, Dst: peer, SSRC: 0x0a0a0a0a, PT: 0, ClockRate: 8000, PayloadSize: 160,
		Count: 63, StartSeq: 1000, Send: send, TS: func(i int) uint32 { return uint32(8 * send(i) / time.Millisecond) }}
	var writes []callgen.TCPWrite
	for i := range s.Count {
		writes = append(writes, callgen.TCPWrite{T: send(i), Dir: 0, Data: callgen.Frame4571(s.RTP(i))})
	}
	call := callgen.TCPCall{Client: tcpClient, Server: peer, RTT: 400 * time.Millisecond, ISN: [2]uint32{7, 1 << 31}}
	c := analyze(t, pcapOf(t, call.Packets(writes)), Options{})
	if len(c.Streams) != 1 || len(c.Flows) != 1 {
		t.Fatalf("%d streams, %d flows; want 1, 1", len(c.Streams), len(c.Flows))
	}
	if v := c.Flows[0].TCP.AToB.Vantage; v != "sender" {
		t.Errorf("vantage %s, want sender", v)
	}
	st := c.Streams[0]
	if st.Late == nil || st.Late.Packets != 0 || st.DelayMS == nil || st.DelayMS.Max != 0 || st.FirstS != 0.7 {
		t.Errorf("late %+v, delay %+v, first %v s; want none late, no delay, first at 0.7 s", st.Late, st.DelayMS, st.FirstS)
	}
}

// TestSenderVantageLongRepair: ICE-TCP audio captured at its sender over a clean 80 ms
// round trip, one segment (packet 200) lost after the capture and resent by a timer 2.2 s
// later. The receiver had it, and the 110 packets held behind it, when the resend arrived:
// dated by the ACK that covers them, less half the round trip, packet 200+j is 2,200 − 20j
// ms late, so 103 exceed 150 ms and the maximum is 2,200 ms, as a capture at the receiver
// says. Before, a message waited at most 1 s for its ACK and was then dated half a round
// trip after its sending: the longest waits read on time (h160: 61 late of 109, max 1.26 s).
func TestSenderVantageLongRepair(t *testing.T) {
	peer := netip.MustParseAddrPort("198.51.100.9:9")
	s := audio()
	s.Src, s.Dst = tcpClient, peer
	writes := callgen.MediaWrites(callgen.Frame4571, func(*callgen.Stream) int { return 0 }, s)
	call := callgen.TCPCall{Client: tcpClient, Server: peer, RTT: 80 * time.Millisecond, RTO: 2200 * time.Millisecond,
		ISN: [2]uint32{7, 1 << 31}, LoseAfter: func(seg int) bool { return seg == 200 }}
	c := analyze(t, pcapOf(t, call.Packets(writes)), Options{})
	if len(c.Streams) != 1 || len(c.Flows) != 1 || c.Flows[0].TCP.AToB.Vantage != "sender" {
		t.Fatalf("%d streams, flows %+v; want one stream at the sender", len(c.Streams), c.Flows)
	}
	st := c.Streams[0]
	if st.Late == nil || st.Late.Packets != 103 || st.DelayMS == nil || st.DelayMS.Max != 2200 {
		t.Errorf("late %+v, delay %+v; want 103 late, max 2200 ms", st.Late, st.DelayMS)
	}
}

// TestSenderVantageLongRoundTrip: ICE-TCP audio captured at its sender over a clean 1.5 s
// round trip: no data/ACK sample comes before the first message has waited maxHold, and
// it waits on for one (up to two round trips). Every message is dated by its ACK: no
// delay, nothing late. Before, the first second's messages went out with the vantage
// unknown, dated at their sending, and the rest read 750 ms late (h157: 125 of 150).
func TestSenderVantageLongRoundTrip(t *testing.T) {
	peer := netip.MustParseAddrPort("198.51.100.9:9")
	s := audio()
	s.Src, s.Dst, s.Count, s.Start = tcpClient, peer, 150, 1600*time.Millisecond // after the handshake
	writes := callgen.MediaWrites(callgen.Frame4571, func(*callgen.Stream) int { return 0 }, s)
	call := callgen.TCPCall{Client: tcpClient, Server: peer, RTT: 1500 * time.Millisecond, ISN: [2]uint32{7, 1 << 31}}
	c := analyze(t, pcapOf(t, call.Packets(writes)), Options{})
	if len(c.Streams) != 1 || len(c.Flows) != 1 || c.Flows[0].TCP.AToB.Vantage != "sender" {
		t.Fatalf("%d streams, flows %+v; want one stream at the sender", len(c.Streams), c.Flows)
	}
	if st := c.Streams[0]; st.Late == nil || st.Late.Packets != 0 || st.DelayMS == nil || st.DelayMS.Max != 0 {
		t.Errorf("late %+v, delay %+v; want none late, no delay", st.Late, st.DelayMS)
	}
}

// TestSenderVantageFirstMessageLost: ICE-TCP audio captured at its sender over a clean
// 100 ms round trip, its very first data segment lost after the capture and resent 1 s
// later: no data/ACK sample comes before the first message has waited maxHold, and the
// vantage is then read from the handshake (the SYN/ACK a round trip after the SYN: the
// sender's side). Every message is dated by its ACK: packet j is 1,000 − 20j ms late, 43
// beyond 150 ms, the maximum 1,000 ms. Before, the first second's messages went out
// undated (h163: 37 late, max 880.5 ms, 145 over 50 ms).
func TestSenderVantageFirstMessageLost(t *testing.T) {
	peer := netip.MustParseAddrPort("198.51.100.9:9")
	s := audio()
	s.Src, s.Dst, s.Start = tcpClient, peer, 200*time.Millisecond
	writes := callgen.MediaWrites(callgen.Frame4571, func(*callgen.Stream) int { return 0 }, s)
	call := callgen.TCPCall{Client: tcpClient, Server: peer, RTT: 100 * time.Millisecond, RTO: time.Second,
		ISN: [2]uint32{7, 1 << 31}, LoseAfter: func(seg int) bool { return seg == 0 }}
	c := analyze(t, pcapOf(t, call.Packets(writes)), Options{})
	if len(c.Streams) != 1 || len(c.Flows) != 1 || c.Flows[0].TCP.AToB.Vantage != "sender" {
		t.Fatalf("%d streams, flows %+v; want one stream at the sender", len(c.Streams), c.Flows)
	}
	st := c.Streams[0]
	if st.Late == nil || st.Late.Packets != 43 || st.DelayMS == nil || st.DelayMS.Max != 1000 {
		t.Errorf("late %+v, delay %+v; want 43 late, max 1000 ms", st.Late, st.DelayMS)
	}
}
