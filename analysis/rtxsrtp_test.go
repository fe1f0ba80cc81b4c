package analysis

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
)

// srtpFill writes random bytes, as SRTP encryption leaves a payload: the first two, an RTX
// packet's OSN, included. A padded packet's last byte, which the analysis reads as the
// padding count (with SRTP it is the auth tag's), is kept valid: between 1 and len(b).
func srtpFill(seed uint64) func(i int, b []byte) {
	return func(i int, b []byte) {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if len(b) > 0 {
			b[len(b)-1] = byte(1 + r.IntN(min(len(b), 255)))
		}
	}
}

// srtcpNACK is an SRTCP generic NACK (RFC 4585 6.2.1, RFC 3711 3.4) from sender with fci
// FCI entries: the clear header says its type, format and length (2 + fci words), the
// media SSRC and the FCI are encrypted, then the E flag and index and a 10-byte tag.
func srtcpNACK(sender uint32, fci int) []byte {
	b := []byte{0x80 | 1, 205, 0, 0}
	binary.BigEndian.PutUint16(b[2:], uint16(2+fci))
	b = binary.BigEndian.AppendUint32(b, sender)
	for k := 0; k < 1+fci; k++ { // media SSRC and FCI, encrypted
		b = append(b, 0x3c, 0x91, 0x07, byte(0xe2+k))
	}
	b = append(b, 0x80, 0, 0, 1) // E=1, SRTCP index 1
	return append(b, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66)
}

// srtpVideo is alice's SRTP video 0xE1 (PT 96) to bob as Chromium sends it: 1,500 packets
// 10 ms apart, three to a frame (timestamps 2,700 apart from 1,000,000), random payloads.
func srtpVideo(ssrc uint32, ts0 uint32, seed uint64) callgen.Stream {
	return callgen.Stream{Src: alice, Dst: bob, SSRC: ssrc, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 1500, StartSeq: 40000,
		TS: func(i int) uint32 { return ts0 + uint32(i/3)*2700 }, Fill: srtpFill(seed)}
}

// srtpLost are the video packets lost in srtpRTXCall: 250 and 251 in one frame, 1001 the
// last of its frame and 1302 the first of its.
var srtpLost = []int{100, 250, 251, 400, 700, 1001, 1302}

// srtpRTXCall is SRTP video (srtpVideo) whose RTX stream 0xE2 (PT 97, numbered one by one)
// carries 10 padding-only probes at 0.2 s (P bit, encrypted padding), the 7 packets of
// srtpLost, each resent 45 ms after it was sent, after a NACK from bob 20 ms after it
// (one SRTCP NACK of two FCI entries for 250 and 251), and from 5 s 20 probes 50 ms apart
// resending the packet sent 30 ms before. lostBefore drops srtpLost before the capture
// point (a capture at bob's side); else the capture is at alice's, before the loss.
func srtpRTXCall(t *testing.T, lostBefore bool) []byte {
	t.Helper()
	return pcapOf(t, srtpRTXPackets(lostBefore))
}

// srtpRTXPackets are the frames of srtpRTXCall.
func srtpRTXPackets(lostBefore bool) []callgen.Packet {
	video := srtpVideo(0xE1, 1_000_000, 1)
	lost := map[int]bool{}
	for _, i := range srtpLost {
		lost[i] = true
	}
	if lostBefore {
		video.Lose = func(i int) bool { return lost[i] }
	}
	r := callgen.RTX{SSRC: 0xE2, PT: 97, Fill: srtpFill(2)}
	seq := uint16(7000)
	send := func(x callgen.RTXSend) {
		x.Seq = seq
		seq++
		r.Sends = append(r.Sends, x)
	}
	for k := 0; k < 10; k++ {
		send(callgen.RTXSend{I: 0, At: 200*time.Millisecond + time.Duration(k)*time.Millisecond, Pad: 224})
	}
	var rtcp []callgen.Packet
	for _, i := range srtpLost {
		sent := time.Duration(i) * video.Interval
		switch i {
		case 250:
			rtcp = append(rtcp, video.RTCPAt(sent+21*time.Millisecond, srtcpNACK(0xD1, 2)))
		case 251:
		default:
			rtcp = append(rtcp, video.RTCPAt(sent+20*time.Millisecond, srtcpNACK(0xD1, 1)))
		}
		send(callgen.RTXSend{I: i, At: sent + 45*time.Millisecond})
	}
	for k := 0; k < 20; k++ {
		at := 5*time.Second + time.Duration(k)*50*time.Millisecond
		send(callgen.RTXSend{I: int(at/video.Interval) - 3, At: at + time.Millisecond})
	}
	pkts := append(video.Packets(), video.RTXPackets(r)...)
	return append(pkts, rtcp...)
}

