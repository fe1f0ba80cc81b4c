package analysis

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/report"
)

// streamBySSRC returns the stream of c with SSRC ssrc (nil: none).
func streamBySSRC(c report.Capture, ssrc uint32) *report.Stream {
	want := fmt.Sprintf("0x%08x", ssrc)
	for i := range c.Streams {
		if c.Streams[i].SSRC == want {
			return &c.Streams[i]
		}
	}
	return nil
}

// rtxFigures is what the RTX tests assert, in one comparable value.
type rtxFigures struct {
	RTXKind, RTXOf          string
	Repairs, Probes         int64
	RTXJitter, RTXDelay     bool
	Lost, Recovered         int64
	DirLost, DirRecovered   int64
	DirDelayMaxMS           float64
	NACKed, NACKs, PLI      int64 // on the video stream
	CalleeNACKs, CalleePLIs int64 // on the callee's own stream
	Finding                 string
}

func rtxFiguresOf(c report.Capture, video, rtx, callee uint32) rtxFigures {
	var f rtxFigures
	if r := streamBySSRC(c, rtx); r != nil {
		f.RTXKind, f.RTXOf = r.Kind, derefS(r.RTXOf)
		if r.RTX != nil {
			f.Repairs, f.Probes = r.RTX.Repairs, r.RTX.Probes
		}
		f.RTXJitter, f.RTXDelay = r.JitterMS != nil, r.DelayMS != nil
	}
	if v := streamBySSRC(c, video); v != nil {
		f.Lost, f.Recovered = deref(v.Lost), deref(v.RecoveredByRTX)
		if v.RTCP != nil {
			f.NACKed, f.NACKs, f.PLI = deref(v.RTCP.NACKedPackets), v.RTCP.Types["nack"], v.RTCP.PLI
		}
		for _, d := range c.Directions {
			if d.From != v.Src {
				continue
			}
			f.DirLost, f.DirRecovered = d.Loss.Lost, d.Loss.RecoveredByRTX
			if d.DelayMS != nil {
				f.DirDelayMaxMS = d.DelayMS.Max
			}
		}
	}
	if s := streamBySSRC(c, callee); s != nil && s.RTCP != nil {
		f.CalleeNACKs, f.CalleePLIs = s.RTCP.Types["nack"], s.RTCP.PLI
	}
	for _, fd := range c.Findings {
		if fd.Code == report.FindingRTPLoss {
			f.Finding = fd.Text
		}
	}
	return f
}

func derefS(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// sparseRTXCall is a 40 s call from alice to bob as pion sends it: video (0xA1, PT 96,
// 100 packets a second, 4,000 packets) loses 20 packets (0.5%), each resent 60 ms later on
// the RTX stream (0xA2, PT 97), whose sequence numbers follow the media packets pion
// buffered, so that they jump by 38 to 337 between repairs; and 40 s of audio (0xA3).
func sparseRTXCall(t *testing.T) []byte {
	t.Helper()
	video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xA1, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 4000, StartSeq: 20000, StartTS: 1}
	gaps := []int{38, 337, 150, 212, 97, 180, 260, 45, 300, 120, 75, 230, 199, 64, 310, 140, 88, 250, 170}
	lost := map[int]bool{150: true}
	r := callgen.RTX{SSRC: 0xA2, PT: 97}
	i := 150
	for k := 0; ; k++ {
		r.Sends = append(r.Sends, callgen.RTXSend{I: i, At: time.Duration(i)*video.Interval + 60*time.Millisecond, Seq: uint16(5000 + i)})
		if k == len(gaps) {
			break
		}
		i += gaps[k]
		lost[i] = true
	}
	video.Lose = func(i int) bool { return lost[i] }
	audio := audio()
	audio.SSRC, audio.Count = 0xA3, 2000
	pkts := append(video.Packets(), video.RTXPackets(r)...)
	return pcapOf(t, append(pkts, audio.Packets()...))
}

