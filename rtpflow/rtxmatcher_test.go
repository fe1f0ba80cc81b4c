package rtpflow

import (
	"net/netip"
	"testing"
)

func TestRTXMatcherDecide(t *testing.T) {
	a, b := &Stream{}, &Stream{}
	evicted := &Stream{evicted: true}
	type vote struct {
		osn     uint16
		s, ts   *Stream // the streams the OSN and the timestamp matched
		tsv     uint32  // the packet's timestamp
		skipped bool    // numbers of the voting stream's own were skipped before it
		filled  bool    // its own number filled a gap (reordered)
		behind  *Stream // the stream whose timestamps ran just ahead of it (matchBehind)
	}
	// votes gives n votes for s with OSNs from osn0 (step 1), then the rest.
	votes := func(s *Stream, osn0 uint16, n int, rest ...vote) []vote {
		var v []vote
		for i := 0; i < n; i++ {
			v = append(v, vote{osn: osn0 + uint16(i), s: s})
		}
		return append(v, rest...)
	}
	// byTS gives the votes with their timestamp votes for ts, OSN votes unchanged.
	byTS := func(ts *Stream, vs []vote) []vote {
		for i := range vs {
			vs[i].ts = ts
		}
		return vs
	}
	// behind gives n votes whose timestamps run behind s's, tss[i%len(tss)] each.
	behind := func(s *Stream, n int, tss ...uint32) []vote {
		var v []vote
		for i := range n {
			v = append(v, vote{osn: uint16(i), tsv: tss[i%len(tss)], behind: s})
		}
		return v
	}
	// skip marks the first n votes as following skipped numbers.
	skip := func(vs []vote, n int) []vote {
		for i := range n {
			vs[i].skipped = true
		}
		return vs
	}
	// fill marks the votes at idx as filling a gap in the stream's own numbers (reordered).
	fill := func(vs []vote, idx ...int) []vote {
		for _, i := range idx {
			vs[i].filled = true
		}
		return vs
	}
	tests := []struct {
		name     string
		votes    []vote
		final    bool
		want     *Stream
		wantByTS bool
	}{
		{"sixteen votes for one stream", votes(a, 100, 16), false, a, false},
		{"OSNs unreadable: the timestamps elect", byTS(b, votes(nil, 0, 16)), false, b, true},
		{"OSNs unreadable: timestamps of three quarters", byTS(b, votes(nil, 0, 12, vote{osn: 7, s: nil}, vote{osn: 8, s: nil}, vote{osn: 9, s: nil}, vote{osn: 10, s: nil})), false, b, true},
		{"OSNs unreadable: timestamps of fewer than three quarters", append(byTS(b, votes(nil, 0, 11)), votes(nil, 0, 5)...), false, nil, false},
		{"OSNs come first", byTS(b, votes(a, 100, 16)), false, a, false},
		{"timestamps at the end, on what there is", byTS(b, votes(nil, 0, 11)), true, b, true},
		{"timestamps at the end, one vote", byTS(b, votes(nil, 0, 1)), true, b, true},
		{"timestamps at the end, one of two", append(byTS(b, votes(nil, 0, 1)), votes(nil, 0, 1)...), true, nil, false},
		{"timestamps of an evicted stream", byTS(evicted, votes(nil, 0, 16)), false, nil, false},
		{"three quarters", votes(a, 100, 12, votes(b, 1, 2, vote{osn: 7, s: nil}, vote{osn: 8, s: nil})...), false, a, false},
		{"fewer than three quarters", votes(a, 100, 11, votes(b, 1, 5)...), false, nil, false},
		{"no match at all", votes(nil, 0, 16), false, nil, false},
		{"most OSNs repeated: a stream sending one number is not resending losses",
			append(votes(a, 100, 7), votes(a, 100, 1, vote{osn: 100, s: a}, vote{osn: 100, s: a}, vote{osn: 100, s: a}, vote{osn: 100, s: a},
				vote{osn: 100, s: a}, vote{osn: 100, s: a}, vote{osn: 100, s: a}, vote{osn: 100, s: a})...), false, nil, false},
		{"half of the OSNs distinct", append(votes(a, 100, 8), votes(a, 100, 8)...), false, a, false},
		{"the elected stream was evicted", votes(evicted, 100, 16), false, nil, false},
		{"undecided before the sixteenth vote", votes(a, 100, 15), false, nil, false},
		{"at the end, on what there is", votes(a, 100, 5), true, a, false},
		{"at the end, fewer than four votes", votes(a, 100, 3), true, nil, false},
		// Resends of frames older than the recent ones: timestamps behind b's, going back.
		{"behind, going back", behind(b, 16, 3000, 6000, 3000, 9000), false, b, true},
		{"behind, at the end, going back", behind(b, 5, 6000, 3000), true, b, true},
		{"behind, never going back: a media stream's own clock", behind(b, 6, 3000, 6000, 9000, 12000, 15000, 18000), true, nil, false},
		// Audio behind video's clock (both started at 0), reordered by the network: each
		// packet that goes back in time fills the gap the one before it showed.
		{"behind, going back only to fill gaps: reordered media", fill(behind(b, 16, 6000, 3000, 12000, 9000), 1, 3, 5, 7, 9, 11, 13, 15), false, nil, false},
		{"behind, at the end, fewer than four votes", behind(b, 3, 6000, 3000), true, nil, false},
		{"behind and recent together", append(byTS(b, votes(nil, 0, 8)), behind(b, 8, 6000, 3000)...), false, b, true},
		{"behind two streams", append(behind(a, 8, 6000, 3000), behind(b, 8, 6000, 3000)...), false, nil, false},
		{"behind, numbers skipped", skip(behind(b, 8, 3000, 6000, 9000, 12000, 15000, 18000, 21000, 24000), 2), true, b, true},
		{"behind, numbers skipped by too few", skip(behind(b, 9, 3000, 6000, 9000, 12000, 15000, 18000, 21000, 24000, 27000), 2), true, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r rtxMatcher
			for i, v := range tt.votes {
				if !r.voting() {
					t.Fatalf("vote %d refused", i)
				}
				if full := r.vote(v.osn, v.s, osnPlace{}, false, v.ts, -1, false, v.tsv, v.skipped, v.filled, v.behind); full != (i == rtxVotes-1) {
					t.Fatalf("vote %d: full = %v", i, full)
				}
			}
			if got, gotByTS := r.decide(tt.final); got != tt.want || gotByTS != tt.wantByTS {
				t.Errorf("decide = %p, %v, want %p, %v (a %p, b %p)", got, gotByTS, tt.want, tt.wantByTS, a, b)
			}
			decided := tt.final || len(tt.votes) == rtxVotes
			if r.decided != decided || r.voting() == decided {
				t.Errorf("decided %v, voting %v; want decided %v", r.decided, r.voting(), decided)
			}
			if got, _ := r.decide(true); decided && got != nil {
				t.Error("decided twice")
			}
		})
	}
}

