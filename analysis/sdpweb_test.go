package analysis

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
)

// webrtcSDP is a WebRTC description as an application signals it before its candidates
// are gathered (c=0.0.0.0, port 9): its payload types, the sources its author sends
// (a=ssrc, decimal) and, with rtx, an FID pair of the video source and its RTX source.
func webrtcSDP(audioSSRC, videoSSRC, rtxSSRC uint32) string {
	s := fmt.Sprintf(`v=0
o=- 1 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1
m=audio 9 UDP/TLS/RTP/SAVPF 111 126
c=IN IP4 0.0.0.0
a=mid:0
a=rtpmap:111 opus/48000/2
a=rtpmap:126 telephone-event/8000
a=ssrc:%d cname:x
m=video 9 UDP/TLS/RTP/SAVPF 96 97
c=IN IP4 0.0.0.0
a=mid:1
a=rtpmap:96 VP8/90000
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
`, audioSSRC)
	if videoSSRC != 0 {
		s += fmt.Sprintf("a=ssrc-group:FID %d %d\na=ssrc:%d cname:x\na=ssrc:%d cname:x\n", videoSSRC, rtxSSRC, videoSSRC, rtxSSRC)
	}
	return strings.ReplaceAll(s, "\n", "\r\n")
}

// sessionJSON is an RTCSessionDescription as JSON.
func sessionJSON(t testing.TB, typ, sdp string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]string{"type": typ, "sdp": sdp})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signalling is alice's offer, POSTed as JSON over HTTP to a signalling server at 20 ms,
// and bob's answer, which the server sends alice over a WebSocket at 60 ms, in two
// fragments with a ping from alice (masked, as a client's frames are) between them.
func signalling(t testing.TB, offer, answer string) []callgen.Packet {
	t.Helper()
	server := netip.MustParseAddrPort("192.0.2.80:8080")
	post := sessionJSON(t, "offer", offer)
	http := callgen.TCPCall{Client: netip.MustParseAddrPort("10.0.0.1:51000"), Server: server,
		RTT: 10 * time.Millisecond, ISN: [2]uint32{1000, 9000}}
	pkts := http.Packets([]callgen.TCPWrite{
		{T: 20 * time.Millisecond, Data: []byte(fmt.Sprintf("POST /send?to=bob HTTP/1.1\r\nHost: sig\r\nContent-Type: text/plain;charset=UTF-8\r\nContent-Length: %d\r\n\r\n%s", len(post), post))},
		{T: 35 * time.Millisecond, Dir: 1, Data: []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")},
	})
	ws := callgen.TCPCall{Client: netip.MustParseAddrPort("10.0.0.1:51002"), Server: server, Start: time.Millisecond,
		RTT: 10 * time.Millisecond, ISN: [2]uint32{3000, 7000}}
	ans := sessionJSON(t, "answer", answer)
	half := len(ans) / 2
	key := []byte{0x11, 0x22, 0x33, 0x44}
	pkts = append(pkts, ws.Packets([]callgen.TCPWrite{
		{T: 15 * time.Millisecond, Data: []byte("GET /ws HTTP/1.1\r\nHost: sig\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n")},
		{T: 30 * time.Millisecond, Dir: 1, Data: []byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")},
		{T: 60 * time.Millisecond, Dir: 1, Data: callgen.WebSocketFrame(0x1, false, nil, ans[:half], false)},
		{T: 61 * time.Millisecond, Dir: 0, Data: callgen.WebSocketFrame(0x9, true, key, []byte("ping"), false)},
		{T: 62 * time.Millisecond, Dir: 1, Data: callgen.WebSocketFrame(0x0, true, nil, ans[half:], false)},
	})...)
	return pkts
}

// TestSDPOverHTTPAndWebSocket: a WebRTC call whose offer travels over HTTP and answer over
// a WebSocket, both as JSON, before the media: each stream takes its codec and clock rate
// from the SDP of its sender (by its SSRC: the descriptions name no address), and the RTX
// stream its media stream from the FID pair, before any OSN votes. Without the signalling
// the clocks are inferred, no codec is named, and the RTX stream is matched by its OSNs.
func TestSDPOverHTTPAndWebSocket(t *testing.T) {
	aAudio := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xA1, PT: 111, ClockRate: 48000,
		Interval: 20 * time.Millisecond, PayloadSize: 80, Count: 300, Start: 100 * time.Millisecond}
	bAudio := aAudio
	bAudio.Src, bAudio.Dst, bAudio.SSRC = bob, alice, 0xB1
	video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0xE1, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1000, Count: 600, Start: 100 * time.Millisecond, StartSeq: 500}
	r := callgen.RTX{SSRC: 0xE2, PT: 97}
	for k := range 20 { // probes: each resends the packet sent 30 ms before
		at := time.Second + time.Duration(k)*50*time.Millisecond
		r.Sends = append(r.Sends, callgen.RTXSend{I: int((at-video.Start)/video.Interval) - 3, At: at, Seq: uint16(10 + k)})
	}
	var media []callgen.Packet
	for _, s := range []callgen.Stream{aAudio, bAudio, video} {
		media = append(media, s.Packets()...)
	}
	media = append(media, video.RTXPackets(r)...)

	type figures struct{ Kind, Codec, RTXOf, MatchedBy string }
	get := func(c report.Capture) map[string]figures {
		out := map[string]figures{}
		for _, ssrc := range []uint32{0xA1, 0xB1, 0xE1, 0xE2} {
			st := streamBySSRC(c, ssrc)
			if st == nil {
				t.Fatalf("no stream 0x%x", ssrc)
			}
			f := figures{Kind: st.Kind, Codec: derefS(st.Codec), RTXOf: derefS(st.RTXOf)}
			if st.ClockRateInferred {
				f.Codec += " (inferred clock)"
			}
			if st.RTX != nil {
				f.MatchedBy = string(st.RTX.MatchedBy)
			}
			out[fmt.Sprintf("0x%X", ssrc)] = f
		}
		return out
	}
	signalled := append(signalling(t, webrtcSDP(0xA1, 0xE1, 0xE2), webrtcSDP(0xB1, 0, 0)), media...)
	want := map[string]figures{
		"0xA1": {Kind: "audio", Codec: "opus"}, "0xB1": {Kind: "audio", Codec: "opus"},
		"0xE1": {Kind: "video", Codec: "VP8"},
		"0xE2": {Kind: "rtx", Codec: "rtx", RTXOf: "0x000000e1", MatchedBy: "sdp"},
	}
	if d := cmp.Diff(want, get(analyze(t, pcapOf(t, signalled), Options{}))); d != "" {
		t.Errorf("with signalling (-want +got):\n%s", d)
	}
	want = map[string]figures{
		"0xA1": {Kind: "audio", Codec: " (inferred clock)"}, "0xB1": {Kind: "audio", Codec: " (inferred clock)"},
		"0xE1": {Kind: "video", Codec: " (inferred clock)"},
		"0xE2": {Kind: "rtx", Codec: " (inferred clock)", RTXOf: "0x000000e1", MatchedBy: "osn"},
	}
	if d := cmp.Diff(want, get(analyze(t, pcapOf(t, media), Options{}))); d != "" {
		t.Errorf("without signalling (-want +got):\n%s", d)
	}
}