// TestSparseRTX: the sparse RTX stream is recognized by its OSNs, not by its own
// sequence numbers, and its 20 repairs are credited to the video stream.
func TestSparseRTX(t *testing.T) {
	c := analyze(t, sparseRTXCall(t), Options{})
	got := rtxFiguresOf(c, 0xA1, 0xA2, 0)
	want := rtxFigures{RTXKind: "rtx", RTXOf: "0x000000a1", Repairs: 20, Probes: 0,
		Lost: 20, Recovered: 20, DirLost: 20, DirRecovered: 20,
		Finding: "10.0.0.1:40000 -> 198.51.100.9:50000: 20 of 6,000 media packets were lost (0.3%), 20 of them repaired by retransmission (RTX)."}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
}

// libwebrtcLost are the video packets lost before the capture point in libwebrtcCall;
// none is a multiple of 5, which the probes resend.
var libwebrtcLost = []int{203, 451, 602, 804, 1001, 1203, 1402, 1604, 1801, 1903}

// libwebrtcCall is a 20 s call as Chromium sends it. alice's video (0xC1, PT 96, 2,000
// packets 10 ms apart) loses the 10 packets of libwebrtcLost. Its RTX stream (0xC2, PT
// 97, numbered one by one) carries 30 padding-only probes at 0.3 s, then from 1 s a probe
// every 50 ms (370) resending the video packet sent 200 ms before, which the receiver has,
// and 11 repairs: the 10 losses, each NACKed by bob 15 ms after it was sent and resent 30
// ms after it, and packet 1502, which the capture saw but bob NACKed (lost after the
// capture point). bob's NACKs are compound RTCP (a receiver report about the video, then
// the NACK) from bob's audio SSRC 0xD1; bob also sends 2 PLIs naming the video. bob's audio
// (0xD1, 1,000 packets) flows back to alice.
func libwebrtcCall(t *testing.T) []byte {
	t.Helper()
	video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xC1, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 2000, StartSeq: 30000, StartTS: 1}
	lost := map[int]bool{}
	for _, i := range libwebrtcLost {
		lost[i] = true
	}
	video.Lose = func(i int) bool { return lost[i] }
	back := audio()
	back.Src, back.Dst, back.SSRC, back.Count = bob, alice, 0xD1, 1000

	r := callgen.RTX{SSRC: 0xC2, PT: 97}
	send := rtxSender(&r, 100)
	for k := 0; k < 30; k++ {
		send(callgen.RTXSend{I: 0, At: 300*time.Millisecond + time.Duration(k)*time.Millisecond, Pad: 200})
	}
	repairs := append(append([]int(nil), libwebrtcLost...), 1502)
	var rtcp []callgen.Packet
	ri := 0
	for k := 0; k < 370; k++ {
		at := time.Second + time.Duration(k)*50*time.Millisecond
		for ri < len(repairs) && time.Duration(repairs[ri])*video.Interval+30*time.Millisecond < at {
			i := repairs[ri]
			sent := time.Duration(i) * video.Interval
			rtcp = append(rtcp, video.RTCPAt(sent+15*time.Millisecond,
				callgen.RTCPRR(0xD1, 0xC1), callgen.RTCPNACK(0xD1, 0xC1, video.StartSeq+uint16(i))))
			send(callgen.RTXSend{I: i, At: sent + 30*time.Millisecond})
			ri++
		}
		send(callgen.RTXSend{I: 80 + 5*k, At: at + 2*time.Millisecond})
	}
	rtcp = append(rtcp, video.RTCPAt(5*time.Second+3*time.Millisecond, callgen.RTCPPLI(0xD1, 0xC1)),
		video.RTCPAt(9*time.Second+3*time.Millisecond, callgen.RTCPPLI(0xD1, 0xC1)))
	if ri != len(repairs) || len(r.Sends) != 411 {
		t.Fatalf("generator: %d repairs sent, %d RTX packets", ri, len(r.Sends))
	}
	pkts := append(video.Packets(), video.RTXPackets(r)...)
	pkts = append(pkts, rtcp...)
	return pcapOf(t, append(pkts, back.Packets()...))
}