// srtpRTX is what the SRTP RTX tests assert, in one comparable value.
type srtpRTX struct {
	Kind, RTXOf, MatchedBy string
	Packets                int64
	Repairs, Probes        int64
	Timed                  bool // jitter, delay or late reported
	Lost, Recovered        int64
	DirRecovered           int64
}

func srtpRTXOf(c report.Capture, media, rtx uint32) srtpRTX {
	var f srtpRTX
	if r := streamBySSRC(c, rtx); r != nil {
		f.Kind, f.RTXOf, f.Packets = r.Kind, derefS(r.RTXOf), r.Packets
		if r.RTX != nil {
			f.MatchedBy, f.Repairs, f.Probes = string(r.RTX.MatchedBy), r.RTX.Repairs, r.RTX.Probes
		}
		f.Timed = r.JitterMS != nil || r.DelayMS != nil || r.Late != nil
	}
	if m := streamBySSRC(c, media); m != nil {
		f.Lost, f.Recovered = deref(m.Lost), deref(m.RecoveredByRTX)
		for _, d := range c.Directions {
			if d.From == m.Src {
				f.DirRecovered = d.Loss.RecoveredByRTX
			}
		}
	}
	return f
}

// TestSRTPRTXRepairsAtTheReceiver: captured at bob's side, after the loss: the RTX stream,
// whose OSNs are random bytes, is matched by its timestamps; each of its 7 resent packets
// falls in a frame with a hole, so it is a repair and the hole is recovered; the 10
// padding-only and 20 resending probes are probes.
func TestSRTPRTXRepairsAtTheReceiver(t *testing.T) {
	c := analyze(t, srtpRTXCall(t, true), Options{})
	got := srtpRTXOf(c, 0xE1, 0xE2)
	want := srtpRTX{Kind: "rtx", RTXOf: "0x000000e1", MatchedBy: "timestamp", Packets: 37,
		Repairs: 7, Probes: 30, Lost: 7, Recovered: 7, DirRecovered: 7}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
}

// TestSRTPRTXRepairsAtTheSender: captured at alice's side, before the loss: the video
// lost nothing here, and the 7 repairs are told by bob's encrypted NACKs (their clear
// length counts 7 FCI entries); nothing was recovered here, since nothing was lost here.
func TestSRTPRTXRepairsAtTheSender(t *testing.T) {
	c := analyze(t, srtpRTXCall(t, false), Options{})
	got := srtpRTXOf(c, 0xE1, 0xE2)
	want := srtpRTX{Kind: "rtx", RTXOf: "0x000000e1", MatchedBy: "timestamp", Packets: 37,
		Repairs: 7, Probes: 30, Lost: 0, Recovered: 0, DirRecovered: 0}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
}

// TestSRTPRTXProbesOnly: libwebrtc probing at the start of a call, nothing lost, no NACK:
// 30 padding-only probes at 0.3 s whose timestamps are the first packet's, then from 1 s
// 40 probes 50 ms apart resending the packet sent 30 ms before. All 70 are probes.
func TestSRTPRTXProbesOnly(t *testing.T) {
	video := srtpVideo(0xE1, 1_000_000, 1)
	r := callgen.RTX{SSRC: 0xE2, PT: 97, Fill: srtpFill(2)}
	for k := 0; k < 30; k++ {
		r.Sends = append(r.Sends, callgen.RTXSend{I: 0, At: 300*time.Millisecond + time.Duration(k)*time.Millisecond,
			Seq: uint16(100 + k), Pad: 224})
	}
	for k := 0; k < 40; k++ {
		at := time.Second + time.Duration(k)*50*time.Millisecond
		r.Sends = append(r.Sends, callgen.RTXSend{I: int(at/video.Interval) - 3, At: at + time.Millisecond, Seq: uint16(130 + k)})
	}
	c := analyze(t, pcapOf(t, append(video.Packets(), video.RTXPackets(r)...)), Options{})
	got := srtpRTXOf(c, 0xE1, 0xE2)
	want := srtpRTX{Kind: "rtx", RTXOf: "0x000000e1", MatchedBy: "timestamp", Packets: 70,
		Repairs: 0, Probes: 70, Lost: 0, Recovered: 0}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
}