func TestSenderMatch(t *testing.T) {
	// The sender's streams: video (PT 96) at highest 5000, audio (PT 111) at 30000, an RTX
	// stream already matched, and the candidate itself (PT 97).
	stream := func(pt uint8, highest int64) *Stream {
		s := &Stream{pt: pt, packets: 1}
		s.seq.highest = highest
		return s
	}
	video, audio, rtx := stream(96, 5000), stream(111, 30000), stream(98, 5000)
	rtx.rtx.of = video
	cand := stream(97, 5)
	snd := &sender{streams: []*Stream{video, audio, rtx, cand}}
	tests := []struct {
		name string
		osn  uint16
		want *Stream
	}{
		{"just sent", 5000, video},
		{"recent loss", 4990, video},
		{"rtxBehind, the oldest", 5000 - rtxBehind + 1, video},
		{"older than rtxBehind", 5000 - rtxBehind, nil},
		{"rtxAhead", 5000 + rtxAhead, video},
		{"beyond rtxAhead", 5000 + rtxAhead + 1, nil},
		{"another stream's range", 29990, audio},
		{"its own numbers do not count", 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := snd.match(cand, tt.osn); got != tt.want {
				t.Errorf("match(%d) = %p, want %p", tt.osn, got, tt.want)
			}
		})
	}
	// A stream of the candidate's own payload type is no media stream of it.
	same := stream(97, 100)
	snd2 := &sender{streams: []*Stream{same, cand}}
	if got := snd2.match(cand, 100); got != nil {
		t.Errorf("matched a stream of the same payload type")
	}
}

