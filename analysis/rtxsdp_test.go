package analysis

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// sipWithSDP is a SIP message (start line, then the few header fields that matter here)
// from from whose SDP body is session-level lines with from's address, then section; LF
// line ends are turned into CRLF.
func sipWithSDP(start string, from netip.AddrPort, section string) []byte {
	body := strings.ReplaceAll(fmt.Sprintf("v=0\no=- 1 1 IN IP4 %[1]s\ns=-\nc=IN IP4 %[1]s\nt=0 0\n", from.Addr())+section,
		"\n", "\r\n")
	head := strings.ReplaceAll(fmt.Sprintf(`%s
Via: SIP/2.0/UDP %s:5060;branch=z9hG4bK74bf9
Call-ID: rtx-sdp-1
CSeq: 1 INVITE
Content-Type: application/sdp
Content-Length: %d

`, start, from.Addr(), len(body)), "\n", "\r\n")
	return []byte(head + body)
}

// rtxSDPCall is 5 s of alice's video (0xB1, PT 96, 500 packets 10 ms apart) to bob, which
// loses the packets lost (100 and 300 when nil), each resent 60 ms later on the RTX stream
// (0xB2, PT 97): 2 repairs are too few for the OSN vote (rtxMinVotes, 4). alice's audio (0xB3, PCMU) shares
// the path. invite is bob's offer (where bob receives: PT 97 is rtx, apt=96), ok alice's
// answer (what alice sends: ssrc-group:FID), each left out when empty; they come before
// the media.
func rtxSDPCall(t *testing.T, invite, ok string, lost ...int) []byte {
	t.Helper()
	video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xB1, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 500, StartSeq: 1000, StartTS: 1}
	if lost == nil {
		lost = []int{100, 300}
	}
	r := callgen.RTX{SSRC: 0xB2, PT: 97}
	for k, i := range lost {
		r.Sends = append(r.Sends, callgen.RTXSend{I: i, At: time.Duration(i)*video.Interval + 60*time.Millisecond, Seq: uint16(7 + k)})
	}
	video.Lose = func(i int) bool { return slices.Contains(lost, i) }
	au := audio()
	au.SSRC, au.Count = 0xB3, 250
	pkts := append(video.Packets(), video.RTXPackets(r)...)
	pkts = append(pkts, au.Packets()...)
	sip := func(at time.Duration, b []byte, src, dst netip.AddrPort) callgen.Packet {
		return callgen.Packet{T: callgen.Epoch + int64(at), Frame: pcapgen.EtherUDP(
			netip.AddrPortFrom(src.Addr(), 5060), netip.AddrPortFrom(dst.Addr(), 5060), b)}
	}
	if invite != "" {
		pkts = append(pkts, sip(-20*time.Millisecond, sipWithSDP("INVITE sip:alice@10.0.0.1 SIP/2.0", bob, invite), bob, alice))
	}
	if ok != "" {
		pkts = append(pkts, sip(-10*time.Millisecond, sipWithSDP("SIP/2.0 200 OK", alice, ok), alice, bob))
	}
	return pcapOf(t, pkts)
}

const (
	// rtxOffer is bob's video section: VP8 on 96, its RTX on 97 (RFC 4588, 8.1).
	rtxOffer = "m=video 50000 RTP/AVPF 96 97 0\na=rtpmap:96 VP8/90000\na=rtpmap:97 rtx/90000\na=fmtp:97 apt=96\n"
	// offerNoAPT is the same section without the fmtp.
	offerNoAPT = "m=video 50000 RTP/AVPF 96 97 0\na=rtpmap:96 VP8/90000\na=rtpmap:97 rtx/90000\n"
	// fidAnswer is alice's video section: 0xB2 (178) repairs 0xB1 (177).
	fidAnswer = "m=video 40000 RTP/AVPF 96 97 0\na=ssrc-group:FID 177 178\na=ssrc:177 cname:a\na=ssrc:178 cname:a\n"
)