// TestLibwebrtcRTX: the probing RTX stream is kind rtx with 11 repairs and 400 probes,
// no jitter or delay of its own (it carries its originals' timestamps), so the
// direction's delay is the video's; bob's NACKs and PLIs count on alice's video.
func TestLibwebrtcRTX(t *testing.T) {
	c := analyze(t, libwebrtcCall(t), Options{})
	got := rtxFiguresOf(c, 0xC1, 0xC2, 0xD1)
	want := rtxFigures{RTXKind: "rtx", RTXOf: "0x000000c1", Repairs: 11, Probes: 400,
		Lost: 10, Recovered: 10, DirLost: 10, DirRecovered: 10, DirDelayMaxMS: 0,
		NACKed: 11, NACKs: 11, PLI: 2,
		Finding: "10.0.0.1:40000 -> 198.51.100.9:50000: 10 of 2,000 media packets were lost (0.5%), 10 of them repaired by retransmission (RTX)."}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
	if r := streamBySSRC(c, 0xC2); r == nil || r.Late != nil || r.Lost != nil || r.Packets != 411 {
		t.Errorf("rtx stream %+v", r)
	}

	if !strings.Contains(got.Finding, "repaired") {
		t.Errorf("finding %q", got.Finding)
	}
}

// TestNACKAnswered: GStreamer's rtpbin asks again by NACK for 10 of alice's 1,000 video
// packets (0xE1), and each is resent 30 ms after the NACK on the RTX stream (0xE2): all 10
// are repairs (DESIGN: an RTX packet whose OSN was NACKed), never probes.
//   - Captured at alice, with bob's RTCP on the port above his RTP's (RFC 3550 11, no
//     rtcp-mux), a flow of its own: the 10 were lost after the capture point, and the NACKs,
//     counted on the video, did not reach its sequence numbers: 10 probes.
//   - Captured at bob, with rtcp-mux, whose jitter buffer NACKs each of the 10 when it is
//     due, 5 ms after it was sent, before any later packet came (the path delivers it 25
//     ms late, after two more): the NACK was above the highest number received and was not
//     remembered, and the original came before the RTX: 10 probes.
func TestNACKAnswered(t *testing.T) {
	nacked := []int{100, 200, 300, 400, 500, 600, 700, 800, 900, 950}
	for _, atSender := range []bool{true, false} {
		video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xE1, PT: 96, ClockRate: 90000,
			Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 1000, StartSeq: 7000, StartTS: 1}
		r := callgen.RTX{SSRC: 0xE2, PT: 97}
		var rtcp []callgen.Packet
		bobRTCP, aliceRTCP := bob, alice
		if atSender {
			bobRTCP, aliceRTCP = netip.AddrPortFrom(bob.Addr(), bob.Port()+1), netip.AddrPortFrom(alice.Addr(), alice.Port()+1)
		}
		held := map[int]bool{}
		for k, i := range nacked {
			sent := time.Duration(i) * video.Interval
			nack := append(callgen.RTCPRR(0xF1, 0xE1), callgen.RTCPNACK(0xF1, 0xE1, video.StartSeq+uint16(i))...)
			rtcp = append(rtcp, callgen.Packet{T: callgen.Epoch + int64(sent+5*time.Millisecond),
				Frame: pcapgen.EtherUDP(bobRTCP, aliceRTCP, nack)})
			r.Sends = append(r.Sends, callgen.RTXSend{I: i, At: sent + 35*time.Millisecond, Seq: uint16(100 + k)})
			held[i] = true
		}
		if !atSender {
			video.Delay = func(i int) time.Duration {
				if held[i] {
					return 25 * time.Millisecond
				}
				return 0
			}
		}
		pkts := append(video.Packets(), video.RTXPackets(r)...)
		c := analyze(t, pcapOf(t, append(pkts, rtcp...)), Options{})
		x := streamBySSRC(c, 0xE2)
		if x == nil || x.RTX == nil || x.RTX.Repairs != 10 || x.RTX.Probes != 0 || derefS(x.RTXOf) != "0x000000e1" {
			t.Errorf("at sender %v: rtx stream %+v, want the video's with 10 repairs, no probe", atSender, x)
			continue
		}
		v := streamBySSRC(c, 0xE1)
		if v == nil || v.RTCP == nil || v.RTCP.Types["nack"] != 10 || deref(v.Lost) != 0 {
			t.Errorf("at sender %v: video %+v, want 10 NACKs counted and nothing lost", atSender, v)
		}
	}
}

