package analysis

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// TestSRTPAuthTag: every SRTP packet ends in an authentication tag, which the payload
// length counts (as tshark does: payload_bytes) but which is no media: media payload,
// goodput and the media bitrate leave it out, and the overhead counts it as other. Its
// length comes from the DTLS ServerHello's use_srtp profile (DTLS 1.2), or, where that is
// not readable (DTLS 1.3), from SRTCP of a single packet: after it only the index (4
// bytes) and the tag. audio() is 500 packets of 160 bytes after the header from alice.
// Before, media_payload_bytes was 80,000 whatever the profile, 10-16% too much.
func TestSRTPAuthTag(t *testing.T) {
	s := audio()
	// srtcp is an SRTCP receiver report from bob (one RTCP packet of 8 bytes), or with
	// compound a receiver report followed by an 8-byte SDES, encrypted, then the index and
	// a tag of tag bytes.
	srtcp := func(at time.Duration, tag int, compound bool) callgen.Packet {
		b := []byte{0x80, 201, 0, 1}
		b = binary.BigEndian.AppendUint32(b, 0xb0b)
		if compound {
			b = append(b, 0x81, 202, 0, 1, 1, 2, 3, 4)
		}
		b = append(b, 0x80, 0, 0, 1)
		b = append(b, make([]byte, tag)...)
		return callgen.Packet{T: callgen.Epoch + int64(at), Frame: pcapgen.EtherUDP(bob, alice, b)}
	}
	hello := func(profile uint16) callgen.Packet { return callgen.DTLSServerHello(0, bob, alice, profile) }
	tests := []struct {
		name  string
		extra []callgen.Packet
		tag   int64
	}{
		{"no DTLS (not known to be SRTP)", nil, 0},
		{"AES128_CM_HMAC_SHA1_80", []callgen.Packet{hello(1)}, 10},
		{"AEAD_AES_128_GCM", []callgen.Packet{hello(7)}, 16},
		{"AES128_CM_HMAC_SHA1_32", []callgen.Packet{hello(2), srtcp(3*time.Second, 10, false)}, 4},
		{"DTLS 1.3, reduced-size SRTCP of HMAC-SHA1", []callgen.Packet{hello(0),
			srtcp(2*time.Second, 10, true), srtcp(3*time.Second, 10, false)}, 10},
		{"DTLS 1.3, reduced-size SRTCP of AES-GCM", []callgen.Packet{hello(0), srtcp(3*time.Second, 16, false)}, 16},
		{"DTLS 1.3, compound SRTCP only", []callgen.Packet{hello(0), srtcp(3*time.Second, 10, true)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := analyze(t, pcapOf(t, append(tt.extra, s.Packets()...)), Options{})
			st := onlyStream(t, c)
			var d = c.Directions[0]
			for _, x := range c.Directions {
				if x.ID == st.Direction {
					d = x
				}
			}
			media := 500 * (160 - tt.tag)
			if st.PayloadBytes != 500*160 || d.MediaPayloadBytes != media {
				t.Errorf("payload_bytes %d, media_payload_bytes %d; want %d, %d", st.PayloadBytes, d.MediaPayloadBytes, 500*160, media)
			}
			if want := float64(media) * 8 / 1000 / 9.98; d.GoodputKbps == nil || *d.GoodputKbps != numfmt.Round(want, 3) {
				t.Errorf("goodput %v, want %.3f", d.GoodputKbps, want)
			}
			other := 500 * tt.tag // and the DTLS, whose frame the direction's flow carried besides RTP
			for _, p := range tt.extra {
				if p.Frame[42] == 22 {
					other += int64(len(p.Frame))
				}
			}
			if d.OverheadBytes.Other != other {
				t.Errorf("overhead other %d, want %d", d.OverheadBytes.Other, other)
			}
			if sum := d.Series.MediaKbps[0]; sum != numfmt.Round(float64(50*(160-tt.tag))*8/1000, 3) {
				t.Errorf("first second's media %v kbps, want %d packets of %d bytes", sum, 50, 160-tt.tag)
			}
		})
	}
}

// TestSRTPTrailerBySDES: SRTP keyed by SDES (RFC 4568) shows no DTLS; the SDP's a=crypto
// names its suite, and so the tag (and the MKI) that ends each packet. bob's INVITE offers
// two suites at his address (saying nothing alone); alice's 200 OK answers with one,
// HMAC-SHA1-32 with a 4-byte MKI: 8 bytes a packet of her audio to bob, 152 of its 160
// media. An offer of one suite and no answer says it too; no a=crypto says nothing.
func TestSRTPTrailerBySDES(t *testing.T) {
	sip := func(first string, at netip.AddrPort, cryptos ...string) []byte {
		body := fmt.Sprintf("v=0\r\no=- 1 1 IN IP4 %[1]s\r\ns=-\r\nc=IN IP4 %[1]s\r\nt=0 0\r\nm=audio %[2]d RTP/SAVP 0\r\n", at.Addr(), at.Port())
		for _, c := range cryptos {
			body += "a=crypto:" + c + "\r\n"
		}
		return []byte(fmt.Sprintf("%s\r\nCall-ID: sdes\r\nCSeq: 1 INVITE\r\nContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s", first, len(body), body))
	}
	sipA, sipB := netip.AddrPortFrom(alice.Addr(), 5060), netip.AddrPortFrom(bob.Addr(), 5060)
	offer := func(cryptos ...string) callgen.Packet {
		return callgen.Packet{T: callgen.Epoch, Frame: pcapgen.EtherUDP(sipB, sipA, sip("INVITE sip:alice@x SIP/2.0", bob, cryptos...))}
	}
	answer := func(cryptos ...string) callgen.Packet {
		return callgen.Packet{T: callgen.Epoch + int64(50*time.Millisecond), Frame: pcapgen.EtherUDP(sipA, sipB, sip("SIP/2.0 200 OK", alice, cryptos...))}
	}
	const sha80, sha32mki = "1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
		"2 AES_CM_128_HMAC_SHA1_32 inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj|2^20|1:4"
	s := audio()
	s.Start = 100 * time.Millisecond
	for _, tc := range []struct {
		name    string
		sig     []callgen.Packet
		trailer int64
	}{
		{"offer of two, answer of one", []callgen.Packet{offer(sha80, sha32mki), answer(sha32mki)}, 8},
		{"offer of one", []callgen.Packet{offer(sha80)}, 10},
		{"offer of two only", []callgen.Packet{offer(sha80, sha32mki)}, 0},
		{"no a=crypto", []callgen.Packet{offer(), answer()}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := analyze(t, pcapOf(t, append(tc.sig, s.Packets()...)), Options{})
			st := onlyStream(t, c)
			for _, d := range c.Directions {
				if d.ID == st.Direction && (d.MediaPayloadBytes != 500*(160-tc.trailer) || st.PayloadBytes != 500*160) {
					t.Errorf("media_payload_bytes %d, payload_bytes %d; want %d, %d", d.MediaPayloadBytes, st.PayloadBytes, 500*(160-tc.trailer), 500*160)
				}
			}
		})
	}
}
