package demux

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// crlf turns a message written with LF line ends into the CRLF of the wire.
func crlf(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }

// inviteAMR is an INVITE from an IMS handset offering AMR-NB with telephone-event over
// IPv4, Content-Length exact.
var inviteAMR = crlf(`INVITE sip:bob@example.org SIP/2.0
Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK776asdhds
Max-Forwards: 70
To: Bob <sip:bob@example.org>
From: Alice <sip:alice@example.org>;tag=1928301774
Call-ID: a84b4c76e66710@pc33.example.org
CSeq: 314159 INVITE
Contact: <sip:alice@10.0.0.1:5060>
Content-Type: application/sdp
Content-Length: 259

v=0
o=alice 2890844526 2890844526 IN IP4 10.0.0.1
s=-
c=IN IP4 10.0.0.1
t=0 0
m=audio 49170 RTP/AVP 97 101 0
a=rtpmap:97 AMR/8000
a=fmtp:97 mode-change-capability=2;max-red=0
a=rtpmap:101 telephone-event/8000
a=fmtp:101 0-15
a=ptime:20
a=sendrecv
`)

// okOpusIPv6 is the 200 OK of a WebRTC gateway over IPv6: opus with channels, a video
// section with its own c= line, an RTX payload type, compact header names and no
// Content-Length (allowed over UDP).
var okOpusIPv6 = crlf(`SIP/2.0 200 OK
v: SIP/2.0/UDP [2001:db8::1]:5060;branch=z9hG4bK74bf9
t: <sip:bob@example.org>;tag=8321234356
f: <sip:alice@example.org>;tag=9fxced76sl
i: 3848276298220188511@example.org
CSeq: 1 INVITE
c: application/sdp

v=0
o=- 4611731400430051336 2 IN IP6 2001:db8::9
s=-
c=IN IP6 2001:db8::9
t=0 0
m=audio 40000 RTP/SAVPF 111 126
a=rtpmap:111 opus/48000/2
a=fmtp:111 minptime=10;useinbandfec=1
a=rtpmap:126 telephone-event/8000
m=video 40002 UDP/TLS/RTP/SAVPF 96 97
c=IN IP6 2001:db8::10
a=rtpmap:96 VP8/90000
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
`)

var eqAddrPort = cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })

func parseAll(b []byte) []PayloadHint {
	var out []PayloadHint
	ParseSDP(b, func(h PayloadHint) { out = append(out, h) }, nil)
	return out
}