// rtxSender returns a function that adds a send to r, numbered one by one from seq, as
// libwebrtc numbers its RTX packets.
func rtxSender(r *callgen.RTX, seq uint16) func(callgen.RTXSend) {
	return func(x callgen.RTXSend) {
		x.Seq = seq
		seq++
		r.Sends = append(r.Sends, x)
	}
}

// TestRTXClockIsItsMedia's: an RTX stream runs on its original's clock and carries its
// timestamps (RFC 4588, 4), so its clock rate is its video's, whatever its own first second
// suggests. Here that second holds two repairs (video packets 100 and 101, resent 40 ms
// after them) and then, a second later, a burst of 20 probes 1 ms apart resending packets
// 150 to 169: timestamp over time then reads about 55 kHz, closest to 48000.
func TestRTXClockIsItsMedia(t *testing.T) {
	video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xC1, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 1000, StartSeq: 100, StartTS: 7}
	lost := []int{100, 101, 300, 500, 700, 800, 900}
	video.Lose = func(i int) bool { return slices.Contains(lost, i) }
	r := callgen.RTX{SSRC: 0xC2, PT: 97}
	send := rtxSender(&r, 100)
	send(callgen.RTXSend{I: 100, At: 1040 * time.Millisecond})
	send(callgen.RTXSend{I: 101, At: 1050 * time.Millisecond})
	for j := range 20 {
		send(callgen.RTXSend{I: 150 + j, At: 2000500*time.Microsecond + time.Duration(j)*time.Millisecond})
	}
	for _, i := range lost[2:] {
		send(callgen.RTXSend{I: i, At: time.Duration(i)*video.Interval + 40*time.Millisecond})
	}
	slices.SortFunc(r.Sends, func(a, b callgen.RTXSend) int { return cmp.Compare(a.At, b.At) })
	c := analyze(t, pcapOf(t, append(video.Packets(), video.RTXPackets(r)...)), Options{})
	x := streamBySSRC(c, 0xC2)
	if x == nil || derefS(x.RTXOf) != "0x000000c1" || x.ClockRate == nil || *x.ClockRate != 90000 || !x.ClockRateInferred {
		t.Fatalf("rtx stream %+v, want the RTX of 0xc1 with its clock, 90000 inferred", x)
	}
}

// srtcpFeedback is an SRTCP packet (RFC 3711 3.4) whose clear header says a feedback
// packet of type pt and format fmt from sender: its media SSRC and FCI are encrypted (8
// opaque bytes), then the E flag and index, and a 10-byte authentication tag.
func srtcpFeedback(pt, fmtN byte, sender uint32) []byte {
	b := []byte{0x80 | fmtN, pt, 0, 3, byte(sender >> 24), byte(sender >> 16), byte(sender >> 8), byte(sender)}
	b = append(b, 0x3c, 0x91, 0x07, 0xe2, 0x5a, 0x18, 0xc4, 0x6d) // encrypted media SSRC and FCI
	b = append(b, 0x80, 0, 0, 1)                                  // E=1, SRTCP index 1
	return append(b, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66)
}

// TestEncryptedFeedbackGoesToTheVideo: bob sends 3 NACKs and 2 PLIs as SRTCP from his
// audio SSRC 0xD1; their media SSRC is encrypted, and the one video stream travelling the
// other way, alice's 0xC1, is what they are about. bob's own stream gets none of them.
func TestEncryptedFeedbackGoesToTheVideo(t *testing.T) {
	c := analyze(t, pcapOf(t, feedbackCall(false)), Options{})
	got := rtxFiguresOf(c, 0xC1, 0, 0xD1)
	if got.NACKs != 3 || got.PLI != 2 || got.CalleeNACKs != 0 || got.CalleePLIs != 0 {
		t.Errorf("video nack %d pli %d, callee nack %d pli %d; want 3, 2, 0, 0", got.NACKs, got.PLI, got.CalleeNACKs, got.CalleePLIs)
	}
	if v := streamBySSRC(c, 0xC1); v == nil || v.RTCP == nil || !v.RTCP.Encrypted || v.RTCP.Packets != 5 {
		t.Errorf("video rtcp %+v", v)
	} else if v.RTCP.NACKedPackets != nil {
		// Three NACKs counted by type, their lists of packets encrypted: not 0, null.
		t.Errorf("nacked_packets %d from encrypted NACKs, want null", *v.RTCP.NACKedPackets)
	}
}

