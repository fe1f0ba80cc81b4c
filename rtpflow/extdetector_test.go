package rtpflow

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/wire"
)

// astAt is the abs-send-time of a send time in seconds: 6.18 fixed point, 24 bits.
func astAt(sec float64) uint32 { return uint32(sec*(1<<18)) & (1<<24 - 1) }

// header decodes an RTP packet built by hand.
func header(t *testing.T, p rp) *wire.RTP {
	t.Helper()
	var h wire.RTP
	if err := h.Unmarshal(p.bytes(), false); err != nil {
		t.Fatal(err)
	}
	return &h
}

func TestExtDetectorObserve(t *testing.T) {
	one := func(els ...el) rp { return rp{extProfile: profileOneByte, ext: oneByte(els...)} }
	tests := []struct {
		name    string
		chosen  bool  // the choice was made, with
		astID   uint8 // this id
		packets []rp
		wantAST []astValues // per packet
		ids     []int
		twoByte bool
		twcc    int // 2-byte ids the sender's twccState follows
	}{
		{name: "no extension", packets: []rp{{}}, wantAST: []astValues{{}}, ids: []int{}},
		{name: "another profile", packets: []rp{{extProfile: 0x1234, ext: []byte{0x32, 1, 2, 3}}},
			wantAST: []astValues{{}}, ids: []int{}},
		{name: "3-byte elements are candidates, 2-byte ones go to twcc",
			packets: []rp{
				one(el{2, u16(7)}, el{3, u24(0x010203)}),
				one(el{3, u24(0x010204)}, el{5, u24(0x0a0b0c)}),
			},
			wantAST: []astValues{
				{mask: 0b01, v: [4]uint32{0x010203}},
				{mask: 0b11, v: [4]uint32{0x010204, 0x0a0b0c}},
			},
			ids: []int{2, 3, 5}, twcc: 1},
		{name: "a fifth 3-byte id is no candidate",
			packets: []rp{one(el{1, u24(1)}, el{2, u24(2)}, el{3, u24(3)}, el{4, u24(4)}, el{6, u24(6)})},
			wantAST: []astValues{{mask: 0b1111, v: [4]uint32{1, 2, 3, 4}}},
			ids:     []int{1, 2, 3, 4, 6}},
		{name: "after the choice only the chosen id is read", chosen: true, astID: 3,
			packets: []rp{one(el{5, u24(0x0a0b0c)}, el{3, u24(0x010203)}), one(el{5, u24(1)})},
			wantAST: []astValues{{mask: 1, v: [4]uint32{0x010203}}, {}},
			ids:     []int{3, 5}},
		{name: "after a choice of none no value is read", chosen: true,
			packets: []rp{one(el{3, u24(0x010203)})}, wantAST: []astValues{{}}, ids: []int{3}},
		{name: "two-byte form",
			packets: []rp{{extProfile: 0x1000, ext: twoByte(el{1, nil}, el{200, u24(9)})}},
			wantAST: []astValues{{mask: 1, v: [4]uint32{9}}},
			ids:     []int{1, 200}, twoByte: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := extDetector{tw: &twccState{}, chosen: tt.chosen, astID: tt.astID}
			var got []astValues
			for _, p := range tt.packets {
				var ast astValues
				h := header(t, p)
				e.observe(h.ExtensionProfile, h.ExtensionBody, &ast)
				got = append(got, ast)
			}
			if diff := cmp.Diff(tt.wantAST, got, cmp.AllowUnexported(astValues{})); diff != "" {
				t.Errorf("abs-send-time values (-want +got):\n%s", diff)
			}
			sum := e.summary()
			if diff := cmp.Diff(tt.ids, sum.IDs); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if sum.TwoByteHeaders != tt.twoByte || e.tw.n != tt.twcc {
				t.Errorf("two-byte %v, twcc ids %d; want %v, %d", sum.TwoByteHeaders, e.tw.n, tt.twoByte, tt.twcc)
			}
		})
	}
}

