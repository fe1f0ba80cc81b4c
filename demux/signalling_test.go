package demux

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
)

// webrtcOffer is a Chromium offer as its application signals it: BUNDLE, host candidates
// in the audio section only, the video section at 0.0.0.0 and port 9 (bundled), its
// sources in a=ssrc lines, its RTX in an FID group.
var webrtcOffer = strings.ReplaceAll(`v=0
o=- 6279136589745749139 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1
m=audio 47577 UDP/TLS/RTP/SAVPF 111 126
c=IN IP4 10.10.1.2
a=candidate:2816637947 1 udp 2122260223 10.10.1.2 47577 typ host generation 0
a=candidate:1 2 udp 2122260222 10.10.1.2 47578 typ host generation 0
a=candidate:3643644259 1 tcp 1518280447 10.10.1.2 9 typ host tcptype active generation 0
a=candidate:3 1 udp 1 abcd.local 50000 typ host
a=mid:0
a=rtpmap:111 opus/48000/2
a=rtpmap:126 telephone-event/8000
a=ssrc:788072522 cname:qtSGekZv
a=ssrc:788072522 msid:b5b0 c845
m=video 9 UDP/TLS/RTP/SAVPF 96 97
c=IN IP4 0.0.0.0
a=mid:1
a=rtpmap:96 VP8/90000
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
a=ssrc-group:FID 4237835358 3216664191
a=ssrc:4237835358 cname:qtSGekZv
a=ssrc:3216664191 cname:qtSGekZv
`, "\n", "\r\n")

// hintsOf collects what the reader reports as "key pt codec" strings, the key being the
// address or "ssrc=N", and the FID pairs as "fid key media>rtx".
type hintsOf struct{ got []string }

func (c *hintsOf) pt(h PayloadHint) {
	key := h.Addr.String()
	if !h.Addr.IsValid() {
		key = fmt.Sprintf("ssrc=%d", h.SSRC)
	}
	s := fmt.Sprintf("%s %d %s/%d", key, h.PT, h.Codec, h.ClockRate)
	if h.RTX {
		s += fmt.Sprintf(" apt=%d", h.APT)
	}
	c.got = append(c.got, s)
}

func (c *hintsOf) fid(h FIDHint) {
	key := h.Addr.String()
	if !h.Addr.IsValid() {
		key = "any"
	}
	c.got = append(c.got, fmt.Sprintf("fid %s %d>%d", key, h.Media, h.RTX))
}

// webrtcOfferHints is what webrtcOffer says: the audio section at its c= address (its UDP
// candidate of component 1 is the same; the RTCP component, the active TCP candidate's
// port 9 and the mDNS name are no address) and for its source; the video section at the
// audio section's address (BUNDLE) and for its two sources; the FID pair there.
var webrtcOfferHints = []string{
	"10.10.1.2:47577 111 opus/48000", "10.10.1.2:47577 126 telephone-event/8000",
	"ssrc=788072522 111 opus/48000", "ssrc=788072522 126 telephone-event/8000",
	"10.10.1.2:47577 96 VP8/90000", "10.10.1.2:47577 97 rtx/90000 apt=96",
	"ssrc=4237835358 96 VP8/90000", "ssrc=4237835358 97 rtx/90000 apt=96",
	"ssrc=3216664191 96 VP8/90000", "ssrc=3216664191 97 rtx/90000 apt=96",
	"fid 10.10.1.2:47577 4237835358>3216664191",
}