// TestEncryptedFeedbackUnattributed: two video streams travel alice → bob, so which one
// bob's 4 SRTCP NACKs are about cannot be told. They go to neither, and a warning says so.
func TestEncryptedFeedbackUnattributed(t *testing.T) {
	v1 := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xC1, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 500, StartSeq: 30000, StartTS: 1}
	v2 := v1
	v2.SSRC, v2.StartSeq = 0xC3, 500
	back := audio()
	back.Src, back.Dst, back.SSRC, back.Count = bob, alice, 0xD1, 250
	pkts := append(append(v1.Packets(), v2.Packets()...), back.Packets()...)
	for k := 0; k < 4; k++ {
		pkts = append(pkts, v1.RTCPAt(time.Duration(k+1)*500*time.Millisecond, srtcpFeedback(205, 1, 0xD1)))
	}
	c := analyze(t, pcapOf(t, pkts), Options{})
	for _, ssrc := range []uint32{0xC1, 0xC3} {
		if v := streamBySSRC(c, ssrc); v == nil || v.RTCP != nil && v.RTCP.Packets != 0 {
			t.Errorf("video %#x rtcp %+v, want no feedback", ssrc, v)
		}
	}
	wantWarningPrefix(t, c, "4 encrypted feedback messages (NACK, PLI, FIR) could not be given to a video stream")
}

// wantWarningPrefix fails t unless one of c's warnings starts with want.
func wantWarningPrefix(t *testing.T, c report.Capture, want string) {
	t.Helper()
	for _, w := range c.Warnings {
		if strings.HasPrefix(w, want) {
			return
		}
	}
	t.Errorf("warnings %q, want one starting %q", c.Warnings, want)
}

// TestEncryptedRTCPOfNoStream: bob only receives, and sends his SRTCP as SSRC 1 (as
// libwebrtc does with nothing to send): 3 receiver reports, 2 REMB and 4 transport-cc
// feedback packets. Their clear headers name only bob's SSRC, which sent no stream, and
// what they are about is encrypted: alice's video gets none of them, and a warning counts
// them by type, in the report's order of types. They used to vanish without a word.
func TestEncryptedRTCPOfNoStream(t *testing.T) {
	video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xC1, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 500, StartSeq: 30000, StartTS: 1}
	pkts := video.Packets()
	var k time.Duration
	add := func(n int, pt, fmtN byte) {
		for range n {
			k++
			pkts = append(pkts, video.RTCPAt(k*400*time.Millisecond, srtcpFeedback(pt, fmtN, 1)))
		}
	}
	add(4, 205, 15) // transport-cc (RTPFB, FMT 15)
	add(3, 201, 0)  // receiver report, no blocks in the clear
	add(2, 206, 15) // REMB (PSFB, FMT 15: application layer feedback)
	c := analyze(t, pcapOf(t, pkts), Options{})
	if v := streamBySSRC(c, 0xC1); v == nil || v.RTCP != nil {
		t.Errorf("video %+v, want no RTCP", v)
	}
	wantWarningPrefix(t, c, "9 encrypted RTCP packets (3 rr, 2 remb, 4 twcc) came from SSRCs that sent no RTP stream here")
}

