package demux

import (
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
	ParseSDP(b, func(h PayloadHint) { out = append(out, h) })
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
			{v4, 97, "AMR", 8000, "audio"},
			{v4, 101, "telephone-event", 8000, "audio"},
			{v4, 0, "PCMU", 8000, "audio"}, // static: RFC 3551's name without rtpmap
		}},
		{"200 ok ipv6, opus/48000/2, media-level c=, no Content-Length", okOpusIPv6, []PayloadHint{
			{a6, 111, "opus", 48000, "audio"},
			{a6, 126, "telephone-event", 8000, "audio"},
			{v6, 96, "VP8", 90000, "video"},
			{v6, 97, "rtx", 90000, "video"},
		}},
		{"lf line ends, static only", []byte("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"v=0\nc=IN IP4 192.0.2.7\nm=audio 8000 RTP/AVP 8 18 13\n"), []PayloadHint{
			{netip.MustParseAddrPort("192.0.2.7:8000"), 8, "PCMA", 8000, "audio"},
			{netip.MustParseAddrPort("192.0.2.7:8000"), 18, "G729", 8000, "audio"},
			{netip.MustParseAddrPort("192.0.2.7:8000"), 13, "CN", 8000, "audio"},
		}},
		{"rtpmap in lower case for static types, media type in mixed case", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"c=IN IP4 192.0.2.7\nm=Audio 8000 RTP/AVP 0 8 97\na=rtpmap:0 pcmu/8000\na=rtpmap:8 pcma/8000\na=rtpmap:97 iLBC/8000\n"), []PayloadHint{
			{netip.MustParseAddrPort("192.0.2.7:8000"), 0, "PCMU", 8000, "audio"},
			{netip.MustParseAddrPort("192.0.2.7:8000"), 8, "PCMA", 8000, "audio"},
			{netip.MustParseAddrPort("192.0.2.7:8000"), 97, "iLBC", 8000, "audio"},
		}},
		{"dynamic payload type without rtpmap", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"c=IN IP4 192.0.2.7\nm=video 9000 RTP/AVP 99\n"), []PayloadHint{
			{netip.MustParseAddrPort("192.0.2.7:9000"), 99, "", 0, "video"},
		}},
		{"multicast ttl, port count", crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\n\n" +
			"c=IN IP4 233.252.0.1/127\nm=audio 49170/2 RTP/AVP 0\n"), []PayloadHint{
			{netip.MustParseAddrPort("233.252.0.1:49170"), 0, "PCMU", 8000, "audio"},
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
			{netip.MustParseAddrPort("192.0.2.7:9000"), 0, "PCMU", 8000, "audio"},
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
			{netip.MustParseAddrPort("192.0.2.7:9000"), 97, "AMR-WB", 16000, "audio"},
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

// TestParseSDPCutShort checks that a body Content-Length says is longer than the message
// loses its unterminated last line (a cut clock rate would read 80 for 8000) and keeps the
// rest.
func TestParseSDPCutShort(t *testing.T) {
	msg := crlf("SIP/2.0 200 OK\nContent-Type: application/sdp\nContent-Length: 500\n\n" +
		"c=IN IP4 192.0.2.7\nm=audio 9000 RTP/AVP 97\na=rtpmap:97 AMR/8000\n")
	cut := msg[:len(msg)-4] // "...AMR/80"
	want := []PayloadHint{{netip.MustParseAddrPort("192.0.2.7:9000"), 97, "", 0, "audio"}}
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

// FuzzSDP checks that IsSIP and ParseSDP never panic and that every hint is usable: a
// valid, specified address with a port, a payload type below 128, a media type, and no
// more hints than the input could describe.
func FuzzSDP(f *testing.F) {
	for _, m := range sdpSeeds() {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		IsSIP(b)
		n := 0
		ParseSDP(b, func(h PayloadHint) {
			n++
			if !h.Addr.IsValid() || h.Addr.Addr().IsUnspecified() || h.Addr.Port() == 0 {
				t.Fatalf("hint address %v", h.Addr)
			}
			if h.PT >= 128 || h.ClockRate < 0 || h.Media == "" || (h.ClockRate == 0) != (h.Codec == "") {
				t.Fatalf("hint %+v", h)
			}
		})
		if n > len(b) {
			t.Fatalf("%d hints from %d bytes", n, len(b))
		}
	})
}