// TestSenderMatchTS: a timestamp votes for the one stream of another payload type, not
// RTX, that sent it among its last tsRingLen distinct timestamps.
func TestSenderMatchTS(t *testing.T) {
	stream := func(pt uint8, ts0 uint32, frames int) *Stream {
		s := &Stream{pt: pt, packets: 1}
		for i := 0; i < frames; i++ {
			s.rtx.recent.add(ts0+uint32(i)*3000, int64(2*i))
			s.rtx.recent.add(ts0+uint32(i)*3000, int64(2*i+1)) // a frame's second packet
		}
		return s
	}
	// Two video streams of one sender (simulcast: own random timestamp offsets), audio, an
	// RTX stream already matched that resent video's timestamps, and the candidate (PT 97).
	video, video2, audio := stream(96, 1000, 100), stream(96, 7_000_000, 100), stream(111, 3_000_000_000, 1)
	rtx := stream(98, 1000+99*3000, 1)
	rtx.rtx.of = video
	cand := stream(97, 5, 1)
	snd := &sender{streams: []*Stream{video, video2, audio, rtx, cand}}
	// A layer sharing video's timestamps, which lost (before the capture) its last frame.
	layer := stream(96, 1000, 99)
	shared := &sender{streams: []*Stream{video, layer, cand}}
	tests := []struct {
		name string
		snd  *sender
		ts   uint32
		want *Stream
	}{
		{"video's last frame", snd, 1000 + 99*3000, video},
		{"video's oldest frame kept", snd, 1000 + (100-tsRingLen)*3000, video},
		{"older than the ring", snd, 1000 + (99-tsRingLen)*3000, nil},
		{"the other layer's frame", snd, 7_000_000 + 50*3000, video2},
		{"audio's timestamp", snd, 3_000_000_000, audio},
		{"a timestamp no stream sent", snd, 1001, nil},
		{"its own timestamps do not count", snd, 5, nil},
		{"two layers sent it: ambiguous", shared, 1000 + 98*3000, nil},
		{"one layer sent it, the other shares the clock: ambiguous", shared, 1000 + 99*3000, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.snd.matchTS(cand, tt.ts); got != tt.want {
				t.Errorf("matchTS(%d) = %p, want %p", tt.ts, got, tt.want)
			}
		})
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
	// Repairs: the five lost numbers resent; probes: the 11 received ones and 3 padding-only.
	if r.RTX == nil || r.RTX.MediaSSRC != "0x000000b0" || r.RTX.Repairs != 5 || r.RTX.Probes != 14 ||
		r.JitterMS != nil || r.DelayMS != nil || r.Late != nil {
		t.Errorf("rtx %+v jitter %v delay %v late %v", r.RTX, r.JitterMS, r.DelayMS, r.Late)
	}
	if r.Packets != 19 || r.PaddingPackets == nil || *r.PaddingPackets != 3 || r.PaddingBytes == nil || *r.PaddingBytes != 600 ||
		r.PaddedPackets != 3 || r.PayloadBytes != 16*102 || r.Expected != 19 {
		t.Errorf("rtx packets %d padding %v/%v padded %d payload %d expected %d", r.Packets, r.PaddingPackets, r.PaddingBytes, r.PaddedPackets, r.PayloadBytes, r.Expected)
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

// TestSparseRTXSurvivesEviction: a full candidate table evicts idle candidates, but not a
// sparse RTX stream whose OSNs so far fall among its media stream's numbers: pion's
// repairs, 3 s apart with RTX numbers jumping by 300, still elect it with 5 packets.
func TestSparseRTXSurvivesEviction(t *testing.T) {
	tr := NewTracker(Config{MaxStreams: 8})
	var as []arrival
	at := func(i int) int64 { return T0 + int64(i)*10*ms1 }
	lost := map[int]bool{100: true, 400: true, 700: true, 1000: true, 1300: true}
	junk := uint32(0x5000)
	for i := 0; i < 1500; i++ {
		if !lost[i] {
			b := rp{pt: 96, seq: uint16(1000 + i), ts: uint32(900 * i), ssrc: 0xB0, payload: make([]byte, 500)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i))})
		}
		if lost[i] {
			payload := append(u16(uint16(1000+i)), make([]byte, 100)...)
			b := rp{pt: 97, seq: uint16(7 + i), ts: uint32(900 * i), ssrc: 0xB1, payload: payload}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+40*ms1)})
		}
		if i%20 == 0 { // one-packet candidates that fill the table
			b := rp{pt: 0, seq: 1, ts: 1, ssrc: junk, payload: make([]byte, 20)}.bytes()
			junk++
			as = append(as, arrival{pathB, msg(b, at(i)+ms1)})
		}
	}
	feed(t, tr, as)
	if tr.Counts().Evicted == 0 {
		t.Fatalf("nothing evicted: the table never filled")
	}
	t.Logf("counts %+v", tr.Counts())
	rtx := bySSRC(t, tr, 0xB1)
	r := rtx.Summary(T0)
	m := bySSRC(t, tr, 0xB0).Summary(T0)
	if r.Kind != "rtx" || r.RTX == nil || r.RTX.Repairs != 5 || r.RTX.Probes != 0 || m.RecoveredByRTX == nil || *m.RecoveredByRTX != 5 {
		t.Errorf("rtx kind %s %+v, media recovered %v", r.Kind, r.RTX, m.RecoveredByRTX)
	}
}

