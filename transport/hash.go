package transport

import (
	"encoding/binary"
	"net/netip"
)

// PairHash is a hash of two endpoints that does not depend on their order (PairHash(a, b) ==
// PairHash(b, a)), for the caches that find a flow or a TURN allocation from either end
// before a map, whose key of two AddrPorts takes longer to hash than the rest of a packet's
// bookkeeping.
func PairHash(a, b netip.AddrPort) uint64 { return endpointHash(a) ^ endpointHash(b) }

// endpointHash mixes an address and port (Fibonacci hashing of the folded address).
func endpointHash(ap netip.AddrPort) uint64 {
	b := ap.Addr().As16()
	v := binary.LittleEndian.Uint64(b[:8]) ^ binary.LittleEndian.Uint64(b[8:]) ^ uint64(ap.Port())<<17
	return v * 0x9E3779B97F4A7C15
}
