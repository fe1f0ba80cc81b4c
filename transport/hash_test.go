package transport

import (
	"fmt"
	"net/netip"
	"testing"
)

// TestPairHashSpreads holds PairHash to what the flow and allocation caches need of it: the
// same value either way round, and the address plans of many-call captures spread over a
// 4096-slot table about as well as random values would (200 pairs into 4096 slots: about 5
// collisions; the XOR of the two endpoints' hashes gave 98-196 on all but the first plan).
func TestPairHashSpreads(t *testing.T) {
	ap := func(addr string, port int) netip.AddrPort {
		return netip.AddrPortFrom(netip.MustParseAddr(addr), uint16(port))
	}
	plans := []struct {
		name string
		pair func(i int) (netip.AddrPort, netip.AddrPort)
	}{
		{"clients of one TURN server", func(i int) (netip.AddrPort, netip.AddrPort) {
			return ap(fmt.Sprintf("10.%d.%d.7", i/250, i%250), 50000+i), ap("203.0.113.5", 3478)
		}},
		{"both ends step together", func(i int) (netip.AddrPort, netip.AddrPort) {
			return ap(fmt.Sprintf("10.0.1.%d", 1+i), 40000+2*i), ap(fmt.Sprintf("198.51.100.%d", 1+i), 50000+2*i)
		}},
		{"two hosts, ports step together", func(i int) (netip.AddrPort, netip.AddrPort) {
			return ap("192.168.1.2", 10000+i), ap("192.168.1.3", 20000+i)
		}},
		{"a relay's ports", func(i int) (netip.AddrPort, netip.AddrPort) {
			return ap("203.0.113.5", 49152+i), ap("198.51.100.9", 40000+i)
		}},
		{"IPv6 hosts step together", func(i int) (netip.AddrPort, netip.AddrPort) {
			return ap(fmt.Sprintf("2001:db8::%x", i+1), 5000), ap(fmt.Sprintf("2001:db8:1::%x", i+1), 6000)
		}},
	}
	const pairs, slotBits, most = 200, 12, 15
	for _, pl := range plans {
		t.Run(pl.name, func(t *testing.T) {
			used := map[uint64]bool{}
			collisions := 0
			for i := range pairs {
				a, b := pl.pair(i)
				h := PairHash(a, b)
				if h != PairHash(b, a) {
					t.Fatalf("PairHash(%v, %v) = %#x, the other way round %#x", a, b, h, PairHash(b, a))
				}
				s := h >> (64 - slotBits)
				if used[s] {
					collisions++
				}
				used[s] = true
			}
			if collisions > most {
				t.Errorf("%d pairs fell into %d of %d slots: %d collisions, want at most %d",
					pairs, len(used), 1<<slotBits, collisions, most)
			}
		})
	}
}
