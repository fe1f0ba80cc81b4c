package analysis

import (
	"encoding/binary"
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
