package rtpflow

import (
	"path/filepath"
	"testing"

	"github.com/pion/rtcp"

	"github.com/callpcap/callpcap/internal/testgen/golden"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// fuzzRecords encodes messages for FuzzRTP: per message a control byte (bit 0: RTCP, bit
// 1: the reverse path, bits 2-7: milliseconds since the previous message), a length byte,
// and the payload.
func fuzzRecords(msgs ...[]byte) []byte {
	var out []byte
	for i, m := range msgs {
		ctl := byte(20 << 2)
		if len(m) > 1 && m[1] >= 192 && m[1] <= 223 {
			ctl |= 1
		}
		if i%5 == 4 {
			ctl |= 2
		}
		out = append(out, ctl, byte(len(m)))
		out = append(out, m...)
	}
	return out
}

func fuzzSeeds(t testing.TB) map[string][]byte {
	var audio, video, rtx [][]byte
	for i := 0; i < 12; i++ {
		audio = append(audio, rp{pt: 0, seq: uint16(65530 + i), ts: uint32(160 * i), ssrc: 1, payload: make([]byte, 20)}.bytes())
		ext := oneByte(el{2, u16(uint16(i))}, el{3, u24(uint32(i * 5243))})
		video = append(video, rp{pt: 96, seq: uint16(i), ts: uint32(3000 * (i / 2)), ssrc: 2, marker: i%2 == 1,
			extProfile: profileOneByte, ext: ext, payload: make([]byte, 40)}.bytes())
		rtx = append(rtx, rp{pt: 97, seq: uint16(i), ts: uint32(3000 * (i / 2)), ssrc: 3,
			payload: append(u16(uint16(i)), 1, 2, 3)}.bytes())
	}
	mix := append(append([][]byte{}, video...), rtx...)
	sr, _ := rtcp.Marshal([]rtcp.Packet{&rtcp.SenderReport{SSRC: 1, NTPTime: 0x1234567800000000}})
	rr, _ := rtcp.Marshal([]rtcp.Packet{&rtcp.ReceiverReport{SSRC: 9, Reports: []rtcp.ReceptionReport{
		{SSRC: 1, FractionLost: 3, TotalLost: 5, Jitter: 40, LastSenderReport: 0x56780000, Delay: 100}}},
		&rtcp.TransportLayerNack{MediaSSRC: 2, Nacks: []rtcp.NackPair{{PacketID: 3, LostPackets: 7}}},
		&rtcp.PictureLossIndication{MediaSSRC: 2},
		&rtcp.ReceiverEstimatedMaximumBitrate{Bitrate: 1e6, SSRCs: []uint32{2}}})
	srtcp := []byte{0x81, 201, 0, 7, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	padOnly := rp{pt: 97, seq: 20, ssrc: 3, pad: 100}.bytes()
	two := rp{pt: 0, seq: 1, ssrc: 4, extProfile: 0x1000, ext: twoByte(el{1, nil}, el{200, []byte{1, 2}}), payload: []byte{1}}.bytes()
	return map[string][]byte{
		"audio":    fuzzRecords(audio...),
		"video":    fuzzRecords(video...),
		"rtx":      fuzzRecords(append(mix, padOnly)...),
		"rtcp":     fuzzRecords(append(append([][]byte{sr}, audio...), rr, srtcp)...),
		"twobyte":  fuzzRecords(two, two, two),
		"sr":       sr,
		"rr":       rr,
		"srtcp":    srtcp,
		"truncext": {0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE, 0xDE, 0, 9},
	}
}

// TestWriteSeeds checks testdata/fuzz against fuzzSeeds; -update rewrites it.
func TestWriteSeeds(t *testing.T) {
	for name, b := range fuzzSeeds(t) {
		for _, target := range []string{"FuzzRTP", "FuzzRTCP"} {
			golden.Check(t, filepath.Join("testdata", "fuzz", target, "seed-"+name), golden.FuzzSeed(b))
		}
	}
}

// FuzzRTP feeds arbitrary messages (see fuzzRecords) to a tracker with small bounds and
// summarises everything: it must never panic, and the summaries must keep their invariants.
func FuzzRTP(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := NewTracker(Config{MinPackets: 2, MaxStreams: 4, LateBudget: 20 * 1e6})
		var h wire.RTP
		at := T0
		for len(data) >= 2 {
			ctl, n := data[0], int(data[1])
			data = data[2:]
			n = min(n, len(data))
			payload := append([]byte(nil), data[:n]...)
			data = data[n:]
			at += int64(ctl>>2) * ms1
			if ctl>>2 == 63 {
				at += 2 * 3600 * 1e9 // a jump in time: a series break
			}
			p := pathA
			if ctl&2 != 0 {
				p = pathB
			}
			m := &transport.Message{Payload: payload, FirstSeen: at, Complete: at, Delivered: at,
				Wire: transport.Wire{Total: int64(n) + udpHeaders, Headers: udpHeaders}}
			if ctl&1 != 0 {
				tr.RTCP(p, m)
			} else {
				rtpTo(tr, &h, p, m)
			}
		}
		ss := tr.Streams()
		for _, s := range ss {
			r := s.Summary(T0)
			if r.Lost != nil && (*r.Lost < 0 || *r.Lost > r.Expected) {
				t.Fatalf("lost %d of %d", *r.Lost, r.Expected)
			}
			// A sample speaks for its frame's packets: late counts packets, at most all of them.
			if r.Late != nil && (r.Late.Packets > r.Packets || r.Late.Pct < 0 || r.Late.Pct > 100) {
				t.Fatalf("late %d (%v%%) of %d packets", r.Late.Packets, r.Late.Pct, r.Packets)
			}
			if r.DelayMS != nil && (r.DelayMS.P50 > r.DelayMS.Max || r.DelayMS.P50 < 0) {
				t.Fatalf("delay %+v", r.DelayMS)
			}
			w := s.Wire()
			if w.RTPBytes != w.MediaPayloadBytes+w.RTXPayloadBytes+w.RTPHeaderBytes+w.PaddingBytes+w.DuplicateBytes {
				t.Fatalf("wire split %+v", w)
			}
		}
		dm := tr.Direction(ss, T0)
		if len(dm.Series.MediaKbps) > maxSeriesSeconds {
			t.Fatalf("series of %d seconds", len(dm.Series.MediaKbps))
		}
	})
}

// FuzzRTCP feeds one arbitrary RTCP message after a known stream and summarises it.
func FuzzRTCP(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := NewTracker(Config{})
		for i := 0; i < 12; i++ {
			rtpTo(tr, nil, pathA, msg(rp{pt: 0, seq: uint16(i), ts: uint32(160 * i), ssrc: 1, payload: make([]byte, 20)}.bytes(), T0+int64(i)*20*ms1))
		}
		tr.RTCP(pathB, msg(data, T0+1e9))
		tr.RTCP(pathB, msg(data, T0+2e9))
		for _, s := range tr.Streams() {
			if r := s.Summary(T0).RTCP; r != nil && r.Packets < 0 {
				t.Fatal("negative count")
			}
		}
	})
}
