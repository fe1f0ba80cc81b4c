package tcpframe

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/secmedian"
)

func TestTURNFraming(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	stun := stunMsg(0x0003, 8)                    // Allocate request, 28 bytes
	cd100 := channelData(0x4000, 100, true, 0xAA) // 104 bytes, no padding needed
	cd101 := channelData(0x4001, 101, true, 0xBB) // 105 + 3 padding
	cd50 := channelData(0x4000, 50, true, 0xCC)   // 54 + 2 padding
	stream := cat(stun, cd100, cd101, cd50)
	// A frame split across segments, then several frames in one segment.
	s1, s2 := stream[:78], stream[78:]
	f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, s1))
	f.send(seg(ms(11), true, fACK|fPSH, 1001+78, 5001, s2))

	// B's peer does not pad: ChannelData of 101 then 50 bytes, then STUN.
	u101 := channelData(0x4000, 101, false, 0xEE)
	u50 := channelData(0x4000, 50, false, 0xEE)
	resp := stunMsg(0x0103, 12)
	f.send(seg(ms(12), false, fACK|fPSH, 5001, 1001+uint32(len(stream)), cat(u101, u50, resp)))
	f.close()

	type msg struct {
		Dir         int
		Len         int
		First       byte
		Headers, Fr int64
	}
	var gotMsgs []msg
	for _, m := range f.msgs {
		gotMsgs = append(gotMsgs, msg{m.dir, len(m.payload), m.payload[0], m.wire.Headers, m.wire.Framing})
	}
	// Headers: segment 1 (78 bytes, 54 header bytes) gives STUN floor(54*28/78)=19 and the
	// first 50 bytes of cd100 35; segment 2 (218 bytes) gives the rest of cd100
	// floor(54*54/218)=13, cd101 floor(54*162/218)-13=27, cd50 54-40=14.
	// Segment 3 (105+54+32=191 bytes): floor(54*105/191)=29, floor(54*159/191)-29=15, 54-44=10.
	want := []msg{
		{0, 28, 0x00, 19, 0},
		{0, 104, 0x40, 48, 0},
		{0, 105, 0x40, 27, 3},
		{0, 54, 0x40, 14, 2},
		{1, 105, 0x40, 29, 0},
		{1, 54, 0x40, 15, 0},
		{1, 32, 0x01, 10, 0},
	}
	if d := cmp.Diff(want, gotMsgs); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if f.c.Framing().String() != "turn" {
		t.Errorf("framing %q", f.c.Framing())
	}
	s := f.c.Summary()
	// framing_bytes: the padding and every ChannelData header (3 in a to b, 2 in b to a).
	if s.AToB.Messages != 4 || s.AToB.FramingBytes != 5+3*4 || s.BToA.Messages != 3 || s.BToA.FramingBytes != 2*4 {
		t.Errorf("summary %+v %+v", s.AToB, s.BToA)
	}
}

// TestRestSeconds: a connection counts what no message accounts for by second from the
// moment a direction's framing is found to be a media framing (TURN's here): the pure ACKs
// after it, by their second, and a FIN as other; not the handshake before it. A
// connection of another framing (text) keeps no seconds.
func TestRestSeconds(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	if f.c.RestSeconds(0) != nil {
		t.Fatal("seconds counted before any framing")
	}
	cd := channelData(0x4000, 100, true, 0xAA) // 104 bytes
	f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, cd))
	f.send(seg(ms(30), false, fACK, 5001, 1001+104, nil))      // a pure ACK
	f.send(seg(ms(1500), true, fACK|fPSH, 1001+104, 5001, cd)) // in second 1
	f.send(seg(ms(1520), false, fACK, 5001, 1001+208, nil))    // a pure ACK
	f.send(seg(ms(2500), true, fACK|fFIN, 1001+208, 5001, nil))
	f.close()
	a, b := f.c.RestSeconds(0), f.c.RestSeconds(1)
	if a == nil || b == nil {
		t.Fatal("no seconds after a TURN framing")
	}
	read := func(s *secmedian.Sums) []float64 {
		got := make([]float64, 3)
		s.Spread(got, 0)
		return got
	}
	if got, want := read(&b.ACKs), []float64{54, 54, 0}; !slices.Equal(got, want) {
		t.Errorf("b's pure ACKs by second %v, want %v", got, want)
	}
	if got, want := read(&a.Other), []float64{0, 0, 54}; !slices.Equal(got, want) {
		t.Errorf("a's other by second %v, want %v (its FIN; its SYN came before)", got, want)
	}
	if r := f.c.Rest(0); r.Control != 2*54 {
		t.Errorf("a's control %d, want its SYN and FIN", r.Control)
	}

	text := newFeeder(t, Config{})
	text.handshake(0, ms(1), ms(2), 1000, 5000)
	req := []byte("GET / HTTP/1.1\r\nHost: example\r\n\r\n")
	text.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, req))
	text.send(seg(ms(30), false, fACK, 5001, 1001+uint32(len(req)), nil))
	text.close()
	if text.c.RestSeconds(0) != nil || text.c.RestSeconds(1) != nil {
		t.Error("a text connection keeps seconds")
	}
}

// A SYN without ACK opens another connection on the same addresses and ports once the
// first ended (a FIN or a RST), whatever its sequence number: a client that reuses its
// port may reuse its ISN too. Before the end, a SYN with the first's ISN is its
// retransmission.
func TestReopens(t *testing.T) {
	for _, tc := range []struct {
		name  string
		end   uint8 // flags of a segment from A before the new SYN; 0: none
		isn   uint32
		wants bool
	}{
		{"SYN retransmitted", 0, 1000, false},
		{"another ISN", 0, 7000, true},
		{"same ISN after FIN", fFIN | fACK, 1000, true},
		{"same ISN after RST", fRST, 1000, true},
		{"SYN retried after a RST refused it", fRST, 1000, false}, // no data: see below
	} {
		f := newFeeder(t, Config{})
		f.handshake(0, ms(30), ms(60), 1000, 5000)
		if !strings.HasPrefix(tc.name, "SYN retried") {
			f.send(seg(ms(100), true, fACK|fPSH, seqA(0), 5001, frame4571(0)))
		}
		if tc.end != 0 {
			f.send(seg(ms(110), true, tc.end, seqA(1), 5001, nil))
		}
		if got := f.c.Reopens(seg(ms(200), true, fSYN, tc.isn, 0, nil)); got != tc.wants {
			t.Errorf("%s: Reopens %v, want %v", tc.name, got, tc.wants)
		}
	}
}

// TestDataAfterEnd: after a RST from A, A's segments go on (a RST the endpoints ignored, or
// a connection reused without a SYN): each is counted (AfterEnd) for the warning that says
// they were not delivered; before, they were counted on the wire only, unsaid.
func TestDataAfterEnd(t *testing.T) {
	f := newFeeder(t, Config{Framing: FramingRFC4571})
	msg := frame4571(1)
	f.send(seg(ms(0), true, fACK|fPSH, 1000, 5000, msg))
	f.send(seg(ms(10), true, fRST|fACK, 1000+uint32(len(msg)), 5000, nil))
	for i := range 3 {
		f.send(seg(ms(20+float64(i)), true, fACK|fPSH, 1000+uint32((i+1)*len(msg)), 5000, msg))
	}
	f.close()
	if n, b := f.c.AfterEnd(); n != 3 || b != 3*int64(len(msg)) || len(f.msgs) != 1 {
		t.Errorf("after the end %d segments, %d bytes; %d messages: want 3, %d, 1", n, b, len(f.msgs), 3*len(msg))
	}
}