func TestParseSDP(t *testing.T) {
	v4 := netip.MustParseAddrPort("10.0.0.1:49170")
	a6 := netip.MustParseAddrPort("[2001:db8::9]:40000")
	v6 := netip.MustParseAddrPort("[2001:db8::10]:40002")
	tests := []struct {
		name string
		data []byte
		want []PayloadHint
	}{
		{"invite amr, telephone-event, static PCMU", inviteAMR, []PayloadHint{
			{v4, 0, 97, "AMR", 8000, "audio", false, 0, 0},
			{v4, 0, 101, "telephone-event", 8000, "audio", false, 0, 0},
			{v4, 0, 0, "PCMU", 8000, "audio", false, 0, 0}, // static: RFC 3551's name without rtpmap
		}},
		{"200 ok ipv6, opus/48000/2, media-level c=, no Content-Length", okOpusIPv6, []PayloadHint{
			{a6, 0, 111, "opus", 48000, "audio", false, 0, 0},
			{a6, 0, 126, "telephone-event", 8000, "audio", false, 0, 0},
			{v6, 0, 96, "VP8", 90000, "video", false, 0, 0},
			{v6, 0, 97, "rtx", 90000, "video", true, 96, 0},
		}},
		{"lf line ends, static only", []byte("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"v=0\nc=IN IP4 192.0.2.7\nm=audio 8000 RTP/AVP 8 18 13\n"), []PayloadHint{
			{netip.MustParseAddrPort("192.0.2.7:8000"), 0, 8, "PCMA", 8000, "audio", false, 0, 0},
			{netip.MustParseAddrPort("192.0.2.7:8000"), 0, 18, "G729", 8000, "audio", false, 0, 0},
			{netip.MustParseAddrPort("192.0.2.7:8000"), 0, 13, "CN", 8000, "audio", false, 0, 0},
		}},
		{"rtpmap in lower case for static types, media type in mixed case", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"c=IN IP4 192.0.2.7\nm=Audio 8000 RTP/AVP 0 8 97\na=rtpmap:0 pcmu/8000\na=rtpmap:8 pcma/8000\na=rtpmap:97 iLBC/8000\n"), []PayloadHint{
			{netip.MustParseAddrPort("192.0.2.7:8000"), 0, 0, "PCMU", 8000, "audio", false, 0, 0},
			{netip.MustParseAddrPort("192.0.2.7:8000"), 0, 8, "PCMA", 8000, "audio", false, 0, 0},
			{netip.MustParseAddrPort("192.0.2.7:8000"), 0, 97, "iLBC", 8000, "audio", false, 0, 0},
		}},
		{"dynamic payload type without rtpmap", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"c=IN IP4 192.0.2.7\nm=video 9000 RTP/AVP 99\n"), []PayloadHint{
			{netip.MustParseAddrPort("192.0.2.7:9000"), 0, 99, "", 0, "video", false, 0, 0},
		}},
		{"multicast ttl, port count", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"c=IN IP4 233.252.0.1/127\nm=audio 49170/2 RTP/AVP 0\n"), []PayloadHint{
			{netip.MustParseAddrPort("233.252.0.1:49170"), 0, 0, "PCMU", 8000, "audio", false, 0, 0},
		}},
		{"t38 re-invite: udptl formats are not payload types", crlf("INVITE sip:x@192.0.2.1 SIP/2.0\nContent-Type: application/sdp\n\n" +
			"c=IN IP4 192.0.2.7\nm=image 9000 udptl t38\na=T38FaxVersion:0\n"), nil},
		{"rejected stream (port 0) and hold (0.0.0.0)", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"c=IN IP4 192.0.2.7\nm=video 0 RTP/AVP 96\nc=IN IP4 192.0.2.8\nm=audio 9000 RTP/AVP 0\nc=IN IP4 0.0.0.0\n"), nil},
		{"no session c=, none in the section", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"m=audio 9000 RTP/AVP 0\n"), nil},
		{"not sdp", crlf("SIP/2.0 200 OK\nContent-Type: application/pidf+xml\n\n" +
			"c=IN IP4 192.0.2.7\nm=audio 9000 RTP/AVP 0\n"), nil},
		{"no body", crlf("SIP/2.0 100 Trying\nContent-Length: 0\n\n"), nil},
		{"no empty line", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n"), nil},
		{"content-length limits the body", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\nContent-Length: 42\n\n" +
			"c=IN IP4 192.0.2.7\nm=audio 9000 RTP/AVP 0\nm=audio 9002 RTP/AVP 8\n"), []PayloadHint{
			{netip.MustParseAddrPort("192.0.2.7:9000"), 0, 0, "PCMU", 8000, "audio", false, 0, 0},
		}},
		{"multipart: the sdp part of a SIP-I INVITE", crlf(`INVITE sip:+15551234567@192.0.2.1;user=phone SIP/2.0
Content-Type: multipart/mixed;boundary="unique-boundary-1"
MIME-Version: 1.0

--unique-boundary-1
Content-Type: application/sdp

v=0
c=IN IP4 192.0.2.7
m=audio 9000 RTP/AVP 97
a=rtpmap:97 AMR-WB/16000
--unique-boundary-1
Content-Type: application/ISUP;version=nxv3;base=etsi121
Content-Disposition: signal;handling=required

(ISUP IAM)
--unique-boundary-1--
`), []PayloadHint{
			{netip.MustParseAddrPort("192.0.2.7:9000"), 0, 97, "AMR-WB", 16000, "audio", false, 0, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, parseAll(tt.data), eqAddrPort); d != "" {
				t.Errorf("hints (-want +got):\n%s", d)
			}
		})
	}
}

