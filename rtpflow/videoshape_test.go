package rtpflow

import "testing"

func TestVideoShape(t *testing.T) {
	type pkt struct {
		ts      uint32
		payload int
	}
	// frames gives n frames of k packets of size bytes, 3,000 ticks apart.
	frames := func(n, k, size int) []pkt {
		var out []pkt
		for f := range n {
			for range k {
				out = append(out, pkt{uint32(1000 + 3000*f), size})
			}
		}
		return out
	}
	tests := []struct {
		name string
		pkts []pkt
		want bool
	}{
		{"30 frames of 8 packets", frames(30, 8, 1100), true},
		{"3 frames of 2 packets", frames(3, 2, 1100), true},
		{"2 frames of 8 packets", frames(2, 8, 1100), false},
		{"audio: a packet a timestamp", frames(50, 1, 160), false},
		{"RFC 4733 events: 4 bytes", frames(10, 7, 4), false},
		{"probes: one timestamp throughout", frames(1, 30, 240), false},
		{"video at one packet a frame, two in a few", append(frames(20, 1, 900), frames(3, 2, 900)...), false},
	}
	for _, tt := range tests {
		var v videoShape
		for _, p := range tt.pkts {
			v.add(p.ts, p.payload)
		}
		if got := v.frames(); got != tt.want {
			t.Errorf("%s: frames %v, want %v (continued %d of %d, split %d)", tt.name, got, tt.want, v.continued, v.n, v.split)
		}
	}
}
