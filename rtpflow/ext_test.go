package rtpflow

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/report"
)

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

func TestRTX(t *testing.T) {
	// Video 0xB0 (PT 96) loses 50, 51, 120, 200, 300 and 400; its RTX stream 0xB1 (PT 97)
	// resends all but 400, 40 ms later, plus 11 probes of received packets and 3
	// padding-only probes.
	lost := map[int]bool{50: true, 51: true, 120: true, 200: true, 300: true, 400: true}
	var as []arrival
	at := func(i int) int64 { return T0 + int64(i)*10*ms1 }
	for i := 0; i < 500; i++ {
		if lost[i] {
			continue
		}
		b := rp{pt: 96, seq: uint16(1000 + i), ts: uint32(900 * i), ssrc: 0xB0, payload: make([]byte, 1000)}.bytes()
		as = append(as, arrival{pathA, msg(b, at(i))})
	}
	rtxSeq := uint16(7)
	resend := func(i int, when int64) {
		payload := append(u16(uint16(1000+i)), make([]byte, 100)...)
		b := rp{pt: 97, seq: rtxSeq, ts: uint32(900 * i), ssrc: 0xB1, payload: payload}.bytes()
		rtxSeq++
		as = append(as, arrival{pathA, msg(b, when)})
	}
	for _, i := range []int{10, 20, 30, 40} {
		resend(i, at(i)+5*ms1)
	}
	for _, i := range []int{50, 51, 120} {
		resend(i, at(i)+40*ms1)
	}
	for _, i := range []int{130, 140, 150, 160, 170, 180, 190} {
		resend(i, at(i)+5*ms1)
	}
	for k := 0; k < 3; k++ {
		b := rp{pt: 97, seq: rtxSeq, ts: uint32(900 * 250), ssrc: 0xB1, pad: 200}.bytes()
		rtxSeq++
		as = append(as, arrival{pathA, msg(b, at(250)+int64(k)*ms1)})
	}
	for _, i := range []int{200, 300} {
		resend(i, at(i)+40*ms1)
	}
	tr := NewTracker(Config{})
	feed(t, tr, as)
	media, rtx := bySSRC(t, tr, 0xB0), bySSRC(t, tr, 0xB1)
	if !rtx.IsRTX() || rtx.IsMedia() || media.IsRTX() || rtx.RTXOf() != media {
		t.Fatalf("rtx %v media %v", rtx.IsRTX(), media.IsRTX())
	}
	m := media.Summary(T0)
	if *m.Lost != 6 || m.RecoveredByRTX == nil || *m.RecoveredByRTX != 5 || m.Kind != "video" {
		t.Errorf("media lost %d recovered %v kind %s", *m.Lost, m.RecoveredByRTX, m.Kind)
	}
	r := rtx.Summary(T0)
	if r.Kind != "rtx" || r.RTXOf == nil || *r.RTXOf != "0x000000b0" || r.Lost != nil || r.LossPct != nil {
		t.Errorf("rtx kind %s rtx_of %v lost %v", r.Kind, r.RTXOf, r.Lost)
	}
	if r.Packets != 19 || r.PaddingPackets != 3 || r.PaddingBytes != 600 || r.PayloadBytes != 16*102 || r.Expected != 19 {
		t.Errorf("rtx packets %d padding %d/%d payload %d expected %d", r.Packets, r.PaddingPackets, r.PaddingBytes, r.PayloadBytes, r.Expected)
	}
	dm := tr.Direction([]*Stream{media, rtx}, T0)
	if dm.Loss.Lost != 6 || dm.Loss.RecoveredByRTX != 5 || dm.Loss.Expected != 500 {
		t.Errorf("direction loss %+v", dm.Loss)
	}
	if dm.Wire.RTXPayloadBytes != 16*102 || dm.Wire.PaddingBytes != 600 || dm.MediaPayloadBytes != 494*1000 {
		t.Errorf("direction wire %+v", dm.Wire)
	}
	var rtxBytes, mediaBytes float64
	for i := range dm.Series.RTXKbps {
		rtxBytes += dm.Series.RTXKbps[i] * 1000 / 8
		mediaBytes += dm.Series.MediaKbps[i] * 1000 / 8
	}
	if rtxBytes != 16*102+600 || mediaBytes != 494*1000 {
		t.Errorf("series rtx %v media %v bytes", rtxBytes, mediaBytes)
	}
}