// TestParseSDPRTX: a=fmtp apt= marks a payload type as RTX of another (RFC 4588, 8.1) and
// a=ssrc-group:FID pairs a media SSRC with its RTX SSRC (RFC 5576, 4.2), per section;
// malformed lines give nothing, and at most maxFIDs pairs are taken from a section.
func TestParseSDPRTX(t *testing.T) {
	head := "SIP/2.0 200 OK\nContent-Type: application/sdp\n\nv=0\nc=IN IP4 192.0.2.7\n"
	video := netip.MustParseAddrPort("192.0.2.7:9000")
	audio := netip.MustParseAddrPort("192.0.2.7:8000")
	type want struct {
		rtx []uint8 // "pt>apt" pairs, flattened: pt, apt, pt, apt...
		fid []FIDHint
	}
	manyFIDs := ""
	var many []FIDHint
	for i := range maxFIDs + 2 {
		manyFIDs += fmt.Sprintf("a=ssrc-group:FID %d %d\n", 100+i, 200+i)
		if i < maxFIDs {
			many = append(many, FIDHint{video, uint32(100 + i), uint32(200 + i)})
		}
	}
	tests := []struct {
		name string
		sdp  string
		want want
	}{
		{"apt and fid, webrtc style", "m=video 9000 UDP/TLS/RTP/SAVPF 96 97 98 99\n" +
			"a=rtpmap:96 VP8/90000\na=rtpmap:97 rtx/90000\na=fmtp:97 apt=96\n" +
			"a=rtpmap:98 VP9/90000\na=rtpmap:99 rtx/90000\na=fmtp:99 apt=98;rtx-time=3000\n" +
			"a=ssrc-group:FID 2231627014 632943048\na=ssrc:2231627014 cname:x\n",
			want{[]uint8{97, 96, 99, 98}, []FIDHint{{video, 2231627014, 632943048}}}},
		{"apt not first, spaces, name in capitals", "m=video 9000 RTP/AVPF 96 97\na=fmtp:97 rtx-time=3000; APT=96\n",
			want{[]uint8{97, 96}, nil}},
		{"ssrc 2^32-1", "m=video 9000 RTP/AVPF 96 97\na=ssrc-group:FID 4294967295 1\n",
			want{nil, []FIDHint{{video, 4294967295, 1}}}},
		{"fid per section, at its address", "m=audio 8000 RTP/AVP 0\na=ssrc-group:FID 1 2\n" +
			"m=video 9000 RTP/AVPF 96\na=ssrc-group:FID 3 4\n",
			want{nil, []FIDHint{{audio, 1, 2}, {video, 3, 4}}}},
		{"at most maxFIDs a section", "m=video 9000 RTP/AVPF 96\n" + manyFIDs, want{nil, many}},
		{"malformed apt", "m=video 9000 RTP/AVPF 96 97 98 99 100 101\n" +
			"a=fmtp:97 apt=\na=fmtp:98 apt=x96\na=fmtp:99 apt=128\na=fmtp:100 apt=100\n" +
			"a=fmtp:101\na=fmtp:128 apt=96\na=fmtp:97apt=96\na=fmtp:96 profile-id=0\n", want{}},
		{"fmtp at session level", "a=fmtp:97 apt=96\nm=video 9000 RTP/AVPF 96 97\n", want{}},
		{"apt of a payload type not in m=", "m=video 9000 RTP/AVPF 96\na=fmtp:97 apt=96\n", want{}},
		{"malformed fid", "m=video 9000 RTP/AVPF 96\n" +
			"a=ssrc-group:FID 1\na=ssrc-group:FID 1 2 3\na=ssrc-group:FID 1 1\n" +
			"a=ssrc-group:FID 1 4294967296\na=ssrc-group:FID 1 -2\na=ssrc-group:FID 0x1 2\n" +
			"a=ssrc-group:fid 1 2\na=ssrc-group:SIM 1 2 3\na=ssrc-group:FID\n", want{}},
		{"fid of a rejected section", "m=video 0 RTP/AVPF 96\na=ssrc-group:FID 1 2\n", want{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got want
			ParseSDP(crlf(head+tt.sdp), func(h PayloadHint) {
				if !h.Addr.IsValid() {
					return // by source (TestParseSDPSources)
				}
				if h.RTX {
					got.rtx = append(got.rtx, h.PT, h.APT)
				} else if h.APT != 0 {
					t.Errorf("hint %+v: apt without rtx", h)
				}
			}, func(h FIDHint) { got.fid = append(got.fid, h) })
			if d := cmp.Diff(tt.want, got, eqAddrPort, cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestParseSDPCutShort checks that a body Content-Length says is longer than the message
// loses its unterminated last line (a cut clock rate would read 80 for 8000) and keeps the
// rest.
func TestParseSDPCutShort(t *testing.T) {
	msg := crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\nContent-Length: 500\n\n" +
		"c=IN IP4 192.0.2.7\nm=audio 9000 RTP/AVP 97\na=rtpmap:97 AMR/8000\n")
	cut := msg[:len(msg)-4] // "...AMR/80"
	want := []PayloadHint{{netip.MustParseAddrPort("192.0.2.7:9000"), 0, 97, "", 0, "audio", false, 0, 0}}
	if d := cmp.Diff(want, parseAll(cut), eqAddrPort); d != "" {
		t.Errorf("cut message (-want +got):\n%s", d)
	}
	want[0].Codec, want[0].ClockRate = "AMR", 8000
	if d := cmp.Diff(want, parseAll(msg), eqAddrPort); d != "" {
		t.Errorf("whole message (-want +got):\n%s", d)
	}
	// Every prefix parses without panicking and never yields the cut clock.
	for i := range msg {
		for _, h := range parseAll(msg[:i]) {
			if h.ClockRate != 0 && h.ClockRate != 8000 {
				t.Fatalf("prefix %d: clock %d", i, h.ClockRate)
			}
		}
	}
}

// sdpSeeds are the SIP messages of the tests: the seeds of FuzzSDP.
func sdpSeeds() map[string][]byte {
	return map[string][]byte{
		"invite-amr":   inviteAMR,
		"200-opus-ip6": okOpusIPv6,
		"multipart": crlf("INVITE sip:x@192.0.2.1 SIP/2.0\nContent-Type: multipart/mixed;boundary=b1\n\n" +
			"--b1\nContent-Type: application/sdp\n\nc=IN IP4 192.0.2.7\nm=audio 9000 RTP/AVP 97\na=rtpmap:97 AMR/8000\n--b1--\n"),
		"t38": crlf("INVITE sip:x@192.0.2.1 SIP/2.0\nContent-Type: application/sdp\n\n" +
			"c=IN IP4 192.0.2.7\nm=image 9000 udptl t38\n"),
		"sdes": crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n\nc=IN IP4 192.0.2.7\nm=audio 9000 RTP/SAVP 0\n" +
			"a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj|2^20|1:4\n"),
	}
}

// TestWriteSDPFuzzSeeds checks testdata/fuzz/FuzzSDP against sdpSeeds; -update rewrites it.
func TestWriteSDPFuzzSeeds(t *testing.T) {
	seeds := map[string][]any{}
	for name, m := range sdpSeeds() {
		seeds[name] = []any{m}
	}
	writeSeeds(t, "FuzzSDP", seeds)
}

// FuzzSDP checks that IsSIP, SIPMessageLen and ParseSDP never panic, that a SIP message
// cut from a stream lies within it and starts as one, and that every hint is usable: a
// specified address with a port, or none (a hint by source, an FID pair that holds on any
// path), a payload type below 128, a media type, and hints linear in the input (each
// section's formats at up to eight addresses and eight sources).
func FuzzSDP(f *testing.F) {
	for _, m := range sdpSeeds() {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		IsSIP(b)
		if n := SIPMessageLen(b); n > len(b) || n > 0 && !IsSIP(b[:n]) {
			t.Fatalf("SIPMessageLen = %d of %d bytes", n, len(b))
		}
		n := 0
		ParseSDP(b, func(h PayloadHint) {
			n++
			if h.Addr.IsValid() && (h.Addr.Addr().IsUnspecified() || h.Addr.Port() == 0) {
				t.Fatalf("hint address %v", h.Addr)
			}
			if h.PT >= 128 || h.ClockRate < 0 || h.Media == "" || (h.ClockRate == 0) != (h.Codec == "") ||
				h.APT >= 128 || h.RTX && h.APT == h.PT || !h.RTX && h.APT != 0 || h.SRTPTrailer > 16+128 {
				t.Fatalf("hint %+v", h)
			}
		}, func(h FIDHint) {
			n++
			if h.Addr.IsValid() && (h.Addr.Addr().IsUnspecified() || h.Addr.Port() == 0) || h.Media == h.RTX {
				t.Fatalf("fid %+v", h)
			}
		})
		if n > 16*len(b) {
			t.Fatalf("%d hints from %d bytes", n, len(b))
		}
	})
}

// TestCryptoTrailer: what SDES's a=crypto (RFC 4568) says SRTP appends to each packet.
func TestCryptoTrailer(t *testing.T) {
	for _, tc := range []struct {
		in string
		n  int
		ok bool
	}{
		{"1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:32", 10 + 32, true},
		{"1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR", 10, true},
		{"2 AES_CM_128_HMAC_SHA1_32 inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj|1:4", 4 + 4, true},
		{"1 AEAD_AES_256_GCM inline:Zmx5aW5nIHNoZWVwIGFyZSBncmVhdA==", 16, true},
		{"1 AES_256_CM_HMAC_SHA1_80 inline:KEY1|2^31|1:2;inline:KEY2|2^31|2:2", 10 + 2, true},
		{"1 AES_CM_128_HMAC_SHA1_80 inline:KEY UNENCRYPTED_SRTP", 10, true},
		{"1 AES_CM_128_HMAC_SHA1_80 inline:KEY UNAUTHENTICATED_SRTP", 0, false},
		{"1 NULL inline:KEY", 0, false},
		{"1", 0, false},
	} {
		if n, ok := cryptoTrailer([]byte(tc.in)); n != tc.n || ok != tc.ok {
			t.Errorf("cryptoTrailer(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.n, tc.ok)
		}
	}
}

// TestParseSDPCrypto: a section with one a=crypto gives its trailer to each payload type's
// hint; one that offers several suites gives none (the answer's one says).
func TestParseSDPCrypto(t *testing.T) {
	sdp := func(cryptos ...string) []byte {
		b := "SIP/2.0 200 OK\r\nContent-Type: application/sdp\r\n\r\nv=0\r\nc=IN IP4 192.0.2.7\r\nm=audio 8000 RTP/SAVP 0\r\n"
		for _, c := range cryptos {
			b += "a=crypto:" + c + "\r\n"
		}
		return []byte(b)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want uint8
	}{
		{"one suite", sdp("1 AES_CM_128_HMAC_SHA1_80 inline:KEY"), 10},
		{"several suites offered", sdp("1 AES_CM_128_HMAC_SHA1_80 inline:KEY", "2 AES_CM_128_HMAC_SHA1_32 inline:KEY"), 0},
		{"none", sdp(), 0},
	} {
		var got []PayloadHint
		ParseSDP(tc.in, func(h PayloadHint) { got = append(got, h) }, nil)
		if len(got) != 1 || got[0].SRTPTrailer != tc.want {
			t.Errorf("%s: hints %+v, want one with SRTPTrailer %d", tc.name, got, tc.want)
		}
	}
}

// TestManySections: an SFU's offer in a large meeting has two media sections a
// participant. Each of 40 sections, with a port and payload type of its own, receives on
// its port: beyond the 32nd they had no address, and their payload types went unnamed.
// And the same 40 bundled: every one receives on the first's transport.
func TestManySections(t *testing.T) {
	var b strings.Builder
	b.WriteString("v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\n")
	for i := range 40 {
		fmt.Fprintf(&b, "m=audio %d RTP/AVP %d\r\na=rtpmap:%d opus/48000/2\r\n", 20000+2*i, 96+i%30, 96+i%30)
	}
	var c hintsOf
	FindSDP([]byte(b.String()), []byte("application/sdp"), c.pt, c.fid)
	if len(c.got) != 40 || c.got[39] != "192.0.2.1:20078 105 opus/48000" {
		t.Errorf("%d hints: %q", len(c.got), c.got)
	}

	b.Reset()
	b.WriteString("v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\na=group:BUNDLE")
	for i := range 40 {
		fmt.Fprintf(&b, " m%d", i)
	}
	b.WriteString("\r\n")
	for i := range 40 {
		fmt.Fprintf(&b, "m=audio %d RTP/AVP %d\r\na=mid:m%d\r\na=rtpmap:%d opus/48000/2\r\n", map[bool]int{true: 20000, false: 0}[i == 0], 96+i%30, i, 96+i%30)
	}
	c = hintsOf{}
	FindSDP([]byte(b.String()), []byte("application/sdp"), c.pt, c.fid)
	if len(c.got) != 40 || c.got[39] != "192.0.2.1:20000 105 opus/48000" {
		t.Errorf("bundled: %d hints: %q", len(c.got), c.got)
	}
}
