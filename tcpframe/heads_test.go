package tcpframe

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/callpcap/callpcap/transport"
)

func TestRTPHeadFits(t *testing.T) {
	withExt := func(words int) []byte { // RTP with a header extension of words 32-bit words
		b := rtpWith(200, 1, 7, 0xAB)
		b[0] |= 0x10
		binary.BigEndian.PutUint16(b[12:], 0xBEDE)
		binary.BigEndian.PutUint16(b[14:], uint16(words))
		return b
	}
	withCSRC := func(n int) []byte {
		b := rtpWith(200, 1, 7, 0xAB)
		b[0] |= byte(n)
		return b
	}
	rtcp := rtpWith(200, 1, 7, 0xAB)
	rtcp[1] = 200 // sender report
	for _, tc := range []struct {
		name string
		kind Framing
		msg  []byte
		want bool
	}{
		{"TURN, RTP", FramingTURN, channelDataOf(0x4000, rtpWith(200, 1, 7, 0xAB), false), true},
		// 4 + 12 + 4 + 4·10 + 2 = 62 bytes fit in 64; one word more does not.
		{"TURN, RTP, extension of 10 words", FramingTURN, channelDataOf(0x4FFF, withExt(10), false), true},
		{"TURN, RTP, extension of 11 words", FramingTURN, channelDataOf(0x4000, withExt(11), false), false},
		// 4 + 12 + 4·11 + 2 = 62; 12 CSRCs make 66.
		{"TURN, RTP, 11 CSRCs", FramingTURN, channelDataOf(0x4000, withCSRC(11), false), true},
		{"TURN, RTP, 12 CSRCs", FramingTURN, channelDataOf(0x4000, withCSRC(12), false), false},
		{"TURN, RTCP", FramingTURN, channelDataOf(0x4000, rtcp, false), false},
		{"TURN, RFC 5766 channel", FramingTURN, channelDataOf(0x5000, rtpWith(200, 1, 7, 0xAB), false), false},
		{"TURN, STUN", FramingTURN, stunMsg(0x0117, 100), false},
		{"RFC 4571, RTP", FramingRFC4571, rtpWith(200, 1, 7, 0xAB), true},
		{"RFC 4571, RTP, extension of 11 words", FramingRFC4571, withExt(11), true},
		{"RFC 4571, RTP, extension of 12 words", FramingRFC4571, withExt(12), false},
		{"RFC 4571, RTCP", FramingRFC4571, rtcp, false},
		{"RFC 4571, DTLS", FramingRFC4571, dtlsRecord(200), false},
		{"TLS", FramingTLS, rtpWith(200, 1, 7, 0xAB), false},
	} {
		if got := rtpHeadFits(tc.kind, tc.msg); got != tc.want {
			t.Errorf("%s: rtpHeadFits = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestHeadsOnly sends TURN messages whose frames straddle the segments and checks what each
// is emitted with: an RTP message longer than HeadLen as its head, zeros and its last byte;
// a short message whole; all of them with the times and wire bytes they have without
// HeadsOnly.
func TestHeadsOnly(t *testing.T) {
	msgs := [][]byte{
		channelDataOf(0x4000, rtpWith(150, 1, 7, 0xAB), false),
		stunMsg(0x0117, 4),
		channelDataOf(0x4000, rtpWith(90, 2, 7, 0xCD), false),
		channelDataOf(0x4000, rtpWith(301, 3, 7, 0xEF), false),
	}
	msgs[3][len(msgs[3])-1] = 0x01 // a padding count, as RTP's last byte is
	var stream []byte
	for _, m := range msgs {
		stream = cat(stream, m, make([]byte, (4-len(m)%4)%4))
	}
	run := func(cfg Config) []transport.Message {
		var out []transport.Message
		c := NewConn(cfg, addrA, addrB)
		emit := func(m *transport.Message) {
			out = append(out, *m)
			out[len(out)-1].Payload = bytes.Clone(m.Payload)
		}
		seq := uint32(1000)
		for i, cut := range [][2]int{{0, 100}, {100, 330}, {330, len(stream)}} {
			c.Segment(seg(ms(float64(i)), true, fACK|fPSH, seq, 5000, stream[cut[0]:cut[1]]), emit)
			seq += uint32(cut[1] - cut[0])
			c.Detach()
		}
		c.Segment(seg(ms(40), false, fACK, 5000, seq, nil), emit)
		c.Close(emit)
		return out
	}
	whole, heads := run(Config{BorrowPayload: true}), run(Config{BorrowPayload: true, HeadsOnly: true})
	if len(whole) != len(msgs) || len(heads) != len(msgs) {
		t.Fatalf("emitted %d and %d messages, want %d", len(whole), len(heads), len(msgs))
	}
	for i, m := range heads {
		want := bytes.Clone(msgs[i])
		if len(want) > HeadLen {
			clear(want[HeadLen : len(want)-1])
		}
		if !bytes.Equal(m.Payload, want) {
			t.Errorf("message %d: payload % x, want % x", i, m.Payload, want)
		}
		m.Payload = whole[i].Payload
		if diff := cmp.Diff(whole[i], m, cmpopts.EquateComparable(netip.AddrPort{})); diff != "" {
			t.Errorf("message %d differs from the one without HeadsOnly (-without +with):\n%s", i, diff)
		}
	}
}
