package tcpframe

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/callpcap/callpcap/transport"
)

func TestHeadOf(t *testing.T) {
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
	padded := rtpWith(200, 1, 7, 0xAB)
	padded[0] |= 0x20
	rtcp := rtpWith(200, 1, 7, 0xAB)
	rtcp[1] = 200 // sender report
	for _, tc := range []struct {
		name string
		kind Framing
		msg  []byte
		keep int // 0: held whole
		last bool
	}{
		{"TURN, RTP", FramingTURN, channelDataOf(0x4000, rtpWith(200, 1, 7, 0xAB), false), 4 + 12 + 2, false},
		{"TURN, RTP with padding", FramingTURN, channelDataOf(0x4000, padded, false), 4 + 12 + 2, true},
		// 4 + 12 + 4 + 4·10 + 2 = 62 bytes fit in 64; one word more does not.
		{"TURN, RTP, extension of 10 words", FramingTURN, channelDataOf(0x4FFF, withExt(10), false), 62, false},
		{"TURN, RTP, extension of 11 words", FramingTURN, channelDataOf(0x4000, withExt(11), false), 0, false},
		// 4 + 12 + 4·11 + 2 = 62; 12 CSRCs make 66.
		{"TURN, RTP, 11 CSRCs", FramingTURN, channelDataOf(0x4000, withCSRC(11), false), 62, false},
		{"TURN, RTP, 12 CSRCs", FramingTURN, channelDataOf(0x4000, withCSRC(12), false), 0, false},
		{"TURN, RTCP", FramingTURN, channelDataOf(0x4000, rtcp, false), 0, false},
		{"TURN, RFC 5766 channel", FramingTURN, channelDataOf(0x5000, rtpWith(200, 1, 7, 0xAB), false), 0, false},
		{"TURN, STUN", FramingTURN, stunMsg(0x0117, 100), 0, false},
		{"TURN, short STUN", FramingTURN, stunMsg(0x0117, 44), 64, true},
		{"RFC 4571, RTP", FramingRFC4571, rtpWith(200, 1, 7, 0xAB), 12 + 2, false},
		{"RFC 4571, RTP, extension of 11 words", FramingRFC4571, withExt(11), 62, false},
		{"RFC 4571, RTP, extension of 12 words", FramingRFC4571, withExt(12), 0, false},
		{"RFC 4571, RTCP", FramingRFC4571, rtcp, 0, false},
		{"RFC 4571, DTLS", FramingRFC4571, dtlsRecord(200), 0, false},
		{"TLS", FramingTLS, rtpWith(200, 1, 7, 0xAB), 0, false},
		{"RFC 4571, RTP of MaxHeadsOnly bytes", FramingRFC4571, rtpWith(MaxHeadsOnly, 1, 7, 0xAB), 12 + 2, false},
		{"RFC 4571, RTP of more", FramingRFC4571, rtpWith(MaxHeadsOnly+1, 1, 7, 0xAB), 0, false},
	} {
		keep, last, ok := headOf(tc.kind, tc.msg, len(tc.msg))
		if !ok {
			keep, last = 0, false
		}
		if keep != tc.keep || last != tc.last {
			t.Errorf("%s: headOf keeps %d bytes and the last %v, want %d and %v", tc.name, keep, last, tc.keep, tc.last)
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
	msgs[3][4] |= 0x20             // RTP's P bit
	msgs[3][len(msgs[3])-1] = 0x01 // and the padding count
	var stream []byte
	for _, m := range msgs {
		stream = cat(stream, m, make([]byte, (4-len(m)%4)%4))
	}
	want := [][]byte{heldAs(msgs[0], 18, false), msgs[1], heldAs(msgs[2], 18, false), heldAs(msgs[3], 18, true)}
	checkHeadsOnly(t, want, stream, []int{100, 330}, true)
}

// TestHeadsOnlyAcross sends RTP in RFC 4571 frames and in ChannelData messages, 200 bytes
// each: the first frame in a segment of its own (the framing is detected from it, after the
// handshake), the others in segments of 150 bytes that no Detach copies. It checks that the
// frames which straddle two segments are taken by their heads: nothing is copied into the
// store's buffer.
func TestHeadsOnlyAcross(t *testing.T) {
	for _, kind := range []Framing{FramingRFC4571, FramingTURN} {
		var msgs [][]byte
		var stream []byte
		for k := range 6 {
			m := rtpWith(198, uint16(k), 7, byte(0x10*k))
			frame, keep := rfc4571(m), 14
			if kind == FramingTURN {
				m = channelDataOf(0x4000, rtpWith(196, uint16(k), 7, byte(0x10*k)), false)
				frame, keep = m, 18
			}
			msgs = append(msgs, heldAs(m, keep, false))
			stream = cat(stream, frame)
		}
		cuts := []int{len(stream) / len(msgs)}
		for cuts[len(cuts)-1]+150 < len(stream) {
			cuts = append(cuts, cuts[len(cuts)-1]+150)
		}
		c := checkHeadsOnly(t, msgs, stream, cuts, false)
		if i := slices.IndexFunc(c.dirs[0].st.buf, func(b byte) bool { return b != 0 }); i >= 0 {
			t.Errorf("%v: byte %d of the buffer was written: frames were joined there", kind, i)
		}
	}
}

// heldAs is msg as HeadsOnly emits it when it keeps its first keep bytes, and its last
// byte with last: zeros between.
func heldAs(msg []byte, keep int, last bool) []byte {
	b := make([]byte, len(msg))
	copy(b, msg[:keep])
	if last {
		b[len(b)-1] = msg[len(msg)-1]
	}
	return b
}

// checkHeadsOnly sends stream after a handshake, in segments cut at cuts (with a Detach
// after each when detach), and checks that the messages emitted with HeadsOnly have the
// payloads want, and otherwise are those emitted without it. It returns the HeadsOnly Conn as it was
// before the ACK of the stream.
func checkHeadsOnly(t *testing.T, want [][]byte, stream []byte, cuts []int, detach bool) *Conn {
	t.Helper()
	var before Conn
	run := func(cfg Config) []transport.Message {
		var out []transport.Message
		c := NewConn(cfg, addrA, addrB)
		emit := func(m *transport.Message) {
			out = append(out, *m)
			out[len(out)-1].Payload = bytes.Clone(m.Payload)
		}
		c.Segment(seg(0, true, fSYN, 999, 0, nil), emit)
		c.Segment(seg(ms(1), false, fSYN|fACK, 4999, 1000, nil), emit)
		c.Segment(seg(ms(2), true, fACK, 1000, 5000, nil), emit)
		seq := uint32(1000)
		for i, from := range slices.Concat([]int{0}, cuts) {
			to := len(stream)
			if i < len(cuts) {
				to = cuts[i]
			}
			payload := bytes.Clone(stream[from:to])
			c.Segment(seg(ms(float64(3+i)), true, fACK|fPSH, seq, 5000, payload), emit)
			seq += uint32(len(payload))
			if detach {
				c.Detach()
			}
		}
		if cfg.HeadsOnly {
			before = *c
		}
		c.Segment(seg(ms(40), false, fACK, 5000, seq, nil), emit)
		c.Close(emit)
		return out
	}
	whole, heads := run(Config{BorrowPayload: true}), run(Config{BorrowPayload: true, HeadsOnly: true})
	if len(whole) != len(want) || len(heads) != len(want) {
		t.Fatalf("emitted %d and %d messages, want %d", len(whole), len(heads), len(want))
	}
	for i, m := range heads {
		if !bytes.Equal(m.Payload, want[i]) {
			t.Errorf("message %d: payload % x, want % x", i, m.Payload, want[i])
		}
		m.Payload = whole[i].Payload
		if diff := cmp.Diff(whole[i], m, cmpopts.EquateComparable(netip.AddrPort{})); diff != "" {
			t.Errorf("message %d differs from the one without HeadsOnly (-without +with):\n%s", i, diff)
		}
	}
	return &before
}
