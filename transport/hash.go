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

// endpointHash mixes an address and port (Fibonacci hashing). An IPv4 address is read with
// As4: As16's array, written in two halves and read back whole, stalls on store forwarding
// and made the hash three times slower.
func endpointHash(ap netip.AddrPort) uint64 {
	a := ap.Addr()
	var v uint64
	if a.Is4() {
		b := a.As4()
		v = uint64(binary.BigEndian.Uint32(b[:]))
	} else {
		b := a.As16()
		v = binary.LittleEndian.Uint64(b[:8]) ^ binary.LittleEndian.Uint64(b[8:])
	}
	return (v ^ uint64(ap.Port())<<32) * 0x9E3779B97F4A7C15
}
