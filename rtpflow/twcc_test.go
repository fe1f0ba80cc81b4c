package rtpflow

import "testing"

func TestTWCCState(t *testing.T) {
	type obs struct {
		id uint8
		v  uint16
	}
	// lossEvery gives id 2 counting from 0 to 99, every nth value lost.
	lossEvery := func(n int) []obs {
		var o []obs
		for i := 0; i < 100; i++ {
			if i%n != n-1 {
				o = append(o, obs{2, uint16(i)})
			}
		}
		return o
	}
	// count gives n observations of id counting by one from v0.
	count := func(id uint8, v0 uint16, n int) []obs {
		var o []obs
		for i := 0; i < n; i++ {
			o = append(o, obs{id, v0 + uint16(i)})
		}
		return o
	}
	tests := []struct {
		name   string
		obs    []obs
		wantID uint8
		wantOK bool
	}{
		{"nothing", nil, 0, false},
		{"counting by one", count(2, 100, 6), 2, true},
		{"counting by one across the wrap", count(2, 65533, 6), 2, true},
		{"too few successors", count(2, 100, 4), 0, false},
		{"just enough: four successors", count(2, 100, 5), 2, true},
		{"a constant value (like playout-delay)", []obs{{4, 9}, {4, 9}, {4, 9}, {4, 9}, {4, 9}, {4, 9}}, 0, false},
		{"interleaved with a constant id",
			[]obs{{2, 1}, {4, 9}, {2, 2}, {4, 9}, {2, 3}, {4, 9}, {2, 4}, {4, 9}, {2, 5}, {4, 9}}, 2, true},
		{"84% of the successors in step: two duplicates and a jump",
			append(count(2, 0, 17), obs{2, 16}, obs{2, 16}, obs{2, 22}), 2, true},
		// A video sender's packet held back 300 ms (40 overtook it), one in ten.
		{"one packet in ten held back by 40",
			func() []obs {
				var o []obs
				for i := 0; i < 400; i++ {
					if i%10 == 5 && i+40 < 400 {
						continue // arrives 40 later
					}
					o = append(o, obs{2, uint16(i)})
					if j := i - 40; j >= 0 && j%10 == 5 {
						o = append(o, obs{2, uint16(j)})
					}
				}
				return o
			}(), 2, true},
		{"every fifth lost", lossEvery(5), 2, true},
		{"every fourth lost (h142: not found from 20%)", lossEvery(4), 2, true},
		// Audio (50 a second) and video (90) of one sender, each counting its own packets
		// from 0: the audio's values fall behind the video's, in reach of a held-back
		// packet, but the highest advances 0.64 a packet.
		{"two streams' own counters interleaved",
			func() []obs {
				var o []obs
				a, v := 0, 0
				for t := 0; t < 450; t++ {
					if t%9 < 5 {
						o = append(o, obs{2, uint16(v)})
						v++
					} else {
						o = append(o, obs{2, uint16(a)})
						a++
					}
				}
				return o
			}(), 0, false},
		{"fewer than 80%",
			[]obs{{2, 1}, {2, 2}, {2, 3}, {2, 4}, {2, 8}, {2, 12}}, 0, false},
		// The network swapped one packet in ten with the next: each swap is one value out
		// of step (before: three, 69% in step, and transport-cc was not found, h137).
		{"one packet in ten swapped with the next",
			func() []obs {
				o := count(2, 100, 50)
				for i := 3; i+1 < len(o); i += 10 {
					o[i], o[i+1] = o[i+1], o[i]
				}
				return o
			}(), 2, true},
		{"counting by two (a clock, not a sequence)",
			[]obs{{2, 0}, {2, 2}, {2, 4}, {2, 6}, {2, 8}, {2, 10}}, 0, false},
		{"two counting ids: the one with more hits",
			append(count(7, 0, 6), count(3, 50, 9)...), 3, true},
		{"a ninth id is not followed",
			append([]obs{{1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}, {8, 0}}, count(9, 0, 6)...), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w twccState
			for _, o := range tt.obs {
				w.observe(o.id, o.v)
			}
			id, ok := w.id()
			if id != tt.wantID || ok != tt.wantOK {
				t.Errorf("id() = %d, %v; want %d, %v", id, ok, tt.wantID, tt.wantOK)
			}
		})
	}
}
