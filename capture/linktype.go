package capture

// LinkType is a LINKTYPE_ value from the pcap and pcapng headers (tcpdump.org/linktypes).
type LinkType uint32

const (
	LinkNull      LinkType = 0   // BSD loopback, host-order 4-byte family
	LinkEthernet  LinkType = 1   // IEEE 802.3
	LinkRaw       LinkType = 101 // raw IPv4 or IPv6, by the version nibble
	LinkLoop      LinkType = 108 // OpenBSD loopback, network-order 4-byte family
	LinkLinuxSLL  LinkType = 113 // Linux cooked capture v1
	LinkNFLOG     LinkType = 239 // Linux netfilter NFLOG
	LinkIPv4      LinkType = 228
	LinkIPv6      LinkType = 229
	LinkLinuxSLL2 LinkType = 276 // Linux cooked capture v2 (tcpdump -i any on current systems)
)

// String returns the LINKTYPE name without its prefix, as the JSON report writes it.
func (l LinkType) String() string {
	switch l {
	case LinkNull:
		return "NULL"
	case LinkEthernet:
		return "ETHERNET"
	case LinkRaw:
		return "RAW"
	case LinkLoop:
		return "LOOP"
	case LinkLinuxSLL:
		return "LINUX_SLL"
	case LinkIPv4:
		return "IPV4"
	case LinkNFLOG:
		return "NFLOG"
	case LinkIPv6:
		return "IPV6"
	case LinkLinuxSLL2:
		return "LINUX_SLL2"
	}
	return "LINKTYPE_" + itoa(uint32(l))
}

func itoa(v uint32) string {
	var b [10]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}