// simulcastRTXCall: alice sends two SRTP video layers of one payload type (96), 0xF1 with
// timestamps from 1,000,000 and 0xF2 from ts2, and two RTX streams of PT 97, 0xF3
// resending 0xF2's packets and 0xF4 resending 0xF1's: 20 probes each, 50 ms apart from 1 s.
func simulcastRTXCall(t *testing.T, ts2 uint32) []byte {
	t.Helper()
	low, high := srtpVideo(0xF1, 1_000_000, 1), srtpVideo(0xF2, ts2, 3)
	high.StartSeq = 9000
	probes := func(ssrc uint32, seq0 uint16, offset time.Duration) callgen.RTX {
		r := callgen.RTX{SSRC: ssrc, PT: 97, Fill: srtpFill(uint64(ssrc))}
		for k := 0; k < 20; k++ {
			at := time.Second + time.Duration(k)*50*time.Millisecond + offset
			r.Sends = append(r.Sends, callgen.RTXSend{I: int(at/low.Interval) - 3, At: at + time.Millisecond, Seq: seq0 + uint16(k)})
		}
		return r
	}
	pkts := append(low.Packets(), high.Packets()...)
	pkts = append(pkts, high.RTXPackets(probes(0xF3, 500, 0))...)
	pkts = append(pkts, low.RTXPackets(probes(0xF4, 900, 20*time.Millisecond))...)
	return pcapOf(t, pkts)
}

// TestSRTPRTXSimulcast: two layers with their own random timestamp offsets: each RTX
// stream is elected by the layer whose timestamps it carries.
func TestSRTPRTXSimulcast(t *testing.T) {
	c := analyze(t, simulcastRTXCall(t, 3_000_000_000), Options{})
	for _, tt := range []struct{ media, rtx uint32 }{{0xF2, 0xF3}, {0xF1, 0xF4}} {
		got := srtpRTXOf(c, tt.media, tt.rtx)
		want := srtpRTX{Kind: "rtx", RTXOf: fmt.Sprintf("0x%08x", tt.media), MatchedBy: "timestamp", Packets: 20, Probes: 20}
		if got != want {
			t.Errorf("0x%x figures\n got %+v\nwant %+v", tt.rtx, got, want)
		}
	}
}

// TestSRTPRTXSimulcastSharedClock: two layers sharing their timestamps (as some senders
// do): the timestamps cannot tell which layer an RTX stream resends, so neither is RTX.
func TestSRTPRTXSimulcastSharedClock(t *testing.T) {
	c := analyze(t, simulcastRTXCall(t, 1_000_000), Options{})
	for _, ssrc := range []uint32{0xF3, 0xF4} {
		if s := streamBySSRC(c, ssrc); s != nil && (s.Kind == "rtx" || s.RTXOf != nil) {
			t.Errorf("0x%x: kind %s rtx_of %s, want no RTX match", ssrc, s.Kind, derefS(s.RTXOf))
		}
	}
}

