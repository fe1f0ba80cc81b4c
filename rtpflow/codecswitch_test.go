package rtpflow

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// codecRun is n packets of payload type pt, 20 ms apart, from sequence number seq0 and
// timestamp ts0, advancing by step a packet; packet i arrives at T0 + (i0+i)·20 ms plus
// extra(i0+i).
func codecRun(pt uint8, i0, n int, seq0 uint16, ts0, step uint32, extra func(int) int64) ([]arrival, uint16, uint32) {
	as := make([]arrival, 0, n)
	for i := range n {
		b := rp{pt: pt, seq: seq0 + uint16(i), ts: ts0 + step*uint32(i), ssrc: 0xC0DEC, payload: make([]byte, 160)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+int64(i0+i)*20*ms1+extra(i0+i))})
	}
	return as, seq0 + uint16(n), ts0 + step*uint32(n)
}

// TestCodecSwitch: a call that moves to another codec on its SSRC (a SIP re-INVITE from
// Opus to PCMU), the sequence numbers and timestamps running on, the timestamps at the new
// codec's rate. Read at Opus's 48 kHz, each PCMU packet advanced by 3.3 ms against its
// 20 ms: before, the 300 packets after the switch made a jitter of 16.7 ms and 250 late
// packets, the delay climbing to 4.2 s. Timing now goes on at the rate RFC 3551 or SDP
// names for the new type, and the stream's clock rate stays its first type's.
func TestCodecSwitch(t *testing.T) {
	type figures struct {
		Packets, Lost int64
		Clock         int
		Inferred      bool
		Jitter        [3]float64 // mean, max, last (ms)
		DelayMax      float64
		Late          int64
	}
	regular := func(int) int64 { return 0 }
	// Arrivals 0 or 4 ms late in turn before the switch, on time after it.
	wobbly := func(i int) int64 {
		if i < 300 && i%2 == 1 {
			return 4 * ms1
		}
		return 0
	}
	run := func(extra func(int) int64, runs ...struct {
		pt   uint8
		n    int
		step uint32
	}) []arrival {
		var as []arrival
		seq, ts, i0 := uint16(100), uint32(5000), 0
		for _, r := range runs {
			var a []arrival
			a, seq, ts = codecRun(r.pt, i0, r.n, seq, ts, r.step, extra)
			as = append(as, a...)
			i0 += r.n
		}
		return as
	}
	type r = struct {
		pt   uint8
		n    int
		step uint32
	}
	tests := []struct {
		name string
		as   []arrival
		want figures
	}{
		{
			name: "Opus to PCMU",
			as:   run(regular, r{111, 300, 960}, r{0, 300, 160}),
			want: figures{Packets: 600, Clock: 48000, Inferred: true},
		},
		{
			name: "Opus to PCMU and back",
			as:   run(regular, r{111, 200, 960}, r{0, 200, 160}, r{111, 200, 960}),
			want: figures{Packets: 600, Clock: 48000, Inferred: true},
		},
		{
			name: "PCMU to G.722 (8 kHz RTP clock, RFC 3551) to PCMA",
			as:   run(regular, r{0, 200, 160}, r{9, 200, 160}, r{8, 200, 160}),
			want: figures{Packets: 600, Clock: 8000},
		},
		{
			// A second dynamic type whose rate nothing names (RED without SDP): the
			// timing keeps the rate it runs on.
			name: "Opus to an unnamed dynamic type",
			as:   run(regular, r{111, 300, 960}, r{63, 300, 960}),
			want: figures{Packets: 600, Clock: 48000, Inferred: true},
		},
		{
			// J carries over the switch in milliseconds: the 4 ms swings before it decay
			// after it, as RFC 3550 A.8 run on times in milliseconds has them, with no
			// update at the first PCMU packet (a new reference).
			name: "jitter across the switch",
			as:   run(wobbly, r{111, 300, 960}, r{0, 300, 160}),
			want: func() figures {
				var j, sum, mx float64
				n := 0
				for i := 1; i < 600; i++ {
					if i == 300 {
						continue
					}
					d := math.Abs(float64(wobbly(i)-wobbly(i-1)) / 1e6)
					j += (d - j) / 16
					sum += j
					mx = max(mx, j)
					n++
				}
				return figures{Packets: 600, Clock: 48000, Inferred: true,
					Jitter: [3]float64{quantile3(sum / float64(n)), quantile3(mx), quantile3(j)}, DelayMax: 4}
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			feed(t, tr, tt.as)
			st := only(t, tr).Summary(T0)
			got := figures{Packets: st.Packets, Lost: *st.Lost, Inferred: st.ClockRateInferred}
			if st.ClockRate != nil {
				got.Clock = *st.ClockRate
			}
			if st.JitterMS != nil {
				got.Jitter = [3]float64{st.JitterMS.Mean, st.JitterMS.Max, st.JitterMS.Last}
			}
			if st.DelayMS != nil {
				got.DelayMax = st.DelayMS.Max
			}
			if st.Late != nil {
				got.Late = st.Late.Packets
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