// TestSRTPRTXSignalled is TestSRTPRTXRepairsAtTheReceiver's call with its DTLS handshake
// and alice's offer naming the RTX stream (FID 0xE1 0xE2) before the media: signalling
// links the two at once, and, the payload being SRTP, the RTX stream's repairs are told
// by timestamps as when timestamps elect it: the same 7 repairs and 30 probes, the same 7
// losses recovered, not what its random OSNs would say.
func TestSRTPRTXSignalled(t *testing.T) {
	call := append(srtpRTXPackets(true), callgen.DTLSRecord(-100*time.Millisecond, alice, bob), callgen.DTLSRecord(-50*time.Millisecond, bob, alice))
	pkts := append(signalling(t, webrtcSDP(0xA1, 0xE1, 0xE2), webrtcSDP(0xB1, 0, 0)), call...)
	got := srtpRTXOf(analyze(t, pcapOf(t, pkts), Options{}), 0xE1, 0xE2)
	want := srtpRTX{Kind: "rtx", RTXOf: "0x000000e1", MatchedBy: "sdp", Packets: 37,
		Repairs: 7, Probes: 30, Lost: 7, Recovered: 7, DirRecovered: 7}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
}

// TestSDPOverWebSocketOpenedBefore: the capture starts after the WebSocket was opened (no
// SYN, no upgrade) and misses the HTTP offer: bob's answer, JSON in a WebSocket frame, is
// the only signalling, before his media. Its SDP names his stream's codec and clock at
// once, as when the connection's start was seen; without a SYN the connection was known
// for text only after 128 KB or at the end of the capture, too late for the clock, which
// was inferred.
func TestSDPOverWebSocketOpenedBefore(t *testing.T) {
	bAudio := callgen.Stream{Src: bob, Dst: alice, SSRC: 0xB1, PT: 111, ClockRate: 48000,
		Interval: 20 * time.Millisecond, PayloadSize: 80, Count: 300, Start: 100 * time.Millisecond}
	var pkts []callgen.Packet
	for _, p := range signalling(t, webrtcSDP(0xA1, 0, 0), webrtcSDP(0xB1, 0, 0)) {
		if p.T >= callgen.Epoch+int64(50*time.Millisecond) {
			pkts = append(pkts, p)
		}
	}
	c := analyze(t, pcapOf(t, append(pkts, bAudio.Packets()...)), Options{})
	st := streamBySSRC(c, 0xB1)
	if st == nil {
		t.Fatal("no stream 0xb1")
	}
	if derefS(st.Codec) != "opus" || st.ClockRateInferred || st.ClockRate == nil || *st.ClockRate != 48000 {
		t.Errorf("codec %q, clock %v, inferred %v: want opus, 48000 from the SDP", derefS(st.Codec), st.ClockRate, st.ClockRateInferred)
	}
}