// TestParseSDPWebRTC: where WebRTC's sections receive (candidates, BUNDLE), and the hints
// by source.
func TestParseSDPWebRTC(t *testing.T) {
	tests := []struct {
		name string
		sdp  string
		want []string
	}{
		{"chromium offer", webrtcOffer, webrtcOfferHints},
		{"candidates only: no c= address, port 9", "v=0\nc=IN IP4 0.0.0.0\nm=audio 9 UDP/TLS/RTP/SAVPF 0\n" +
			"a=candidate:1 1 UDP 2130706431 192.0.2.5 50000 typ host\na=candidate:2 1 udp 1694498815 203.0.113.9 61000 typ srflx raddr 192.0.2.5 rport 50000\n" +
			"a=candidate:3 1 tcp 1 192.0.2.5 9443 typ host tcptype passive\n",
			[]string{"192.0.2.5:50000 0 PCMU/8000", "203.0.113.9:61000 0 PCMU/8000", "192.0.2.5:9443 0 PCMU/8000"}},
		{"before gathering: sources and an FID pair that holds anywhere", "v=0\nc=IN IP4 0.0.0.0\nm=video 9 UDP/TLS/RTP/SAVPF 96\n" +
			"a=rtpmap:96 VP8/90000\na=ssrc-group:FID 1 2\na=ssrc:1 cname:x\n",
			[]string{"ssrc=1 96 VP8/90000", "fid any 1>2"}},
		{"bundle-only section with port 0", "v=0\na=group:BUNDLE a v\nc=IN IP4 192.0.2.5\nm=audio 5000 RTP/SAVPF 0\na=mid:a\n" +
			"m=video 0 RTP/SAVPF 96\na=bundle-only\na=mid:v\na=rtpmap:96 VP8/90000\n",
			[]string{"192.0.2.5:5000 0 PCMU/8000", "192.0.2.5:5000 96 VP8/90000"}},
		{"rejected section: port 0, no group", "v=0\nc=IN IP4 192.0.2.5\nm=audio 0 RTP/AVP 0\na=ssrc:7 cname:x\na=ssrc-group:FID 7 8\n", nil},
		{"tag is the first mid of the group, wherever its section", "v=0\na=group:BUNDLE v a\nm=audio 5000 RTP/AVP 0\nc=IN IP4 192.0.2.5\na=mid:a\n" +
			"m=video 6000 RTP/AVP 96\nc=IN IP4 192.0.2.6\na=mid:v\n",
			[]string{"192.0.2.5:5000 0 PCMU/8000", "192.0.2.6:6000 0 PCMU/8000", "192.0.2.6:6000 96 /0"}},
		{"at most maxSectionAddrs candidates of its own", "v=0\nc=IN IP4 0.0.0.0\nm=audio 9 RTP/AVP 0\n" +
			"a=candidate:1 1 udp 1 192.0.2.1 1 typ host\na=candidate:1 1 udp 1 192.0.2.2 1 typ host\n" +
			"a=candidate:1 1 udp 1 192.0.2.3 1 typ host\na=candidate:1 1 udp 1 192.0.2.4 1 typ host\n" +
			"a=candidate:1 1 udp 1 192.0.2.5 1 typ host\na=candidate:1 1 udp 1 192.0.2.1 1 typ host\n",
			[]string{"192.0.2.1:1 0 PCMU/8000", "192.0.2.2:1 0 PCMU/8000", "192.0.2.3:1 0 PCMU/8000", "192.0.2.4:1 0 PCMU/8000"}},
		{"malformed candidates", "v=0\nc=IN IP4 0.0.0.0\nm=audio 9 RTP/AVP 0\na=candidate:1 1 udp 1 192.0.2.1\n" +
			"a=candidate:1 1 sctp 1 192.0.2.1 5 typ host\na=candidate:1 1 udp 1 192.0.2.1 0 typ host\n" +
			"a=candidate:1 1 udp 1 192.0.2.1 65536 typ host\na=candidate:1 1 udp 1 0.0.0.0 5 typ host\n" +
			"a=candidate:1 1 udp 1 fe80::1%eth0 5 typ host\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c hintsOf
			FindSDP([]byte(tt.sdp), nil, c.pt, c.fid)
			if d := cmp.Diff(tt.want, c.got); d != "" {
				t.Errorf("hints (-want +got):\n%s", d)
			}
		})
	}
}