// TestRTXFromSDP: an RTX stream with only 2 repairs is linked by signalling (apt=, FID, or
// both) and its repairs credited; without signalling it stays a stream too short to be
// reported, its packets unlinked, as before signalling was read. An FID naming the audio
// SSRC is taken over the OSNs, which name nothing here (2 votes): no warning.
func TestRTXFromSDP(t *testing.T) {
	type figures struct {
		RTXKind, RTXOf  string
		Repairs, Probes int64
		Lost, Recovered int64 // of the video; recovered_by_rtx null: -1
		VideoRecovered  bool
		Streams         int
		Warnings        int
	}
	tests := []struct {
		name       string
		invite, ok string
		want       figures
	}{
		{"apt and fid", rtxOffer, fidAnswer, figures{"rtx", "0x000000b1", 2, 0, 2, 2, true, 3, 0}},
		{"apt only", rtxOffer, "", figures{"rtx", "0x000000b1", 2, 0, 2, 2, true, 3, 0}},
		{"fid only", offerNoAPT, fidAnswer, figures{"rtx", "0x000000b1", 2, 0, 2, 2, true, 3, 0}},
		// Without signalling (or with rtpmap but no apt): 2 OSN votes decide nothing; the
		// 2-packet stream is below the stream rule and not reported.
		{"no sdp", "", "", figures{"", "", 0, 0, 2, -1, false, 2, 0}},
		{"rtpmap rtx without apt", offerNoAPT, "", figures{"", "", 0, 0, 2, -1, false, 2, 0}},
		// The FID says 0xB2 repairs the audio: taken; the audio lost nothing, so both RTX
		// packets are probes, and the video's losses stay unrecovered.
		{"fid naming the audio", offerNoAPT, "m=video 40000 RTP/AVPF 96 97 0\na=ssrc-group:FID 179 178\n",
			figures{"rtx", "0x000000b3", 0, 2, 2, -1, false, 3, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := analyze(t, rtxSDPCall(t, tt.invite, tt.ok), Options{})
			var got figures
			if r := streamBySSRC(c, 0xB2); r != nil {
				got.RTXKind, got.RTXOf = r.Kind, derefS(r.RTXOf)
				if r.RTX != nil {
					got.Repairs, got.Probes = r.RTX.Repairs, r.RTX.Probes
					if r.RTX.MediaSSRC != got.RTXOf {
						t.Errorf("rtx.media_ssrc %s, rtx_of %s", r.RTX.MediaSSRC, got.RTXOf)
					}
				}
			}
			if v := streamBySSRC(c, 0xB1); v != nil {
				got.Lost, got.Recovered, got.VideoRecovered = deref(v.Lost), deref(v.RecoveredByRTX), v.RecoveredByRTX != nil
			}
			got.Streams, got.Warnings = len(c.Streams), len(c.Warnings)
			if got != tt.want {
				t.Errorf("figures\n got %+v\nwant %+v\nwarnings %q", got, tt.want, c.Warnings)
			}
		})
	}
}

// TestRTXFromSDPDisputed: 4 repairs of the video, enough for the OSN vote to elect it,
// while alice's FID says 0xB2 repairs the audio: the SDP is taken (rtx_of the audio, no
// repairs, 4 probes, the video's losses unrecovered) and a warning says the OSNs disagree.
// Without the FID the vote links it to the video, as before.
func TestRTXFromSDPDisputed(t *testing.T) {
	lost := []int{100, 200, 300, 400}
	c := analyze(t, rtxSDPCall(t, offerNoAPT, "m=video 40000 RTP/AVPF 96 97 0\na=ssrc-group:FID 179 178\n", lost...), Options{})
	r, v := streamBySSRC(c, 0xB2), streamBySSRC(c, 0xB1)
	if r == nil || r.RTX == nil || derefS(r.RTXOf) != "0x000000b3" || r.RTX.Repairs != 0 || r.RTX.Probes != 4 ||
		v == nil || deref(v.Lost) != 4 || v.RecoveredByRTX != nil {
		t.Fatalf("rtx %+v, video %+v", r, v)
	}
	want := []string{"stream s3 (SSRC 0x000000b2, 10.0.0.1:40000 -> 198.51.100.9:50000): SDP makes it the RTX stream of SSRC 0x000000b3, its original sequence numbers follow SSRC 0x000000b1; the SDP is taken"}
	if !slices.Equal(c.Warnings, want) {
		t.Errorf("warnings %q\nwant %q", c.Warnings, want)
	}

	c = analyze(t, rtxSDPCall(t, "", "", lost...), Options{})
	r, v = streamBySSRC(c, 0xB2), streamBySSRC(c, 0xB1)
	if r == nil || r.RTX == nil || derefS(r.RTXOf) != "0x000000b1" || r.RTX.Repairs != 4 || r.RTX.Probes != 0 ||
		v == nil || deref(v.Lost) != 4 || deref(v.RecoveredByRTX) != 4 || len(c.Warnings) != 0 {
		t.Fatalf("without sdp: rtx %+v, video %+v, warnings %q", r, v, c.Warnings)
	}
}