// TestRTXFromSignalling: two video streams of one sender on one path with payload type 96
// (simulcast), 0xC0 losing 100 and 300, and 0xC2 (PT 97) resending them: 2 repairs, too
// few to vote. apt=96 alone names two streams, so none; an FID pair names 0xC0, given before
// the media or only after 0xC2's packets (linked at the end); from the SDP of the sender
// (Addr its source) or of the receiver. Unlinked, 0xC2 (2 packets) is no stream.
func TestRTXFromSignalling(t *testing.T) {
	apt := PayloadHint{Addr: bob, PT: 97, Codec: "rtx", ClockRate: 90000, Media: "video", RTX: true, APT: 96}
	tests := []struct {
		name     string
		apt      bool
		fid      *FIDHint
		fidLater bool
		want     uint32 // the media stream 0xC2 is linked to; 0: none
	}{
		{"no signalling", false, nil, false, 0},
		{"apt naming two streams", true, nil, false, 0},
		{"fid at the sender's address", true, &FIDHint{alice, 0xC0, 0xC2}, false, 0xC0},
		{"fid at the receiver's address, no apt", false, &FIDHint{bob, 0xC0, 0xC2}, false, 0xC0},
		{"fid after the rtx packets", false, &FIDHint{alice, 0xC0, 0xC2}, true, 0xC0},
		// An address neither end of the path: a candidate advertised for a NAT (an SFU on a
		// 1:1 NAT, captured inside it). The SSRC pair names the streams (before: no link).
		{"fid at another address", false, &FIDHint{netip.MustParseAddrPort("192.0.2.1:5000"), 0xC0, 0xC2}, false, 0xC0},
		{"fid at no address: any path", false, &FIDHint{netip.AddrPort{}, 0xC0, 0xC2}, false, 0xC0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			if tt.apt {
				tr.Hint(apt)
			}
			if tt.fid != nil && !tt.fidLater {
				tr.HintFID(*tt.fid)
			}
			var as []arrival
			at := func(i int) int64 { return T0 + int64(i)*10*ms1 }
			for i := 0; i < 500; i++ {
				for k, ssrc := range []uint32{0xC0, 0xC1} {
					if ssrc == 0xC0 && (i == 100 || i == 300) {
						continue
					}
					b := rp{pt: 96, seq: uint16(1000 + 5000*k + i), ts: uint32(900 * i), ssrc: ssrc, payload: make([]byte, 500)}.bytes()
					as = append(as, arrival{pathA, msg(b, at(i)+int64(k))})
				}
			}
			for k, i := range []int{100, 300} {
				b := rp{pt: 97, seq: uint16(7 + k), ts: uint32(900 * i), ssrc: 0xC2, payload: append(u16(uint16(1000+i)), make([]byte, 500)...)}.bytes()
				as = append(as, arrival{pathA, msg(b, at(i)+40*ms1)})
			}
			feed(t, tr, as)
			if tt.fidLater {
				tr.HintFID(*tt.fid)
			}
			// Unlinked, the 2-packet stream does not qualify: it is not among the streams.
			var rtx *Stream
			for _, s := range tr.Streams() {
				if s.SSRC() == 0xC2 {
					rtx = s
				}
			}
			var got uint32
			if rtx != nil && rtx.RTXOf() != nil {
				got = rtx.RTXOf().SSRC()
			}
			if got != tt.want || (rtx == nil) != (tt.want == 0) {
				t.Fatalf("rtx stream %v, of 0x%x, want 0x%x", rtx != nil, got, tt.want)
			}
			if got == 0 {
				return
			}
			r, m := rtx.Summary(T0), bySSRC(t, tr, 0xC0).Summary(T0)
			if r.Kind != "rtx" || r.RTX == nil || r.RTX.Repairs != 2 || r.RTX.Probes != 0 || rtx.RTXDisputed() != nil ||
				m.RecoveredByRTX == nil || *m.RecoveredByRTX != 2 || *m.Lost != 2 {
				t.Errorf("rtx %s %+v, media lost %d recovered %v", r.Kind, r.RTX, *m.Lost, m.RecoveredByRTX)
			}
		})
	}
}