// mustJSON is v as JSON.
func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonOffer is webrtcOffer as an application posts it: an RTCSessionDescription in JSON.
func jsonOffer(t testing.TB) []byte {
	b, err := json.Marshal(map[string]string{"type": "offer", "sdp": webrtcOffer})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFindSDP: the SDP of a body that is one, or of the JSON strings in it.
func TestFindSDP(t *testing.T) {
	offer := string(jsonOffer(t))
	escaped := strings.ReplaceAll(strings.ReplaceAll(offer, "/", `\/`), "a=", `\u0061=`) // both legal JSON
	tests := []struct {
		name        string
		body, ctype string
		want        []string
	}{
		{"json offer", offer, "application/json", webrtcOfferHints},
		{"json, other escapes", escaped, "", webrtcOfferHints},
		// Gson escapes "=" everywhere, the first one included.
		{"json, every = escaped (gson)", strings.ReplaceAll(offer, "=", `\u003d`), "", webrtcOfferHints},
		{"json, = escaped in upper case", strings.ReplaceAll(offer, "=", `\u003D`), "", webrtcOfferHints},
		{"in a list, after other strings", `[{"candidate":"x"},` + offer + `]`, "", webrtcOfferHints},
		{"json in a json string (socket.io)", `42["signal",` + string(mustJSON(t, offer)) + `]`, "", webrtcOfferHints},
		{"json in json in json", string(mustJSON(t, string(mustJSON(t, offer)))), "", webrtcOfferHints},
		{"whip: application/sdp", webrtcOffer, "application/sdp; charset=utf-8", webrtcOfferHints},
		{"raw sdp without content type", "\r\n" + webrtcOffer, "", webrtcOfferHints},
		{"string cut short", offer[:strings.Index(offer, "a=ssrc-group")], "", nil},
		{"no sdp", `{"type":"bye","v=0":1}`, "", nil},
		{"escape cut", `{"sdp":"v=0\r\nm=audio 5 RTP/AVP 0\r\nc=IN IP4 192.0.2.1\r\n\u00`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c hintsOf
			FindSDP([]byte(tt.body), []byte(tt.ctype), c.pt, c.fid)
			if d := cmp.Diff(tt.want, c.got); d != "" {
				t.Errorf("hints (-want +got):\n%s", d)
			}
		})
	}
}

func TestJSONString(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		n        int
		ok       bool
	}{
		{`abc"rest`, "abc", 4, true},
		{`a\"b\\c\/d\n\r\t\b\f"`, "a\"b\\c/d\n\r\t\b\f", 21, true},
		{`\u0041\u00e9\u20ac"`, "Aé€", 19, true},
		{`\ud83d\ude00"`, "😀", 13, true},
		{`\ud83dx"`, "\uFFFDx", 8, true},
		{`\x"`, "", 1, false},
		{`abc`, "abc", 3, false},
		{`\u12`, "", 1, false},
	} {
		s, n, ok := jsonString([]byte(tt.in), nil)
		if string(s) != tt.want && ok || n != tt.n || ok != tt.ok {
			t.Errorf("jsonString(%q) = %q, %d, %v; want %q, %d, %v", tt.in, s, n, ok, tt.want, tt.n, tt.ok)
		}
	}
}

