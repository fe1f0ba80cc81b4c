package wire

import (
	"encoding/binary"
	"net/netip"
)

// The Internet checksum (RFC 1071) of IP headers and of UDP and TCP with their
// pseudo-header (RFC 768, RFC 9293 3.1, RFC 8200 8.1): the ones' complement of the ones'
// complement sum of 16-bit words. ChecksumAdd accumulates, ChecksumFold folds the carries;
// the field holds ^ChecksumFold(sum), and a datagram whose field is right sums to 0xffff.

// ChecksumAdd adds b as big-endian 16-bit words to s, an odd last byte as its high half.
func ChecksumAdd(s uint32, b []byte) uint32 {
	for len(b) >= 2 {
		s += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
		if s >= 1<<31 {
			s = s&0xffff + s>>16
		}
	}
	if len(b) == 1 {
		s += uint32(b[0]) << 8
	}
	return s
}

// ChecksumFold folds the carries of s into 16 bits.
func ChecksumFold(s uint32) uint16 {
	for s > 0xffff {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}

// PseudoHeaderSum is the sum of the IPv4 or IPv6 pseudo-header of a UDP or TCP datagram of
// n bytes (header included) from src to dst.
func PseudoHeaderSum(src, dst netip.Addr, proto uint8, n int) uint32 {
	s := ChecksumAdd(ChecksumAdd(0, src.AsSlice()), dst.AsSlice())
	return s + uint32(proto) + uint32(n&0xffff) + uint32(n>>16)
}