// TestRTXLongCall: a 200 s video call (0xE1, 40,000 packets 5 ms apart) loses 12 packets,
// 3,100 apart, each resent 30 ms later on an RTX stream (0xE2) that carries nothing else,
// so that it is elected only at the end of the capture, thousands of numbers past most
// repairs. The OSNs are taken where they fell when the RTX packets came: 12 recovered
// (before, the election placed them anew, nearest the last number: none recovered of 12
// in the first 6 s). Numbered as pion numbers them when repairs are rare, 3,100 apart
// (every packet it buffered in between), each RTX packet is a very large jump ahead of the
// one before, held on probation, and still votes: 12 repairs (before: 1, and 11 probes).
func TestRTXLongCall(t *testing.T) {
	for _, tt := range []struct {
		name         string
		first, apart int    // the first lost packet, and how far apart the losses are
		rtxSeqStride uint16 // between RTX packets
	}{
		{"in the first 6 s, numbered one by one", 100, 100, 1},
		{"3,100 apart, numbered as pion does", 600, 3100, 3100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xE1, PT: 96, ClockRate: 90000,
				Interval: 5 * time.Millisecond, PayloadSize: 100, Count: 40000, StartSeq: 60000, StartTS: 1}
			lost := map[int]bool{}
			r := callgen.RTX{SSRC: 0xE2, PT: 97}
			for k := range 12 {
				i := tt.first + tt.apart*k
				lost[i] = true
				r.Sends = append(r.Sends, callgen.RTXSend{I: i, At: time.Duration(i)*video.Interval + 30*time.Millisecond,
					Seq: 7 + uint16(k)*tt.rtxSeqStride})
			}
			video.Lose = func(i int) bool { return lost[i] }
			c := analyze(t, pcapOf(t, append(video.Packets(), video.RTXPackets(r)...)), Options{})
			got := rtxFiguresOf(c, 0xE1, 0xE2, 0)
			want := rtxFigures{RTXKind: "rtx", RTXOf: "0x000000e1", Repairs: 12, Lost: 12, Recovered: 12, DirLost: 12, DirRecovered: 12,
				Finding: "10.0.0.1:40000 -> 198.51.100.9:50000: 12 of 40,000 media packets were lost (0.03%), 12 of them repaired by retransmission (RTX)."}
			if got != want {
				t.Errorf("figures\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestEncryptedFeedbackOnTheRTCPPorts: TestEncryptedFeedbackGoesToTheVideo without
// rtcp-mux, as SIP with SDES SRTP sends it: bob's SRTCP goes between the RTP ports + 1, a
// flow and a leg of its own, where no stream travels. The one video between the same two
// addresses, alice's 0xC1, is what it is about. Before, the 5 went to no stream (h162).
func TestEncryptedFeedbackOnTheRTCPPorts(t *testing.T) {
	c := analyze(t, pcapOf(t, feedbackCall(true)), Options{})
	got := rtxFiguresOf(c, 0xC1, 0, 0xD1)
	if got.NACKs != 3 || got.PLI != 2 || got.CalleeNACKs != 0 || got.CalleePLIs != 0 {
		t.Errorf("video nack %d pli %d, callee nack %d pli %d; want 3, 2, 0, 0", got.NACKs, got.PLI, got.CalleeNACKs, got.CalleePLIs)
	}
}

// feedbackCall is alice's video 0xC1 to bob, bob's audio 0xD1 back, and bob's SRTCP about
// the video from 0xD1: 3 NACKs and 2 PLIs, on the RTP ports (rtcp-mux) or, with rtcpPorts,
// between the RTP ports + 1.
func feedbackCall(rtcpPorts bool) []callgen.Packet {
	video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xC1, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 500, StartSeq: 30000, StartTS: 1}
	back := audio()
	back.Src, back.Dst, back.SSRC, back.Count = bob, alice, 0xD1, 250
	pkts := append(video.Packets(), back.Packets()...)
	next := func(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr(), a.Port()+1) }
	for k := 0; k < 5; k++ {
		pt, fmtN := byte(205), byte(1) // generic NACK
		if k >= 3 {
			pt = 206 // PLI
		}
		at := time.Duration(k+1) * 500 * time.Millisecond
		p := video.RTCPAt(at, srtcpFeedback(pt, fmtN, 0xD1))
		if rtcpPorts {
			p.Frame = pcapgen.EtherUDP(next(bob), next(alice), srtcpFeedback(pt, fmtN, 0xD1))
		}
		pkts = append(pkts, p)
	}
	slices.SortStableFunc(pkts, func(a, b callgen.Packet) int { return cmp.Compare(a.T, b.T) })
	return pkts
}