func TestReadHTTP(t *testing.T) {
	post := "POST /send?to=callee HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain;charset=UTF-8\r\nContent-Length: 5\r\n\r\nhello"
	chunked := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"4\r\nhell\r\n1;ext=1\r\no\r\n0\r\nTrailer: x\r\n\r\n"
	tests := []struct {
		name    string
		in      string
		n       int // -1: not HTTP, 0: more needed
		body    string
		upgrade bool
	}{
		{"post with content-length", post + "GET /", len(post), "hello", false},
		{"post, body incomplete", post[:len(post)-1], 0, "", false},
		{"headers incomplete", "GET / HTTP/1.1\r\nHost: x\r\n", 0, "", false},
		{"get, no body", "GET /recv HTTP/1.1\r\nHost: x\r\n\r\nnext", 31, "", false},
		{"lf line ends", "GET / HTTP/1.0\nHost: x\n\n", 24, "", false},
		{"chunked response, extension, trailer", chunked, len(chunked), "hello", false},
		{"chunked, last chunk missing", chunked[:len(chunked)-20], 0, "", false},
		{"chunk sizes padded to 8 digits", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"00000004;q=\"a b\"\r\nhell\r\n0000000a\r\no world!!!\r\n00000000\r\n\r\n", 105, "hello world!!!", false},
		{"chunk size beyond any body", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000\r\nab\r\n", -1, "", false},
		{"chunked, bad size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", -1, "", false},
		{"chunked, no crlf after data", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", -1, "", false},
		{"websocket upgrade request", "GET /ws HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", 61, "", true},
		{"101 switching protocols", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\n\r\n", 56, "", true},
		{"204, no body", "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", 47, "", false},
		{"response without length", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>", -1, "", false},
		{"bad content-length", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", -1, "", false},
		{"content-length beyond maxSignal", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", maxSignal+1), -1, "", false},
		{"sip is not http", "INVITE sip:a@b SIP/2.0\r\n\r\n", -1, "", false},
		{"not http", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n", -1, "", false},
		{"no line end in 1 KiB", strings.Repeat("a", maxStartLine), -1, "", false},
		{"start line incomplete", "GET / HTTP/1.", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c chunks
			m, n, _ := readHTTP([]byte(tt.in), &c)
			if n != tt.n || n > 0 && (string(m.body) != tt.body || m.upgrade != tt.upgrade) {
				t.Errorf("readHTTP = %d, body %q, upgrade %v; want %d, %q, %v", n, m.body, m.upgrade, tt.n, tt.body, tt.upgrade)
			}
		})
	}
}

func TestIsHTTPStart(t *testing.T) {
	for line, want := range map[string]bool{
		"GET / HTTP/1.1": true, "POST /a?b=c HTTP/1.0": true, "HTTP/1.1 200 OK": true, "HTTP/1.1 101": true,
		"HTTP/1.1 20 OK": false, "HTTP/2 200": false, "get / HTTP/1.1": false, "GET HTTP/1.1": false,
		"GET / HTTP/1.": false, "GET / SIP/2.0": false, "": false, "HTTP/1.1 200OK": false,
	} {
		if got := isHTTPStart([]byte(line)); got != want {
			t.Errorf("isHTTPStart(%q) = %v", line, got)
		}
	}
}

func TestReadWSFrame(t *testing.T) {
	key := []byte{1, 2, 3, 4}
	big := make([]byte, 70000)
	tests := []struct {
		name    string
		in      []byte
		ok, bad bool
		hdr, n  int
	}{
		{"text, unmasked", callgen.WebSocketFrame(wsText, true, nil, []byte("hi"), false), true, false, 2, 2},
		{"text, masked", callgen.WebSocketFrame(wsText, true, key, []byte("hi"), false), true, false, 6, 2},
		{"16-bit length", callgen.WebSocketFrame(wsBinary, true, nil, make([]byte, 300), false), true, false, 4, 300},
		{"64-bit length beyond maxSignal", callgen.WebSocketFrame(wsBinary, true, nil, big, true), false, true, 0, 0},
		{"64-bit length for a short one", callgen.WebSocketFrame(wsBinary, true, nil, make([]byte, 10), true), false, true, 0, 0},
		{"16-bit length for a short one", []byte{0x82, 126, 0, 5}, false, true, 0, 0},
		{"header incomplete", []byte{0x81, 0xfe, 0x01}, false, false, 0, 0},
		{"mask key incomplete", []byte{0x81, 0x82, 1, 2}, false, false, 0, 0},
		{"ping", callgen.WebSocketFrame(wsPing, true, key, nil, false), true, false, 6, 0},
		{"fragmented ping", callgen.WebSocketFrame(wsPing, false, nil, nil, false), false, true, 0, 0},
		{"reserved opcode", callgen.WebSocketFrame(0x3, true, nil, nil, false), false, true, 0, 0},
		{"rsv2", []byte{0xa1, 0}, false, true, 0, 0},
		{"one byte", []byte{0x81}, false, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok, bad := readWSFrame(tt.in)
			if ok != tt.ok || bad != tt.bad || ok && (f.hdr != tt.hdr || f.n != tt.n) {
				t.Errorf("readWSFrame = %+v, %v, %v; want ok %v bad %v hdr %d n %d", f, ok, bad, tt.ok, tt.bad, tt.hdr, tt.n)
			}
		})
	}
}

// signallingStreams are the two directions of signalling connections, each carrying the
// offer, and what they say.
func signallingStreams(t testing.TB) map[string][]byte {
	offer := jsonOffer(t)
	key := []byte{0x37, 0xfa, 0x21, 0x3d}
	post := fmt.Sprintf("POST /send HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(offer), offer)
	half := len(offer) / 2
	ws := []byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	ws = append(ws, callgen.WebSocketFrame(wsPing, true, key, []byte("p"), false)...)
	ws = append(ws, callgen.WebSocketFrame(wsText, false, key, offer[:half], false)...)
	ws = append(ws, callgen.WebSocketFrame(wsPong, true, key, nil, false)...) // between fragments
	ws = append(ws, callgen.WebSocketFrame(wsContinuation, true, key, offer[half:], false)...)
	corrupt := []byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")
	corrupt = append(corrupt, callgen.WebSocketFrame(wsText|0x40, true, nil, offer, false)...) // RSV1, but not DEFLATE
	corrupt = append(corrupt, callgen.WebSocketFrame(wsText, true, nil, offer, false)...)
	// The offer twice, compressed with context takeover (RFC 7692): the second message is
	// mostly references into the first; the first in two fragments, RSV1 on the first only.
	var z bytes.Buffer
	zw, _ := flate.NewWriter(&z, flate.BestCompression)
	deflate := func() []byte {
		zw.Write(offer)
		zw.Flush()
		b := bytes.TrimSuffix(z.Bytes(), []byte{0, 0, 0xff, 0xff})
		out := append([]byte(nil), b...)
		z.Reset()
		return out
	}
	m1, m2 := deflate(), deflate()
	if len(m2) > len(m1)/4 {
		t.Fatalf("second message %d bytes, the first %d: no context taken over", len(m2), len(m1))
	}
	deflated := []byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n")
	deflated = append(deflated, callgen.WebSocketFrame(wsText|0x40, false, nil, m1[:10], false)...)
	deflated = append(deflated, callgen.WebSocketFrame(wsContinuation, true, nil, m1[10:], false)...)
	deflated = append(deflated, callgen.WebSocketFrame(wsText|0x40, true, nil, m2, false)...)
	sipWS := []byte("GET / HTTP/1.1\r\nUpgrade: websocket\r\nSec-WebSocket-Protocol: sip\r\n\r\n")
	sipWS = append(sipWS, callgen.WebSocketFrame(wsText, true, key, inviteAMR, false)...)
	// A WebSocket whose upgrade the capture missed: the client's masked text frames, and
	// the server's plain ones with a ping between.
	joined := callgen.WebSocketFrame(wsText, true, key, offer, false)
	joinedServer := append(callgen.WebSocketFrame(wsText, true, nil, []byte(`{"type":"hello"}`), false),
		callgen.WebSocketFrame(wsPing, true, nil, nil, false)...)
	joinedServer = append(joinedServer, callgen.WebSocketFrame(wsText, true, nil, offer, false)...)
	return map[string][]byte{
		"websocket joined":               joined,
		"websocket joined by the server": joinedServer,
		"sip over websocket":             sipWS,
		"http post":                      []byte("GET /config HTTP/1.1\r\n\r\n" + post),
		"http chunked":                   []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n", half, offer[:half], len(offer)-half, offer[half:])),
		"websocket":                      ws,
		"corrupt deflate":                corrupt,
		"deflated twice":                 deflated,
		"sip":                            append([]byte("\r\n\r\n"), inviteAMR...),
	}
}

// TestSignalling feeds each stream whole and in pieces of every size from 1 to 64 bytes: the
// hints are the same however the bytes come.
func TestSignalling(t *testing.T) {
	sip := []string{"10.0.0.1:49170 97 AMR/8000", "10.0.0.1:49170 101 telephone-event/8000", "10.0.0.1:49170 0 PCMU/8000"}
	for name, stream := range signallingStreams(t) {
		want := webrtcOfferHints
		switch name {
		case "sip", "sip over websocket":
			want = sip
		case "deflated twice":
			want = append(slices.Clip(webrtcOfferHints), webrtcOfferHints...)
		}
		for piece := range 65 {
			var s Signalling
			var c hintsOf
			if piece == 0 {
				s.Feed(stream, c.pt, c.fid)
			}
			for b := stream; piece > 0 && len(b) > 0; b = b[min(piece, len(b)):] {
				s.Feed(b[:min(piece, len(b))], c.pt, c.fid)
			}
			if d := cmp.Diff(want, c.got); d != "" {
				t.Fatalf("%s in pieces of %d (-want +got):\n%s", name, piece, d)
			}
			if s.SIP() != strings.HasPrefix(name, "sip") {
				t.Errorf("%s: SIP() = %v", name, s.SIP())
			}
		}
	}
}

// TestSignallingGivesUp: a direction seen from its start that is none of the protocols,
// breaks its framing or holds a message beyond maxSignal is read no further, and keeps no
// bytes; so is one the capture joined whose first maxSignal bytes begin no message.
func TestSignallingGivesUp(t *testing.T) {
	offer := jsonOffer(t)
	for name, stream := range map[string][]byte{
		"binary":             {0x16, 0x03, 0x01, 0x00, 0x10, '\n'},
		"text, no protocol":  []byte("hello world\r\n"),
		"bad websocket":      []byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\nGET / HTTP/1.1\r\n\r\n"),
		"headers never end":  []byte("GET / HTTP/1.1\r\n" + strings.Repeat("X-A: b\r\n", maxSignal/8+1)),
		"http after garbage": []byte("xx\r\nPOST / HTTP/1.1\r\n\r\n"),
		"chunk too long":     []byte(fmt.Sprintf("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n", maxSignal+1)),
		"bad content-length": []byte("POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"),
		// Joined mid-connection, only a text frame of JSON says WebSocket.
		"websocket joined, binary":   callgen.WebSocketFrame(wsBinary, true, nil, offer, false),
		"websocket joined, not json": append(callgen.WebSocketFrame(wsText, true, nil, []byte("hello\r\n"), false), '\n'),
		"joined, no message begins":  []byte(strings.Repeat("hello world\r\n", maxSignal/13+1)),
	} {
		s := Signalling{Joined: strings.HasPrefix(name, "joined")}
		var c hintsOf
		s.Feed(stream, c.pt, c.fid)
		s.Feed([]byte(fmt.Sprintf("POST / HTTP/1.1\r\nContent-Length: %d\r\n\r\n%s", len(offer), offer)), c.pt, c.fid)
		if len(c.got) > 0 || len(s.buf) > 0 || s.proto != protoNone {
			t.Errorf("%s: %d hints, %d bytes kept, proto %d", name, len(c.got), len(s.buf), s.proto)
		}
		if long := strings.Contains(name, "long") || strings.Contains(name, "never end"); long != (s.TooLong() == 1) {
			t.Errorf("%s: %d messages counted too long", name, s.TooLong())
		}
	}
}

// TestSignallingResyncs: a direction whose capture began inside a message (its first bytes
// begin none) is read from the next message that begins: a SIP or HTTP start line at a
// line's start, or a WebSocket text frame of JSON; an SDP in the bytes before is read too.
// Before, such a direction was read no further, and its SDP never (a tester's).
func TestSignallingResyncs(t *testing.T) {
	offer := jsonOffer(t)
	post := []byte(fmt.Sprintf("POST / HTTP/1.1\r\nContent-Length: %d\r\n\r\n%s", len(offer), offer))
	var want hintsOf
	FindSDP(offer, nil, want.pt, want.fid)
	sdp := webrtcOffer
	for name, tc := range map[string]struct {
		stream []byte
		hints  bool
	}{
		"binary, then a POST":   {append([]byte{0x16, 0x03, 0x01, 0x00, 0x10, '\n'}, post...), true},
		"text, then a POST":     {append([]byte("hello world\r\n"), post...), true},
		"a body's tail":         {append([]byte("xx\r\n"), post...), true},
		"a text frame of JSON":  {append([]byte("\"}]}\r\n"), callgen.WebSocketFrame(wsText, true, []byte{1, 2, 3, 4}, offer, false)...), true},
		"a binary frame":        {append([]byte("}"), callgen.WebSocketFrame(wsBinary, true, nil, offer, false)...), false},
		"the SDP's tail, a 200": {[]byte("a=x\r\n\r\n" + "SIP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n"), false},
		"an SDP, then a SIP message": {append([]byte("Content-Type: application/sdp\r\n\r\n"+sdp),
			"SIP/2.0 100 Trying\r\nContent-Length: 0\r\n\r\n"...), true},
	} {
		for piece := range 40 {
			s := Signalling{Joined: true}
			var c hintsOf
			for b := tc.stream; len(b) > 0; b = b[min(piece+1, len(b)):] {
				s.Feed(b[:min(piece+1, len(b))], c.pt, c.fid)
			}
			if got := len(c.got) > 0; got != tc.hints {
				t.Fatalf("%s in pieces of %d: %d hints, want some: %v", name, piece+1, len(c.got), tc.hints)
			}
			if tc.hints && strings.Contains(name, "POST") {
				if d := cmp.Diff(want.got, c.got); d != "" {
					t.Fatalf("%s in pieces of %d (-want +got):\n%s", name, piece+1, d)
				}
			}
		}
	}
}

// A SIP or HTTP message longer than maxSignal whose length its header says is counted and
// skipped to its end, however its bytes come; the message after it is read. Before, the
// direction was read no further.
func TestSignallingSkipsTooLong(t *testing.T) {
	offer := jsonOffer(t)
	post := fmt.Sprintf("POST / HTTP/1.1\r\nContent-Length: %d\r\n\r\n%s", len(offer), offer)
	for name, long := range map[string]string{
		"http": fmt.Sprintf("POST / HTTP/1.1\r\nContent-Length: %d\r\n\r\n", maxSignal+1) + strings.Repeat("x", maxSignal+1),
		"sip":  fmt.Sprintf("MESSAGE sip:a@b SIP/2.0\r\nContent-Length: %d\r\n\r\n", maxSignal+1) + strings.Repeat("x", maxSignal+1),
	} {
		var s Signalling
		var c hintsOf
		stream := []byte(long + post)
		if name == "sip" { // SIP after SIP: the offer in a SIP MESSAGE's body
			stream = []byte(long + fmt.Sprintf("MESSAGE sip:a@b SIP/2.0\r\nContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s", len(webrtcOffer), webrtcOffer))
		}
		for len(stream) > 0 { // in segments of 1,000 bytes
			n := min(1000, len(stream))
			s.Feed(stream[:n], c.pt, c.fid)
			stream = stream[n:]
		}
		if s.TooLong() != 1 || len(c.got) == 0 {
			t.Errorf("%s: %d messages too long, %d hints; want 1 and the offer's", name, s.TooLong(), len(c.got))
		}
	}
}

// A WebSocket message longer than maxSignal (in two frames, each within it) is counted and
// skipped; the next message is read.
func TestSignallingWebSocketTooLong(t *testing.T) {
	frame := func(op byte, fin bool, p []byte) []byte {
		if fin {
			op |= 0x80
		}
		if len(p) < 126 {
			return append([]byte{op, byte(len(p))}, p...)
		}
		return append([]byte{op, 126, byte(len(p) >> 8), byte(len(p))}, p...)
	}
	offer := jsonOffer(t)
	var s Signalling
	var c hintsOf
	s.Feed([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"), c.pt, c.fid)
	half := bytes.Repeat([]byte("x"), maxSignal/2+1)
	s.Feed(frame(0x1, false, half), c.pt, c.fid)
	s.Feed(frame(0x0, true, half), c.pt, c.fid)
	s.Feed(frame(0x1, true, offer), c.pt, c.fid)
	if s.TooLong() != 1 || len(c.got) == 0 {
		t.Errorf("%d messages too long, %d hints; want 1 and the offer's", s.TooLong(), len(c.got))
	}
}

// signallingSeeds are the seeds of FuzzSignalling.
func signallingSeeds(t testing.TB) map[string][]byte {
	seeds := signallingStreams(t)
	seeds["offer"] = []byte(webrtcOffer)
	return seeds
}

// TestWriteSignallingFuzzSeeds checks testdata/fuzz/FuzzSignalling against
// signallingSeeds; -update rewrites it.
func TestWriteSignallingFuzzSeeds(t *testing.T) {
	seeds := map[string][]any{}
	for name, m := range signallingSeeds(t) {
		seeds[name] = []any{m, uint8(7)}
	}
	writeSeeds(t, "FuzzSignalling", seeds)
}

// FuzzSignalling feeds a direction of signalling in pieces of a chosen size: no panic,
// memory bounded by maxSignal, the same hints as fed whole, and every hint usable; and
// FindSDP over the same bytes gives usable hints, at most 16 a byte.
func FuzzSignalling(f *testing.F) {
	for _, m := range signallingSeeds(f) {
		f.Add(m, uint8(7))
	}
	type hints struct {
		pt  []PayloadHint
		fid []FIDHint
	}
	collect := func(t *testing.T, c *hints) (func(PayloadHint), func(FIDHint)) {
		return func(h PayloadHint) {
				if h.Addr.IsValid() && (h.Addr.Addr().IsUnspecified() || h.Addr.Port() == 0) || h.PT >= 128 ||
					h.ClockRate < 0 || h.Media == "" || (h.ClockRate == 0) != (h.Codec == "") {
					t.Fatalf("hint %+v", h)
				}
				c.pt = append(c.pt, h)
			}, func(h FIDHint) {
				if h.Media == h.RTX {
					t.Fatalf("fid %+v", h)
				}
				c.fid = append(c.fid, h)
			}
	}
	f.Fuzz(func(t *testing.T, b []byte, piece uint8) {
		var whole, pieces hints
		// An odd piece size reads the bytes as a connection the capture joined (resync).
		s1, s2 := Signalling{Joined: piece%2 == 1}, Signalling{Joined: piece%2 == 1}
		fn, fid := collect(t, &whole)
		s1.Feed(b, fn, fid)
		fn, fid = collect(t, &pieces)
		n := max(int(piece), 1)
		for r := b; len(r) > 0; r = r[min(n, len(r)):] {
			s2.Feed(r[:min(n, len(r))], fn, fid)
			if len(s2.buf) > maxSignal+n || len(s2.msg) > maxSignal {
				t.Fatalf("kept %d bytes, %d of a message", len(s2.buf), len(s2.msg))
			}
		}
		if !slices.Equal(whole.pt, pieces.pt) || !slices.Equal(whole.fid, pieces.fid) {
			t.Fatalf("whole and in pieces of %d differ: %d and %d hints, %d and %d pairs",
				n, len(whole.pt), len(pieces.pt), len(whole.fid), len(pieces.fid))
		}
		var c hints
		fn, fid = collect(t, &c)
		FindSDP(b, nil, fn, fid)
		if len(c.pt)+len(c.fid) > 16*len(b) {
			t.Fatalf("%d hints from %d bytes", len(c.pt)+len(c.fid), len(b))
		}
		var ch chunks
		if m, n, need := readHTTP(b, &ch); n > len(b) || n > 0 && len(m.body) > n || n == 0 && need <= len(b) {
			t.Fatalf("readHTTP = %d (need %d) of %d bytes", n, need, len(b))
		}
		if fr, ok, _ := readWSFrame(b); ok && (fr.hdr > len(b) || fr.n > maxSignal) {
			t.Fatalf("readWSFrame = %+v of %d bytes", fr, len(b))
		}
	})
}

func TestCandidateAddr(t *testing.T) {
	for v, want := range map[string]string{
		"1 1 udp 2122260223 10.10.1.2 47577 typ host generation 0":   "10.10.1.2:47577",
		"1 1 UDP 1 2001:db8::1 5000 typ relay raddr 0.0.0.0 rport 0": "[2001:db8::1]:5000",
		"1 1 tcp 1 192.0.2.1 443 typ host tcptype passive":           "192.0.2.1:443",
		"1 1 tcp 1 192.0.2.1 9 typ host tcptype active":              "invalid AddrPort",
		"1 2 udp 1 192.0.2.1 5000 typ host":                          "invalid AddrPort",
		"1 1 udp 1 ::ffff:192.0.2.1 5000 typ host":                   "192.0.2.1:5000",
	} {
		ap, _ := candidateAddr([]byte(v))
		if ap.String() != want {
			t.Errorf("candidateAddr(%q) = %v, want %s", v, ap, want)
		}
	}
	_ = netip.AddrPort{}
}
