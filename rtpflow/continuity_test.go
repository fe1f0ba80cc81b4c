package rtpflow

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContinuity(t *testing.T) {
	type step struct {
		seq uint16
		pt  uint8
		at  int64 // ms
		// untimed: a packet whose time is not known (Packet.TimeUnknown)
		untimed bool
	}
	// run numbers packets from first, one every 20 ms, payload type 0.
	run := func(first uint16, n int) []step {
		var s []step
		for i := 0; i < n; i++ {
			s = append(s, step{first + uint16(i), 0, int64(20 * i), false})
		}
		return s
	}
	type counts struct {
		Pairs, Fwd, Cont, Repeats, PTChanges int64
		GapMS                                int64
	}
	tests := []struct {
		name       string
		steps      []step
		want       counts
		continuing bool
	}{
		{"one packet", run(7, 1), counts{}, true},
		{"forward", run(100, 10), counts{Pairs: 9, Fwd: 9, Cont: 9, GapMS: 20}, true},
		{"forward across the wrap", run(65530, 10), counts{Pairs: 9, Fwd: 9, Cont: 9, GapMS: 20}, true},
		{"a burst of losses within maxStep",
			[]step{{1, 0, 0, false}, {2, 0, 20, false}, {101, 0, 40, false}, {102, 0, 60, false}},
			counts{Pairs: 3, Fwd: 3, Cont: 3, GapMS: 20}, true},
		{"a step beyond maxStep",
			[]step{{1, 0, 0, false}, {2, 0, 20, false}, {3, 0, 40, false}, {4, 0, 60, false}, {200, 0, 80, false}},
			counts{Pairs: 4, Fwd: 3, Cont: 3, GapMS: 20}, false},
		{"backwards",
			[]step{{10, 0, 0, false}, {9, 0, 20, false}, {8, 0, 40, false}, {7, 0, 60, false}},
			counts{Pairs: 3, Cont: 3, GapMS: 20}, false},
		{"repeats are neither forward nor backward",
			[]step{{5, 0, 0, false}, {5, 0, 20, false}, {6, 0, 40, false}, {6, 0, 60, false}, {7, 0, 80, false}},
			counts{Pairs: 4, Fwd: 2, Cont: 4, Repeats: 2, GapMS: 20}, true},
		{"random numbers",
			[]step{{1, 0, 0, false}, {5000, 0, 20, false}, {200, 0, 40, false}, {30000, 0, 60, false}},
			counts{Pairs: 3, GapMS: 20}, false},
		{"payload type changing on every step, among four",
			[]step{{1, 0, 0, false}, {2, 8, 20, false}, {3, 9, 40, false}, {4, 18, 60, false}, {5, 0, 80, false}},
			counts{Pairs: 4, Fwd: 4, Cont: 4, PTChanges: 4, GapMS: 20}, false},
		{"a DTMF event's packets between the audio's (baresip)",
			[]step{{1, 0, 0, false}, {2, 101, 0, false}, {3, 0, 20, false}, {4, 101, 20, false}, {5, 0, 40, false}, {6, 101, 40, false}},
			counts{Pairs: 5, Fwd: 5, Cont: 5, PTChanges: 5, GapMS: 20}, true},
		{"audio, comfort noise and events, changing on every step",
			[]step{{1, 0, 0, false}, {2, 13, 20, false}, {3, 101, 40, false}, {4, 0, 60, false}, {5, 13, 80, false}, {6, 101, 100, false}},
			counts{Pairs: 5, Fwd: 5, Cont: 5, PTChanges: 5, GapMS: 20}, true},
		{"one DTMF event in ten packets (two changes of nine: two payload types)",
			append(append(run(1, 5), step{6, 101, 100, false}), step{7, 0, 120, false}, step{8, 0, 140, false}, step{9, 0, 160, false}, step{10, 0, 180, false}),
			counts{Pairs: 9, Fwd: 9, Cont: 9, PTChanges: 2, GapMS: 20}, true},
		{"one DTMF event in eleven packets",
			append(append(run(1, 5), step{6, 101, 100, false}), step{7, 0, 120, false}, step{8, 0, 140, false}, step{9, 0, 160, false},
				step{10, 0, 180, false}, step{11, 0, 200, false}),
			counts{Pairs: 10, Fwd: 10, Cont: 10, PTChanges: 2, GapMS: 20}, true},
		{"arrival out of order: no negative gap",
			[]step{{1, 0, 100, false}, {2, 0, 50, false}, {3, 0, 60, false}},
			counts{Pairs: 2, Fwd: 2, Cont: 2, GapMS: 10}, true},
		{"a packet whose time is not known, given the one before's: no gap to it or from it",
			[]step{{1, 0, 0, false}, {2, 0, 20, false}, {3, 0, 20, true}, {4, 0, 60, false}, {5, 0, 80, false}},
			counts{Pairs: 4, Fwd: 4, Cont: 4, GapMS: 20}, true},
		{"largest arrival gap",
			[]step{{1, 0, 0, false}, {2, 0, 20, false}, {3, 0, 250, false}, {4, 0, 260, false}},
			counts{Pairs: 3, Fwd: 3, Cont: 3, GapMS: 230}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c continuity
			for _, s := range tt.steps {
				c.add(s.seq, s.pt, s.at*ms1, !s.untimed)
			}
			got := counts{c.pairs, c.fwd, c.cont, c.repeats, c.ptChanges, c.gap / ms1}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			if c.continuing() != tt.continuing {
				t.Errorf("continuing = %v, want %v", c.continuing(), tt.continuing)
			}
		})
	}
}