// TestSignalledRTXOfNoStream: apt=96 names 0xC2 an RTX stream, but two streams have
// payload type 96 (simulcast layers) and its OSNs and timestamps fall among neither's: its
// media stream cannot be told. It is still RTX, not a video stream of its own: no loss, no
// media, rtx_of null. And a FEC stream (ulpfec, signalled) carrying the timestamps of the
// media it protects is FEC, not RTX elected by those timestamps.
func TestSignalledRTXOfNoStream(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Hint(PayloadHint{Addr: bob, PT: 97, Codec: "rtx", ClockRate: 90000, Media: "video", RTX: true, APT: 96})
	tr.Hint(PayloadHint{Addr: bob, PT: 118, Codec: "ulpfec", ClockRate: 90000, Media: "video"})
	var as []arrival
	at := func(i int) int64 { return T0 + int64(i)*10*ms1 }
	for i := 0; i < 500; i++ {
		for k, ssrc := range []uint32{0xC0, 0xC1} {
			b := rp{pt: 96, seq: uint16(1000 + 5000*k + i), ts: uint32(900 * i), ssrc: ssrc, payload: make([]byte, 500)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+int64(k))})
		}
		if i%5 == 0 { // FEC after every fifth frame, with its timestamp
			b := rp{pt: 118, seq: uint16(20000 + i/5), ts: uint32(900 * i), ssrc: 0xF0, payload: make([]byte, 200)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+2*ms1)})
		}
	}
	for k := range 12 {
		i := 20 + 40*k
		b := rp{pt: 97, seq: uint16(7 + k), ts: uint32(900*i + 450), ssrc: 0xC2, payload: append(u16(uint16(30000+k)), make([]byte, 500)...)}.bytes()
		as = append(as, arrival{pathA, msg(b, at(i)+5*ms1)})
	}
	feed(t, tr, as)
	rtx, fec := bySSRC(t, tr, 0xC2), bySSRC(t, tr, 0xF0)
	r, f := rtx.Summary(T0), fec.Summary(T0)
	if r.Kind != "rtx" || r.Lost != nil || r.RTXOf != nil || r.JitterMS != nil || rtx.IsMedia() {
		t.Errorf("0xC2: kind %s lost %v rtx_of %v jitter %v media %v; want rtx, null, null, null, false",
			r.Kind, r.Lost, r.RTXOf, r.JitterMS, rtx.IsMedia())
	}
	if f.Kind != "fec" || f.RTXOf != nil || !fec.IsMedia() {
		t.Errorf("0xF0: kind %s rtx_of %v; want fec, null", f.Kind, f.RTXOf)
	}
	dm := tr.Direction(tr.Streams(), T0)
	if dm.MediaPackets != 1000 { // the video's: FEC is no media of the direction (auxiliary)
		t.Errorf("%d media packets in the direction, want 1,000", dm.MediaPackets)
	}

	// One video stream, and its FEC with a frame's timestamp 2 ms after it.
	tr = NewTracker(Config{})
	tr.Hint(PayloadHint{Addr: bob, PT: 118, Codec: "ulpfec", ClockRate: 90000, Media: "video"})
	as = nil
	for i := 0; i < 500; i++ {
		b := rp{pt: 96, seq: uint16(1000 + i), ts: uint32(900 * i), ssrc: 0xC0, payload: make([]byte, 500)}.bytes()
		as = append(as, arrival{pathA, msg(b, at(i))})
		if i%5 == 0 {
			b := rp{pt: 118, seq: uint16(20000 + i/5), ts: uint32(900 * i), ssrc: 0xF0, payload: make([]byte, 200)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+2*ms1)})
		}
	}
	feed(t, tr, as)
	fec = bySSRC(t, tr, 0xF0)
	if f := fec.Summary(T0); f.Kind != "fec" || f.RTXOf != nil || !fec.IsMedia() {
		t.Errorf("0xF0 beside one video stream: kind %s rtx_of %v; want fec, null", f.Kind, f.RTXOf)
	}
}