func TestChooseAST(t *testing.T) {
	// pkts makes n early packets 20 ms apart from arrival 0; send(i) gives candidate j's
	// send time in seconds, or a negative value for an absent element.
	pkts := func(n int, send ...func(i int) float64) []early {
		var out []early
		for i := 0; i < n; i++ {
			e := early{at: T0 + int64(i)*20*ms1}
			for j, f := range send {
				if s := f(i); s >= 0 {
					e.ast.mask |= 1 << j
					e.ast.v[j] = astAt(s)
				}
			}
			out = append(out, e)
		}
		return out
	}
	// backlog has the first n packets arrive 1 ms apart, ending 20 ms after the last of
	// them was sent.
	backlog := func(e []early, n int) []early {
		for i := range n {
			e[i].at = T0 + int64(n)*20*ms1 + int64(i-n+1)*ms1
		}
		return e
	}
	paced := func(start float64) func(int) float64 {
		return func(i int) float64 { return start + float64(i)*0.02 }
	}
	tests := []struct {
		name  string
		early []early
		n     int // candidates
		want  int
	}{
		{"steady", pkts(50, paced(10)), 1, 0},
		{"wraps at 64 s", pkts(50, paced(63.9)), 1, 0},
		{"one packet", pkts(1, paced(10)), 1, -1},
		{"absent on more than 10%",
			pkts(50, func(i int) float64 {
				if i%8 == 0 {
					return -1
				}
				return 10 + float64(i)*0.02
			}), 1, -1},
		{"going down", pkts(50, func(i int) float64 { return 10 - float64(i)*0.02 }), 1, -1},
		{"constant (like playout-delay)", pkts(50, func(int) float64 { return 1 }), 1, -1},
		{"twice as fast as arrival", pkts(50, func(i int) float64 { return 10 + float64(i)*0.04 }), 1, -1},
		{"within the lag allowed: 40 ms of queueing at the end",
			pkts(50, func(i int) float64 { return 10 + float64(i)*0.02 - float64(i/49)*0.04 }), 1, 0},
		{"the candidate that tracks arrival best wins",
			pkts(50, func(i int) float64 { return 10 + float64(i)*0.021 }, paced(30)), 2, 1},
		{"candidates not counted are not read", pkts(50, func(int) float64 { return 1 }, paced(30)), 1, -1},
		// A capture that begins as a TCP stall's backlog drains: the first 20 packets,
		// sent 20 ms apart, arrive within 20 ms, the last of them 20 ms late. First to last
		// read 0.98 s of sending in 0.58 s of arrivals, and no abs-send-time was found.
		{"a backlog at the start", backlog(pkts(50, paced(10)), 20), 1, 0},
		// Ten of the 50 packets overtaken by the next: in arrival order 10 of 49 pairs go
		// down (h137: none found); in sequence order none does.
		{"one packet in five swapped with the next", func() []early {
			e := pkts(50, paced(10))
			for i := range e {
				e[i].seq = uint16(65530 + i) // across the wrap
			}
			for i := 0; i+1 < len(e); i += 5 {
				e[i].ast, e[i+1].ast = e[i+1].ast, e[i].ast
				e[i].seq, e[i+1].seq = e[i+1].seq, e[i].seq
			}
			return e
		}(), 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chooseAST(tt.early, tt.n); got != tt.want {
				t.Errorf("chooseAST = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestExtDetectorChoose(t *testing.T) {
	e := extDetector{tw: &twccState{}, cand: [4]uint8{5, 3}, nCand: 2}
	early := make([]early, 20)
	for i := range early {
		early[i].at = T0 + int64(i)*20*ms1
		early[i].ast = astValues{mask: 0b11, v: [4]uint32{7, astAt(5 + float64(i)*0.02)}}
	}
	if j := e.choose(early); j != 1 || e.astID != 3 || !e.chosen {
		t.Errorf("choose = %d, astID %d, chosen %v; want 1, 3, true", j, e.astID, e.chosen)
	}
	none := extDetector{tw: &twccState{}, cand: [4]uint8{5}, nCand: 1}
	if j := none.choose(early); j != -1 || none.astID != 0 || !none.chosen {
		t.Errorf("choose = %d, astID %d, chosen %v; want -1, 0, true", j, none.astID, none.chosen)
	}
}

func TestAbsSendTimeAndTransportCC(t *testing.T) {
	// Video (PT 96) and audio (PT 111) from one sender, both with abs-send-time (id 3), a
	// constant 3-byte element (id 5, like playout-delay) and a transport-wide sequence
	// number (id 2) counting across both streams. Send times are whole abs-send-time units
	// from 63.5 s, so the 24-bit value wraps after half a second. The RTP timestamps carry
	// 10 ms of capture jitter that abs-send-time does not: delay must come from the latter.
	const unit = 1 << 18 // abs-send-time units per second
	const start = 63*unit + unit/2
	type sent struct {
		video bool
		i     int
		send  int64 // abs-send-time units since start
	}
	var order []sent
	for i := 0; i < 300; i++ {
		order = append(order, sent{true, i, int64(i) * 8738}) // ≈33.33 ms
	}
	for i := 0; i < 500; i++ {
		order = append(order, sent{false, i, int64(i)*5243 + 7}) // ≈20 ms
	}
	slicesSortBy(order, func(s sent) int64 { return s.send })
	delays := map[int]int64{100: 100 * ms1, 200: 500 * ms1}
	var as []arrival
	for k, s := range order {
		ast := uint32(start+s.send) & (1<<24 - 1)
		ext := oneByte(el{2, u16(uint16(40000 + k))}, el{3, u24(ast)}, el{5, u24(0x001002)})
		at := T0 + astToNs(s.send) + 20*ms1
		var b []byte
		if s.video {
			at += delays[s.i]
			b = rp{pt: 96, seq: uint16(s.i), ts: uint32(3000*s.i + 900*(s.i%2)), ssrc: 0xD0,
				extProfile: profileOneByte, ext: ext, payload: make([]byte, 900), marker: true}.bytes()
		} else {
			b = rp{pt: 111, seq: uint16(s.i), ts: uint32(960 * s.i), ssrc: 0xD1,
				extProfile: profileOneByte, ext: ext, payload: make([]byte, 90)}.bytes()
		}
		as = append(as, arrival{pathA, msg(b, at)})
	}
	tr := NewTracker(Config{})
	feed(t, tr, as)
	v := bySSRC(t, tr, 0xD0).Summary(T0)
	wantExt := report.Extensions{IDs: []int{2, 3, 5}, AbsSendTimeID: intp(3), TransportCCID: intp(2)}
	if diff := cmp.Diff(wantExt, v.Extensions); diff != "" {
		t.Errorf("video extensions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&report.Delay{Reference: "abs_send_time", Samples: 300, Max: 500}, v.DelayMS); diff != "" {
		t.Errorf("video delay (-want +got):\n%s", diff)
	}
	wantLate := &report.Late{BudgetMS: 150, Packets: 1, Pct: quantile3(100.0 / 300), OverMS: map[string]int64{
		"50": 2, "100": 1, "200": 1, "400": 1, "1000": 0}}
	if diff := cmp.Diff(wantLate, v.Late); diff != "" {
		t.Errorf("video late (-want +got):\n%s", diff)
	}
	if v.Kind != "video" || v.Markers != 300 {
		t.Errorf("kind %s markers %d", v.Kind, v.Markers)
	}
	a := bySSRC(t, tr, 0xD1).Summary(T0)
	if diff := cmp.Diff(wantExt, a.Extensions); diff != "" {
		t.Errorf("audio extensions (-want +got):\n%s", diff)
	}
	if a.DelayMS == nil || a.DelayMS.Max != 0 || a.Kind != "audio" || *a.ClockRate != 48000 {
		t.Errorf("audio delay %+v kind %s clock %v", a.DelayMS, a.Kind, a.ClockRate)
	}
}

func TestTwoByteExtensionsAndCSRC(t *testing.T) {
	var as []arrival
	for i := 0; i < 20; i++ {
		ext := twoByte(el{1, nil}, el{20, []byte{1, 2, 3, 4}})
		b := rp{pt: 0, seq: uint16(i), ts: uint32(160 * i), ssrc: 0xE0, csrcs: 2,
			extProfile: 0x1000, ext: ext, payload: make([]byte, 160)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+int64(i)*20*ms1)})
	}
	tr := NewTracker(Config{})
	feed(t, tr, as)
	got := only(t, tr).Summary(T0)
	want := report.Extensions{IDs: []int{1, 20}, TwoByteHeaders: true}
	if diff := cmp.Diff(want, got.Extensions); diff != "" {
		t.Errorf("extensions (-want +got):\n%s", diff)
	}
	// 12 + 2 CSRCs + 4-byte extension header + 8 bytes of elements (2+0, 2+4, padded).
	if got.HeaderBytes != 20*(12+8+4+8) {
		t.Errorf("header bytes %d", got.HeaderBytes)
	}
}

// TestExtensionsCryptex: a block of a cryptex profile (RFC 9335: 0xC0DE, 0xC2DE) is
// encrypted whole: no id is read from it, and the stream says its extensions were
// encrypted, where ids [] alone said it had none (pion's default).
func TestExtensionsCryptex(t *testing.T) {
	for _, profile := range []uint16{0xC0DE, 0xC2DE} {
		e := extDetector{tw: &twccState{}}
		var ast astValues
		e.observe(profile, []byte{0x32, 0x12, 0x34, 0x56}, &ast)
		if got := e.summary(); len(got.IDs) != 0 || !got.Encrypted || got.AbsSendTimeID != nil {
			t.Errorf("profile %#x: %+v, want no ids, encrypted", profile, got)
		}
	}
	e := extDetector{tw: &twccState{}}
	var ast astValues
	e.observe(0xBEDE, []byte{0x32, 0x12, 0x34, 0x56}, &ast)
	if got := e.summary(); got.Encrypted || len(got.IDs) != 1 || got.IDs[0] != 3 {
		t.Errorf("one-byte profile: %+v, want id 3, not encrypted", got)
	}
}

// TestTransportCCOnTwoLegs: at a TURN server one sender's audio (transport-cc id 3) is seen
// twice, arriving on the peer leg and leaving on the client's, the second copy 30 ms
// after the first. Each leg's copy counts by one; both together advance one value every
// two packets, which no transport-cc does (TestTWCCState's interleaved counters): followed
// per leg, each finds it.
func TestTransportCCOnTwoLegs(t *testing.T) {
	in, out := Path{Leg: 1, Src: alice, Dst: bob}, Path{Leg: 2, Src: alice, Dst: netip.MustParseAddrPort("192.0.2.7:7000")}
	var as []arrival
	for i := 0; i < 200; i++ {
		b := rp{pt: 111, seq: uint16(i), ts: uint32(960 * i), ssrc: 0xE1, extProfile: profileOneByte,
			ext: oneByte(el{3, u16(uint16(500 + i))}), payload: make([]byte, 90)}.bytes()
		as = append(as, arrival{in, msg(b, T0+int64(i)*20*ms1)}, arrival{out, msg(b, T0+int64(i)*20*ms1+30*ms1)})
	}
	slicesSortBy(as, func(a arrival) int64 { return a.m.FirstSeen })
	tr := NewTracker(Config{})
	feed(t, tr, as)
	for _, s := range tr.Streams() {
		if got := s.Summary(T0).Extensions.TransportCCID; got == nil || *got != 3 {
			t.Errorf("leg %d: transport-cc id %v, want 3", s.Path().Leg, got)
		}
	}
}