// TestClearRTXMatchedByOSN: where payloads are clear, the OSNs elect, as before, and say
// so (the figures are TestSparseRTX's and TestLibwebrtcRTX's).
func TestClearRTXMatchedByOSN(t *testing.T) {
	for name, data := range map[string][]byte{"sparse": sparseRTXCall(t), "libwebrtc": libwebrtcCall(t)} {
		c := analyze(t, data, Options{})
		n := 0
		for _, s := range c.Streams {
			if s.Kind == "rtx" {
				n++
				if s.RTX == nil || s.RTX.MatchedBy != report.RTXByOSN {
					t.Errorf("%s: %s rtx %+v, want matched_by osn", name, s.SSRC, s.RTX)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d rtx streams, want 1", name, n)
		}
	}
}

// TestSRTPRTXFrameLostWhole: the three packets of one frame (600-602, timestamp
// 1,000,000 + 200×2,700) are lost before the capture, as a TURN-over-TCP sender drops a
// burst; their RTX packets carry a timestamp the video never showed, between two frames
// with numbers missing between them: 3 repairs, 3 recovered.
func TestSRTPRTXFrameLostWhole(t *testing.T) {
	video := srtpVideo(0xE1, 1_000_000, 1)
	video.Lose = func(i int) bool { return i >= 600 && i <= 602 }
	r := callgen.RTX{SSRC: 0xE2, PT: 97, Fill: srtpFill(2)}
	for k, i := range []int{600, 601, 602} {
		r.Sends = append(r.Sends, callgen.RTXSend{I: i, At: 6100*time.Millisecond + time.Duration(k)*time.Millisecond, Seq: uint16(50 + k)})
	}
	c := analyze(t, pcapOf(t, append(video.Packets(), video.RTXPackets(r)...)), Options{})
	got := srtpRTXOf(c, 0xE1, 0xE2)
	want := srtpRTX{Kind: "rtx", RTXOf: "0x000000e1", MatchedBy: "timestamp", Packets: 3,
		Repairs: 3, Probes: 0, Lost: 3, Recovered: 3, DirRecovered: 3}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
}

// TestSRTPRTXOfNoStream: a sender starts both its streams' timestamps at 0 (a game
// streaming service's capture): one packet of payload type 63, then 13 of payload type 96,
// numbered 0 to 12, all of timestamp 0, encrypted. The 13 match the one by timestamp, the
// only evidence an RTX stream of SRTP leaves, but that one packet is no stream: the 13 are
// a stream of their own. Before, they were its RTX stream, and reported with it: not at all.
func TestSRTPRTXOfNoStream(t *testing.T) {
	one := callgen.Stream{Src: alice, Dst: bob, SSRC: 1, PT: 63, ClockRate: 90000, Interval: 10 * time.Millisecond,
		PayloadSize: 200, Count: 1, TS: func(int) uint32 { return 0 }, Fill: srtpFill(1)}
	thirteen := callgen.Stream{Src: alice, Dst: bob, SSRC: 2, PT: 96, ClockRate: 90000, Interval: 10 * time.Millisecond,
		PayloadSize: 200, Count: 13, Start: 5 * time.Millisecond, TS: func(int) uint32 { return 0 }, Fill: srtpFill(2)}
	c := analyze(t, pcapOf(t, append(one.Packets(), thirteen.Packets()...)), Options{})
	if len(c.Streams) != 1 {
		t.Fatalf("%d streams, want the 13 packets' one", len(c.Streams))
	}
	s := c.Streams[0]
	if s.SSRC != "0x00000002" || s.Packets != 13 || s.RTXOf != nil || s.Lost == nil || *s.Lost != 0 {
		t.Errorf("stream %s: %d packets, rtx_of %v, lost %v; want 0x00000002, 13, null, 0", s.SSRC, s.Packets, s.RTXOf, s.Lost)
	}
}

// TestPionRepeatedRTX: pion numbers an RTX packet when it buffers the original (its RTX
// sequence number is the original's index here, 5000 + i) and resends it under that number
// every 100 ms for as long as its receiver asks, which pion's does for 5 s, since it never
// counts the repair. Captured at the receiver: SRTP video (srtpVideo) loses packets 300,
// 600, 900 and 1200, each resent 50 times from 40 ms after it. The copies of one packet
// keep coming after the next one's first: its number goes back 300, which RFC 3550 A.1
// holds on probation, and those copies, resending a frame long gone from the video's
// recent ones, voted against the video. The RTX stream was left out of the report; it is
// the video's, matched by timestamps, and the 4 losses are recovered.
func TestPionRepeatedRTX(t *testing.T) {
	video := srtpVideo(0xE1, 1_000_000, 1)
	lost := []int{300, 600, 900, 1200}
	video.Lose = func(i int) bool { return slices.Contains(lost, i) }
	r := callgen.RTX{SSRC: 0xE2, PT: 97, Fill: srtpFill(2)}
	for _, i := range lost {
		for k := range 50 {
			at := time.Duration(i)*video.Interval + 40*time.Millisecond + time.Duration(k)*100*time.Millisecond
			r.Sends = append(r.Sends, callgen.RTXSend{I: i, At: at, Seq: uint16(5000 + i)})
		}
	}
	c := analyze(t, pcapOf(t, append(video.Packets(), video.RTXPackets(r)...)), Options{})
	x := streamBySSRC(c, 0xE2)
	if x == nil || x.RTX == nil || derefS(x.RTXOf) != "0x000000e1" || string(x.RTX.MatchedBy) != "timestamp" || x.Packets != 200 {
		t.Fatalf("rtx stream %+v, want the video's, matched by timestamps, of 200 packets", x)
	}
	if v := streamBySSRC(c, 0xE1); v == nil || deref(v.Lost) != 4 || v.RecoveredByRTX == nil || *v.RecoveredByRTX != 4 {
		t.Errorf("video %+v, want 4 lost, 4 recovered by RTX", v)
	}
}

// TestSRTPRTXMidCall: a capture that begins 6 s into srtpVideo while pion resends, every
// 100 ms for a second, ten packets it sent a second or more before (I 100, 150, ..., 550):
// their timestamps are behind the video's and in none of its recent frames, and pion
// numbers each RTX packet when it buffers the original (StartSeq+I+1982), so the RTX
// stream skips 50 numbers a packet and repeats them. It is the video's RTX stream (before:
// a media stream of kind unknown, and "441 of 1,351 media packets were lost (33%)", bad),
// the video lost nothing, and the 100 RTX packets are 10 probes and 90 duplicates.
func TestSRTPRTXMidCall(t *testing.T) {
	video := srtpVideo(0xE1, 1_000_000, 1)
	var pkts []callgen.Packet
	for _, p := range video.Packets() {
		if p.T >= callgen.Epoch+int64(6*time.Second) {
			pkts = append(pkts, p)
		}
	}
	r := callgen.RTX{SSRC: 0xE2, PT: 97, Fill: srtpFill(2)}
	for round := range 10 {
		for k := range 10 {
			i := 100 + 50*k
			r.Sends = append(r.Sends, callgen.RTXSend{I: i, Seq: video.StartSeq + uint16(i) + 1982,
				At: 6*time.Second + time.Duration(round)*100*time.Millisecond + time.Duration(k)*100*time.Microsecond})
		}
	}
	c := analyze(t, pcapOf(t, append(pkts, video.RTXPackets(r)...)), Options{})
	got := srtpRTXOf(c, 0xE1, 0xE2)
	want := srtpRTX{Kind: "rtx", RTXOf: "0x000000e1", MatchedBy: "timestamp", Packets: 100, Probes: 10}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
	for _, f := range c.Findings {
		if f.Severity != report.SeverityInfo {
			t.Errorf("finding %s (%s): %s", f.Code, f.Severity, f.Text)
		}
	}
}

// TestSRTPRTXRepairBehindALatePacket: srtpVideo captured at bob's side loses packet 1001,
// the last of its frame; packet 995 of an earlier frame, held 65 ms, arrives between that
// loss and the next frame's first packet; the RTX stream (OSNs encrypted) resends 1001 45
// ms after it was sent. The late packet no longer opens a frame of its own among the
// video's recent frames, which cut the frame of 1001 short: the resend is a repair, and
// 1001 is recovered (before: a probe, and 0 recovered, as in a real pion capture's 43 of 44).
func TestSRTPRTXRepairBehindALatePacket(t *testing.T) {
	video := srtpVideo(0xE1, 1_000_000, 1)
	video.Lose = func(i int) bool { return i == 1001 }
	video.Delay = func(i int) time.Duration {
		if i == 995 {
			return 65 * time.Millisecond
		}
		return 0
	}
	r := callgen.RTX{SSRC: 0xE2, PT: 97, Fill: srtpFill(2),
		Sends: []callgen.RTXSend{{I: 1001, At: 1001*video.Interval + 45*time.Millisecond, Seq: 7000}}}
	pkts := append(video.Packets(), video.RTXPackets(r)...)
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	c := analyze(t, pcapOf(t, pkts), Options{})
	got := srtpRTXOf(c, 0xE1, 0xE2)
	want := srtpRTX{Kind: "rtx", RTXOf: "0x000000e1", MatchedBy: "timestamp", Packets: 1,
		Repairs: 1, Lost: 1, Recovered: 1, DirRecovered: 1}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
}