// TestHintBySource: a hint for a source (Addr zero, as from WebRTC's a=ssrc lines) names
// the codec and clock rate of the stream with that SSRC and payload type wherever it
// travels; a hint at the stream's receiving address comes first.
func TestHintBySource(t *testing.T) {
	opus := PayloadHint{SSRC: 0xA1, PT: 111, Codec: "opus", ClockRate: 48000, Media: "audio"}
	atBob := PayloadHint{Addr: bob, PT: 111, Codec: "G722", ClockRate: 8000, Media: "audio"}
	other := opus
	other.SSRC = 0xA2
	otherPT := opus
	otherPT.PT = 112
	tests := []struct {
		name  string
		hints []PayloadHint
		codec string
		clock int
		infer bool
	}{
		{"by source", []PayloadHint{opus}, "opus", 48000, false},
		{"the address first", []PayloadHint{opus, atBob}, "G722", 8000, false},
		{"another source", []PayloadHint{other}, "", 48000, true},
		{"another payload type", []PayloadHint{otherPT}, "", 48000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			for _, h := range tt.hints {
				tr.Hint(h)
			}
			var as []arrival
			for i := 0; i < 200; i++ {
				b := rp{pt: 111, seq: uint16(100 + i), ts: uint32(960 * i), ssrc: 0xA1, payload: make([]byte, 80)}.bytes()
				as = append(as, arrival{pathA, msg(b, T0+int64(i)*20*ms1)})
			}
			feed(t, tr, as)
			st := only(t, tr).Summary(T0)
			codec := ""
			if st.Codec != nil {
				codec = *st.Codec
			}
			if codec != tt.codec || st.ClockRate == nil || *st.ClockRate != tt.clock || st.ClockRateInferred != tt.infer {
				t.Errorf("codec %q, clock %v (inferred %v); want %q, %d (%v)", codec, st.ClockRate, st.ClockRateInferred, tt.codec, tt.clock, tt.infer)
			}
		})
	}
}

// TestFECBySDP: a stream whose payload type SDP names ulpfec or flexfec is of kind fec,
// and its packets are no delay samples (their timestamps are those of protected packets).
func TestFECBySDP(t *testing.T) {
	for _, codec := range []string{"flexfec-03", "ulpfec", "FlexFEC"} {
		tr := NewTracker(Config{})
		tr.Hint(PayloadHint{SSRC: 0xF0, PT: 120, Codec: codec, ClockRate: 90000, Media: "video"})
		var as []arrival
		for i := 0; i < 100; i++ {
			b := rp{pt: 120, seq: uint16(i), ts: uint32(3000 * (i / 4)), ssrc: 0xF0, payload: make([]byte, 300)}.bytes()
			as = append(as, arrival{pathA, msg(b, T0+int64(i)*10*ms1)})
		}
		feed(t, tr, as)
		st := only(t, tr).Summary(T0)
		if st.Kind != "fec" || st.DelayMS != nil || st.Late != nil {
			t.Errorf("%s: kind %q, delay %v, late %v; want fec, no delay", codec, st.Kind, st.DelayMS, st.Late)
		}
	}
}

