package wire

import (
	"net/netip"
	"testing"
)

// TestChecksum: RFC 1071 3's example (00 01 f2 03 f4 f5 f6 f7 sums to ddf2), an odd length,
// and a UDP datagram over IPv4 and over IPv6 whose field, set to ^sum, makes the whole
// (pseudo-header included) sum to 0xffff.
func TestChecksum(t *testing.T) {
	if got := ChecksumFold(ChecksumAdd(0, []byte{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7})); got != 0xddf2 {
		t.Errorf("RFC 1071 example: %#04x, want 0xddf2", got)
	}
	if got := ChecksumFold(ChecksumAdd(0, []byte{0x12, 0x34, 0x56})); got != 0x1234+0x5600 {
		t.Errorf("odd length: %#04x, want %#04x", got, 0x1234+0x5600)
	}
	for _, tc := range []struct{ src, dst string }{{"10.0.0.1", "10.0.0.2"}, {"2001:db8::1", "2001:db8::2"}} {
		src, dst := netip.MustParseAddr(tc.src), netip.MustParseAddr(tc.dst)
		udp := []byte{0x9c, 0x40, 0x13, 0x88, 0, 13, 0, 0, 'h', 'e', 'l', 'l', 'o'}
		p := PseudoHeaderSum(src, dst, 17, len(udp))
		c := ^ChecksumFold(ChecksumAdd(p, udp))
		udp[6], udp[7] = byte(c>>8), byte(c)
		if got := ChecksumFold(ChecksumAdd(p, udp)); got != 0xffff {
			t.Errorf("%s: the datagram with its checksum sums to %#04x, want 0xffff", tc.src, got)
		}
	}
}
