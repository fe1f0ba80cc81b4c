package rtpflow

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// segment is n packets 20 ms apart of a 8 kHz stream, numbered from seq0 and timestamped
// from ts0, packet i arriving at T0 + (i0+i)·20 ms: a sender's run of numbers between
// restarts.
func segment(pt uint8, i0, n int, seq0 uint16, ts0 uint32) []arrival {
	as := make([]arrival, 0, n)
	for i := 0; i < n; i++ {
		b := rp{pt: pt, seq: seq0 + uint16(i), ts: ts0 + uint32(160*i), ssrc: 0xA1, payload: make([]byte, 160)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+int64(i0+i)*20*ms1)})
	}
	return as
}

// TestStreamRestartTiming: at a restart of the numbers and timestamps, or a stray packet,
// jitter and delay stay those of a perfectly regular stream (0), where a jump of the
// timestamp by hours read as hours of jitter and delay.
func TestStreamRestartTiming(t *testing.T) {
	type figures struct {
		Packets, Expected, Lost, Dups, Restarts int64
		Clock                                   int
		JitterMax, DelayMax                     float64
		Samples                                 int64
	}
	stray := rp{pt: 0, seq: 50000, ts: 3e9, ssrc: 0xA1, payload: make([]byte, 160)}.bytes()
	tests := []struct {
		name string
		as   []arrival
		want figures
	}{
		{
			name: "restart",
			as:   append(segment(0, 0, 300, 100, 1000), segment(0, 300, 200, 30000, 4e9)...),
			want: figures{Packets: 500, Expected: 500, Restarts: 1, Clock: 8000, Samples: 500},
		},
		{
			name: "restart onto received numbers, timestamps back",
			as:   append(segment(0, 0, 300, 100, 4e9), segment(0, 300, 200, 150, 1000)...),
			want: figures{Packets: 500, Expected: 500, Restarts: 1, Clock: 8000, Samples: 500},
		},
		{
			// The stray arrives between two packets; it counts as a packet only.
			name: "stray packet",
			as: append(segment(0, 0, 300, 100, 1000),
				arrival{pathA, msg(stray, T0+150*20*ms1+5*ms1)}),
			want: figures{Packets: 301, Expected: 300, Clock: 8000, Samples: 300},
		},
		{
			// A dynamic payload type restarting 200 ms in: the clock is inferred from the
			// packets before the restart.
			name: "restart before the clock is known",
			as:   append(segment(96, 0, 10, 100, 1000), segment(96, 10, 200, 30000, 4e9)...),
			want: figures{Packets: 210, Expected: 210, Restarts: 1, Clock: 8000, Samples: 210},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			feed(t, tr, tt.as)
			st := only(t, tr).Summary(T0)
			got := figures{Packets: st.Packets, Expected: st.Expected, Lost: *st.Lost, Dups: st.Duplicates,
				Restarts: st.Restarts}
			if st.ClockRate != nil {
				got.Clock = *st.ClockRate
			}
			if st.JitterMS != nil {
				got.JitterMax = st.JitterMS.Max
			}
			if st.DelayMS != nil {
				got.DelayMax, got.Samples = st.DelayMS.Max, st.DelayMS.Samples
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