// TestRTXAheadOfTheGap: video 0xAA (PT 96, 1000+i every 10 ms) loses 20..29, and RTX
// stream 0xBB resends each 5 ms after it was due, before packet 30 shows the gap, and then
// probes 60 and 61, which arrived. The ten resends repaired numbers the video lost: 10
// repairs and 2 probes, as recovered_by_rtx (10) says, however the stream is found RTX: by
// its votes at the end, by an SDP FID pair, or by 16 probes of received numbers before the
// loss (decided early). A second copy of a number still lost is a repair too, ahead of the
// gap or after it. Judged when they came, an OSN above the video's highest number was not
// wanted: linked before the resends, 0 repairs and 12 probes (h152: 1 of 5), and a second
// copy voting at the end was a probe.
func TestRTXAheadOfTheGap(t *testing.T) {
	tests := []struct {
		name          string
		fid, early    bool
		again         bool // 25 resent again, ahead of the gap and after it
		repairs, prob int64
	}{
		{"voted at the end", false, false, false, 10, 2},
		{"signalled", true, false, false, 10, 2},
		{"decided early", false, true, false, 10, 18},
		{"signalled, second copies", true, false, true, 12, 2},
		{"voted at the end, second copies", false, false, true, 12, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			if tt.fid {
				tr.HintFID(FIDHint{netip.AddrPort{}, 0xAA, 0xBB})
			}
			var as []arrival
			at := func(i int) int64 { return T0 + int64(i)*10*ms1 }
			for i := 0; i < 100; i++ {
				if i >= 20 && i < 30 {
					continue
				}
				b := rp{pt: 96, seq: uint16(1000 + i), ts: uint32(900 * i), ssrc: 0xAA, payload: make([]byte, 900)}.bytes()
				as = append(as, arrival{pathA, msg(b, at(i))})
			}
			var resends []int
			var when []int64
			if tt.early {
				for i := range 16 {
					resends, when = append(resends, i), append(when, at(16)+int64(i)*ms1/4)
				}
			}
			for _, i := range []int{20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 60, 61} {
				resends, when = append(resends, i), append(when, at(i)+5*ms1)
			}
			if tt.again {
				resends, when = append(resends, 25, 25), append(when, at(25)+8*ms1, at(40)+5*ms1)
			}
			for k, i := range resends {
				b := rp{pt: 97, seq: uint16(400 + k), ts: uint32(900 * i), ssrc: 0xBB, payload: append(u16(uint16(1000+i)), make([]byte, 900)...)}.bytes()
				as = append(as, arrival{pathA, msg(b, when[k])})
			}
			feed(t, tr, as)
			rtx := bySSRC(t, tr, 0xBB).Summary(T0)
			media := bySSRC(t, tr, 0xAA).Summary(T0)
			if rtx.RTX == nil || rtx.RTX.Repairs != tt.repairs || rtx.RTX.Probes != tt.prob || media.RecoveredByRTX == nil || *media.RecoveredByRTX != 10 {
				t.Errorf("rtx %+v, recovered %v; want %d repairs, %d probes, 10 recovered", rtx.RTX, media.RecoveredByRTX, tt.repairs, tt.prob)
			}
		})
	}
}

// TestFECWithMediaTimestamps: video 0xB0 (PT 96, a packet a frame) loses 100 and 200; a FEC
// stream 0xF0 (PT 98, RFC 5109's header first: 0x00 0x60, then a protected sequence number
// base) follows every fifth packet with its timestamp; an RTX stream 0xB1 (PT 97) resends
// 100 and 200, 40 ms later. The FEC stream's payloads begin alike: no RTX stream, whatever
// its timestamps say, and it does not stop the RTX stream's two packets being elected by
// their timestamps. Before, FEC was elected (h137: 145 of 150), and credited with the two
// repairs; the RTX stream went unreported.
func TestFECWithMediaTimestamps(t *testing.T) {
	var as []arrival
	at := func(i int) int64 { return T0 + int64(i)*10*ms1 }
	for i := 0; i < 300; i++ {
		if i != 100 && i != 200 {
			b := rp{pt: 96, seq: uint16(1000 + i), ts: uint32(900 * i), ssrc: 0xB0, payload: make([]byte, 1000)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i))})
		}
		if i%5 == 4 {
			payload := append([]byte{0x00, 0x60}, u16(uint16(1000+i-4))...)
			b := rp{pt: 98, seq: uint16(5000 + i/5), ts: uint32(900 * i), ssrc: 0xF0, payload: append(payload, make([]byte, 200)...)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+ms1)})
		}
	}
	for k, i := range []int{100, 200} {
		payload := append(u16(uint16(1000+i)), make([]byte, 1000)...)
		b := rp{pt: 97, seq: uint16(7 + k), ts: uint32(900 * i), ssrc: 0xB1, payload: payload}.bytes()
		as = append(as, arrival{pathA, msg(b, at(i)+40*ms1)})
	}
	slicesSortBy(as, func(a arrival) int64 { return a.m.FirstSeen })
	tr := NewTracker(Config{})
	feed(t, tr, as)
	media, fec, rtx := bySSRC(t, tr, 0xB0), bySSRC(t, tr, 0xF0), bySSRC(t, tr, 0xB1)
	if fec.IsRTX() || rtx.RTXOf() != media {
		t.Fatalf("fec is rtx %v; rtx of the media stream %v", fec.IsRTX(), rtx.RTXOf() == media)
	}
	m, r := media.Summary(T0), rtx.Summary(T0)
	if *m.Lost != 2 || m.RecoveredByRTX == nil || *m.RecoveredByRTX != 2 || r.RTX == nil || r.RTX.Repairs != 2 {
		t.Errorf("media lost %d recovered %v; rtx %+v", *m.Lost, m.RecoveredByRTX, r.RTX)
	}
}

