package rtpflow

import "testing"

func TestUnwrapper(t *testing.T) {
	tests := []struct {
		name string
		bits uint
		in   []uint32
		want []int64
	}{
		{"seq in order", 16, []uint32{1, 2, 3}, []int64{1, 2, 3}},
		{"seq wrap", 16, []uint32{65534, 65535, 0, 1}, []int64{65534, 65535, 65536, 65537}},
		{"seq reorder across wrap", 16, []uint32{65535, 1, 0, 2}, []int64{65535, 65537, 65536, 65538}},
		{"seq before first", 16, []uint32{5, 3, 6}, []int64{5, 3, 6}},
		{"seq below zero", 16, []uint32{1, 65535, 2}, []int64{1, -1, 2}},
		{"seq big forward jump", 16, []uint32{0, 30000, 60000}, []int64{0, 30000, 60000}},
		{"ts wrap", 32, []uint32{0xFFFFFF00, 0x00000100}, []int64{0xFFFFFF00, 0x100000100}},
		{"ts backward (B-frames)", 32, []uint32{9000, 6000, 12000}, []int64{9000, 6000, 12000}},
		{"abs-send-time 24-bit wrap", 24, []uint32{0xFFFFF0, 0x000010}, []int64{0xFFFFF0, 0x1000010}},
		{"two wraps", 16, []uint32{0, 30000, 60000, 24464, 54464, 18928}, []int64{0, 30000, 60000, 90000, 120000, 150000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := Unwrapper{Bits: tt.bits}
			for i, v := range tt.in {
				if got := u.Unwrap(v); got != tt.want[i] {
					t.Errorf("Unwrap(%d) #%d = %d, want %d", v, i, got, tt.want[i])
				}
			}
		})
	}
}
