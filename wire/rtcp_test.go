package wire

import "testing"

func TestRTCPLen(t *testing.T) {
	for _, tc := range []struct {
		hdr  []byte
		want int
	}{
		{[]byte{0x80, 0xc8, 0x00, 0x06}, 28},      // an SR without report blocks
		{[]byte{0x81, 0xc9, 0x00, 0x07}, 32},      // an RR with one
		{[]byte{0x80, 0xcb, 0x00, 0x00}, 4},       // a BYE of no source: the header alone
		{[]byte{0x80, 0xc8, 0xff, 0xff}, 1 << 18}, // the most a length field can say
	} {
		if got := RTCPLen(tc.hdr); got != tc.want {
			t.Errorf("RTCPLen(% x) = %d, want %d", tc.hdr, got, tc.want)
		}
	}
}
