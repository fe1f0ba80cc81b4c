// Package pcapgen writes packet captures whose content is known by construction, for tests
// and benchmarks.
//
// Writers produce classic pcap (microsecond or nanosecond, either byte order, with a snap
// length that cuts longer frames) and pcapng (several interfaces of different link types and
// timestamp resolutions, several sections, interface statistics, unknown blocks). Frame
// builders are pure functions that return a new slice: Ether, SLL, SLL2, Null, Loop, IPv4,
// IPv6 (with extension headers), their fragmenters, UDP and TCP (with options such as SACK),
// and the shortcuts EtherUDP and EtherTCP that pick IPv4 or IPv6 from the addresses.
//
//	var buf bytes.Buffer
//	w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0)
//	src := netip.MustParseAddrPort("10.0.0.1:5004")
//	dst := netip.MustParseAddrPort("10.0.0.2:5004")
//	err := w.Write(1e9, 0, pcapgen.EtherUDP(src, dst, payload), 0)
//
// Checksums (IPv4 header, UDP and TCP) are correct. Nothing here is meant for the hot path.
package pcapgen
