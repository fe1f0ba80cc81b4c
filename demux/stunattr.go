package demux

import (
	"encoding/binary"
	"net/netip"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/wire"
)

// The attribute readers here work on a decoded stun.Message and return netip values without
// allocating: pion's XORMappedAddress builds a net.IP and a scratch buffer for each call.

const (
	familyIPv4 = 0x01 // RFC 8489, 14.1
	familyIPv6 = 0x02
)

// xorAddr decodes an XOR-MAPPED-ADDRESS shaped value (RFC 8489, 14.2), as XOR-PEER-ADDRESS
// and XOR-RELAYED-ADDRESS are (RFC 8656, 18.3, 18.5):
//
//	|0 0 0 0 0 0 0 0|    Family     |         X-Port                |
//	|                X-Address (Variable)
func xorAddr(v []byte, txID *[stun.TransactionIDSize]byte) (netip.AddrPort, bool) {
	if len(v) < 4 {
		return netip.AddrPort{}, false
	}
	port := binary.BigEndian.Uint16(v[2:4]) ^ uint16(wire.STUNMagicCookie>>16)
	var key [16]byte
	binary.BigEndian.PutUint32(key[0:4], wire.STUNMagicCookie)
	copy(key[4:], txID[:])
	switch v[1] {
	case familyIPv4:
		if len(v) < 8 {
			return netip.AddrPort{}, false
		}
		var a [4]byte
		for i := range a {
			a[i] = v[4+i] ^ key[i]
		}
		return netip.AddrPortFrom(netip.AddrFrom4(a), port), true
	case familyIPv6:
		if len(v) < 20 {
			return netip.AddrPort{}, false
		}
		var a [16]byte
		for i := range a {
			a[i] = v[4+i] ^ key[i]
		}
		return netip.AddrPortFrom(netip.AddrFrom16(a), port), true
	}
	return netip.AddrPort{}, false
}

// getXORAddr returns the first attribute t of m decoded as an XOR address.
func getXORAddr(m *stun.Message, t stun.AttrType) (netip.AddrPort, bool) {
	for _, a := range m.Attributes {
		if a.Type == t {
			return xorAddr(a.Value, &m.TransactionID)
		}
	}
	return netip.AddrPort{}, false
}

// getUint32 reads a 32-bit attribute such as LIFETIME (RFC 8656, 18.2).
func getUint32(m *stun.Message, t stun.AttrType) (uint32, bool) {
	v, err := m.Get(t)
	if err != nil || len(v) < 4 {
		return 0, false
	}
	return binary.BigEndian.Uint32(v), true
}

// getChannel reads CHANNEL-NUMBER (RFC 8656, 18.1): the number, then 16 bits RFFU.
func getChannel(m *stun.Message) (uint16, bool) {
	v, err := m.Get(stun.AttrChannelNumber)
	if err != nil || len(v) < 2 {
		return 0, false
	}
	return binary.BigEndian.Uint16(v), true
}

// getErrorCode reads ERROR-CODE (RFC 8489, 14.8): class * 100 + number.
func getErrorCode(m *stun.Message) int {
	var e stun.ErrorCodeAttribute
	if e.GetFrom(m) != nil {
		return 0
	}
	return int(e.Code)
}

// decodeTruncated fills m from the header of a STUN message the capture cut short, and from
// the attributes that were captured: the last one may have a shortened value. It reports
// false when b has no STUN header. Attribute values point into b.
func decodeTruncated(m *stun.Message, b []byte) bool {
	if !stun.IsMessage(b) {
		return false
	}
	m.Raw = b
	m.Type.ReadValue(binary.BigEndian.Uint16(b[0:2]))
	m.Length = uint32(binary.BigEndian.Uint16(b[2:4]))
	copy(m.TransactionID[:], b[wire.STUNHeaderLen-stun.TransactionIDSize:wire.STUNHeaderLen])
	m.Attributes = m.Attributes[:0]
	rest := b[wire.STUNHeaderLen:]
	if n := int(m.Length); n < len(rest) {
		rest = rest[:n]
	}
	for len(rest) >= 4 {
		a := stun.RawAttribute{
			Type:   stun.AttrType(binary.BigEndian.Uint16(rest[0:2])),
			Length: binary.BigEndian.Uint16(rest[2:4]),
		}
		rest = rest[4:]
		n := int(a.Length)
		if n > len(rest) {
			a.Value = rest
			m.Attributes = append(m.Attributes, a)
			break
		}
		a.Value = rest[:n]
		m.Attributes = append(m.Attributes, a)
		rest = rest[min(pad4(n), len(rest)):]
	}
	return true
}