// TestSDPOverWebSocketJoinedInsideAFrame: as TestSDPOverWebSocketOpenedBefore, but the
// capture begins inside a frame (a JSON message of the server's before the answer): the
// WebSocket is read from the next frame that begins, the answer, whose SDP names bob's
// codec and clock. Before, a direction whose first bytes began no message was read no
// further.
func TestSDPOverWebSocketJoinedInsideAFrame(t *testing.T) {
	bAudio := callgen.Stream{Src: bob, Dst: alice, SSRC: 0xB1, PT: 111, ClockRate: 48000,
		Interval: 20 * time.Millisecond, PayloadSize: 80, Count: 300, Start: 100 * time.Millisecond}
	hello := callgen.WebSocketFrame(0x1, true, nil, []byte(`{"type":"hello","room":"`+strings.Repeat("r", 900)+`"}`), false)
	ws := callgen.TCPCall{Client: netip.MustParseAddrPort("10.0.0.1:51002"), Server: netip.MustParseAddrPort("192.0.2.80:8080"),
		RTT: 10 * time.Millisecond, ISN: [2]uint32{3000, 7000}}
	var pkts []callgen.Packet
	for _, p := range ws.Packets([]callgen.TCPWrite{
		{T: 15 * time.Millisecond, Data: []byte("GET /ws HTTP/1.1\r\nHost: sig\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")},
		{T: 30 * time.Millisecond, Dir: 1, Data: []byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")},
		{T: 40 * time.Millisecond, Dir: 1, Data: hello[:500]},
		{T: 50 * time.Millisecond, Dir: 1, Data: hello[500:]},
		{T: 60 * time.Millisecond, Dir: 1, Data: callgen.WebSocketFrame(0x1, true, nil, sessionJSON(t, "answer", webrtcSDP(0xB1, 0, 0)), false)},
	}) {
		if p.T >= callgen.Epoch+int64(48*time.Millisecond) { // after hello[:500] arrived
			pkts = append(pkts, p)
		}
	}
	c := analyze(t, pcapOf(t, append(pkts, bAudio.Packets()...)), Options{})
	st := streamBySSRC(c, 0xB1)
	if st == nil {
		t.Fatal("no stream 0xb1")
	}
	if derefS(st.Codec) != "opus" || st.ClockRateInferred {
		t.Errorf("codec %q, inferred %v: want opus from the SDP", derefS(st.Codec), st.ClockRateInferred)
	}
}