// TestRTXOfManyStreams: an SFU forwarding 20 participants on one bundle, each an audio
// (PT 111), a video (PT 96) losing 10 packets, and its RTX stream (PT 97) resending them
// 30 ms later: 60 streams of one sender on one leg, the videos and RTX streams of the later
// participants first seen after 32 of them. Every RTX stream is its video's, each video
// recovered 10. Before, the sender's streams searched for RTX stopped at 32: 8 RTX streams
// went unmatched, counted as video (h158). Past MaxSenderStreams, the streams are counted.
func TestRTXOfManyStreams(t *testing.T) {
	tr := NewTracker(Config{})
	var as []arrival
	at := func(i int) int64 { return T0 + int64(i)*20*ms1 }
	const n = 20
	for p := range n {
		audio, video, rtx := uint32(0xA000+p), uint32(0xB000+p), uint32(0xC000+p)
		base := uint16(1000 * p) // each layer's own numbers
		for i := range 300 {
			b := rp{pt: 111, seq: base + uint16(i), ts: uint32(960 * i), ssrc: audio, payload: make([]byte, 100)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+int64(p)*ms1/10)})
			if i%25 == 5 && i > 50 {
				continue // lost
			}
			b = rp{pt: 96, seq: base + 500 + uint16(i), ts: uint32(3000 * i), ssrc: video, payload: make([]byte, 800)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+int64(p)*ms1/10+ms1/20)})
		}
		for k, i := range []int{55, 80, 105, 130, 155, 180, 205, 230, 255, 280} {
			b := rp{pt: 97, seq: uint16(k), ts: uint32(3000 * i), ssrc: rtx, payload: append(u16(base+500+uint16(i)), make([]byte, 800)...)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+30*ms1)})
		}
	}
	feed(t, tr, as)
	for p := range n {
		r, v := bySSRC(t, tr, uint32(0xC000+p)), bySSRC(t, tr, uint32(0xB000+p))
		vs := v.Summary(T0)
		if r.RTXOf() != v || vs.RecoveredByRTX == nil || *vs.RecoveredByRTX != 10 {
			t.Errorf("participant %d: rtx of %v, video recovered %v; want its video, 10", p, r.RTXOf(), vs.RecoveredByRTX)
		}
	}
	if u := tr.Counts().Unsearched; u != 0 {
		t.Errorf("%d streams unsearched, want 0", u)
	}

	// MaxSenderStreams + 3 streams of one sender: the last 3 are counted.
	tr = NewTracker(Config{MinPackets: 1})
	for k := range MaxSenderStreams + 3 {
		b := rp{pt: 0, seq: 1, ts: 160, ssrc: uint32(0x10000 + k), payload: make([]byte, 160)}.bytes()
		rtpTo(tr, nil, pathA, msg(b, T0+int64(k)*ms1))
	}
	if u := tr.Counts().Unsearched; u != 3 {
		t.Errorf("%d streams unsearched, want 3", u)
	}
}
