package callgen

// Writes of TCP connections that carry no media, as a call's capture holds beside it:
// signalling and other applications whose bytes a framing detector may mistake for media
// framing. Each is deterministic (a fixed seed), so a test knows every byte.

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"time"
)

// XMPPWrites is an XMPP-like session (RFC 6120 framing: XML stanzas on one stream) of n
// exchanges from start, every interval: the client's stream header and the server's
// features, then messages, IQ pings and presence with their answers, and a Jingle
// session-initiate carrying candidates, as chat clients signal calls.
func XMPPWrites(start, interval time.Duration, n int) []TCPWrite {
	out := []TCPWrite{
		{T: start, Dir: 0, Data: []byte(`<?xml version='1.0'?><stream:stream to='example.com' ` +
			`xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>`)},
		{T: start + interval/2, Dir: 1, Data: []byte(`<?xml version='1.0'?><stream:stream from='example.com' ` +
			`id='c2s_8n3p' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>` +
			`<stream:features><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></stream:features>`)},
	}
	for i := 1; i <= n; i++ {
		t := start + time.Duration(i)*interval
		var req, resp string
		switch i % 4 {
		case 0:
			req = fmt.Sprintf(`<message to='bob@example.com/phone' id='m%d' type='chat'><body>Are you `+
				`there? %d, the call dropped at 10:%02d</body></message>`, i, i, i%60)
			resp = fmt.Sprintf(`<message from='bob@example.com/phone' id='r%d' type='chat'><body>Yes; `+
				`calling back in %d s</body></message>`, i, i%30)
		case 1:
			req = fmt.Sprintf(`<iq type='get' id='ping%d' to='example.com'><ping xmlns='urn:xmpp:ping'/></iq>`, i)
			resp = fmt.Sprintf(`<iq type='result' id='ping%d' from='example.com'/>`, i)
		case 2:
			req = fmt.Sprintf(`<presence><show>chat</show><status>In a call (%d)</status>`+
				`<priority>%d</priority></presence>`, i, i%128)
			resp = fmt.Sprintf(`<presence from='bob@example.com/phone'><show>away</show>`+
				`<status>back at 11:%02d</status></presence>`, i%60)
		case 3:
			req = fmt.Sprintf(`<iq type='set' id='j%d' to='bob@example.com/phone'><jingle `+
				`xmlns='urn:xmpp:jingle:1' action='session-initiate' sid='s%d'><content name='audio'>`+
				`<description xmlns='urn:xmpp:jingle:apps:rtp:1' media='audio'><payload-type id='111' `+
				`name='opus' clockrate='48000' channels='2'/></description><transport `+
				`xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='a%d' pwd='asd88fgpdd777uzjYhagZg'>`+
				`<candidate component='1' foundation='1' generation='0' id='c%d' ip='10.0.0.2' `+
				`port='%d' priority='2130706431' protocol='udp' type='host'/></transport></content>`+
				`</jingle></iq>`, i, i, i, i, 40000+i)
			resp = fmt.Sprintf(`<iq type='result' id='j%d' from='bob@example.com/phone'/>`, i)
		}
		out = append(out, TCPWrite{T: t, Dir: 0, Data: []byte(req)},
			TCPWrite{T: t + interval/2, Dir: 1, Data: []byte(resp)})
	}
	return out
}

// HTTPWrites is n HTTP/1.1 exchanges on one kept-alive connection from start, every
// interval: a signalling client polls and posts JSON (an SDP offer, JSON-escaped, among
// them), the server answers with JSON.
func HTTPWrites(start, interval time.Duration, n int) []TCPWrite {
	var out []TCPWrite
	for i := 0; i < n; i++ {
		t := start + time.Duration(i)*interval
		var body string
		if i%5 == 0 {
			body = fmt.Sprintf(`{"type":"offer","room":"r-%d","sdp":"v=0\r\no=- 4611731400430051336 2 IN IP4 `+
				`127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n`+
				`c=IN IP4 0.0.0.0\r\na=rtpmap:111 opus/48000/2\r\na=ssrc:%d cname:x\r\n"}`, i, 100000+i)
		} else {
			body = fmt.Sprintf(`{"type":"candidate","room":"r-%d","candidate":"candidate:%d 1 udp 2122260223 `+
				`10.0.0.2 %d typ host generation 0","sdpMid":"0","sdpMLineIndex":0}`, i, i, 40000+i)
		}
		req := fmt.Sprintf("POST /signal/%d HTTP/1.1\r\nHost: signal.example.com:8080\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", i, len(body), body)
		rbody := fmt.Sprintf(`{"ok":true,"seq":%d,"peers":[{"id":"p%d","state":"connected"}],"ts":%d}`,
			i, i%7, 1764410400+i)
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"+
			"Content-Length: %d\r\nConnection: keep-alive\r\n\r\n%s", len(rbody), rbody)
		out = append(out, TCPWrite{T: t, Dir: 0, Data: []byte(req)},
			TCPWrite{T: t + interval/2, Dir: 1, Data: []byte(resp)})
	}
	return out
}

// RandomWrites is a stream of random bytes, as a VPN tunnelling over TCP sends: n writes
// each way from start, every interval, of 1 to maxLen bytes, from a generator seeded with
// seed.
func RandomWrites(start, interval time.Duration, n, maxLen int, seed uint64) []TCPWrite {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var out []TCPWrite
	for i := 0; i < n; i++ {
		for dir := 0; dir < 2; dir++ {
			b := make([]byte, 1+r.IntN(maxLen))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			out = append(out, TCPWrite{T: start + time.Duration(i)*interval + time.Duration(dir)*interval/2,
				Dir: dir, Data: b})
		}
	}
	return out
}

// TLSWrites is a TLS 1.3 connection (RFC 8446 5.1 record layer) after its handshake: n
// application-data records each way from start, every interval, of 1 to maxLen bytes of
// random (encrypted) content, seeded with seed. Each write is one record.
func TLSWrites(start, interval time.Duration, n, maxLen int, seed uint64) []TCPWrite {
	r := rand.New(rand.NewPCG(seed, 0x7151))
	var out []TCPWrite
	for i := 0; i < n; i++ {
		for dir := 0; dir < 2; dir++ {
			n := 1 + r.IntN(maxLen)
			b := make([]byte, 5, 5+n)
			b[0], b[1], b[2] = 23, 3, 3 // application_data, legacy_record_version TLS 1.2
			binary.BigEndian.PutUint16(b[3:], uint16(n))
			for range n {
				b = append(b, byte(r.Uint32()))
			}
			out = append(out, TCPWrite{T: start + time.Duration(i)*interval + time.Duration(dir)*interval/2,
				Dir: dir, Data: b})
		}
	}
	return out
}
