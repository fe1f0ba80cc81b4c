package demux

import (
	"encoding/binary"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/transport"
)

// udpHeaders is the link, IP and UDP header bytes of the synthetic datagrams: Ethernet (14),
// IPv4 (20), UDP (8).
const udpHeaders = 42

// txID returns a transaction ID that is n in its last bytes, so that tests read easily.
func txID(n uint32) [stun.TransactionIDSize]byte {
	var id [stun.TransactionIDSize]byte
	binary.BigEndian.PutUint32(id[8:], n)
	return id
}

// xorAttr sets an XOR-MAPPED-ADDRESS shaped attribute (XOR-PEER-ADDRESS,
// XOR-RELAYED-ADDRESS); the transaction ID must be set before it.
type xorAttr struct {
	t  stun.AttrType
	ap netip.AddrPort
}

func (x xorAttr) AddTo(m *stun.Message) error {
	a := stun.XORMappedAddress{IP: net.IP(x.ap.Addr().AsSlice()), Port: int(x.ap.Port())}
	return a.AddToAs(m, x.t)
}

func peerAddr(s string) xorAttr { return xorAttr{stun.AttrXORPeerAddress, netip.MustParseAddrPort(s)} }
func relayedAddr(s string) xorAttr {
	return xorAttr{stun.AttrXORRelayedAddress, netip.MustParseAddrPort(s)}
}
func mappedAddr(s string) xorAttr {
	return xorAttr{stun.AttrXORMappedAddress, netip.MustParseAddrPort(s)}
}

func u32Attr(t stun.AttrType, v uint32) stun.RawAttribute {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, v)
	return stun.RawAttribute{Type: t, Value: b}
}

func lifetime(s uint32) stun.RawAttribute { return u32Attr(stun.AttrLifetime, s) }

// channelNumber is CHANNEL-NUMBER: the number, then 16 bits RFFU.
func channelNumber(ch uint16) stun.RawAttribute {
	return u32Attr(stun.AttrChannelNumber, uint32(ch)<<16)
}

func dataAttr(b []byte) stun.RawAttribute { return stun.RawAttribute{Type: stun.AttrData, Value: b} }

var useCandidate = stun.RawAttribute{Type: stun.AttrUseCandidate, Value: []byte{}}

// build encodes a STUN message of the given type and transaction ID.
func build(t testing.TB, method stun.Method, class stun.MessageClass, id uint32, attrs ...stun.Setter) []byte {
	t.Helper()
	setters := append([]stun.Setter{stun.NewTransactionIDSetter(txID(id)), stun.NewType(method, class)}, attrs...)
	m, err := stun.Build(setters...)
	if err != nil {
		t.Fatalf("build %v %v: %v", method, class, err)
	}
	return m.Raw
}

// udp returns the datagram payload as a message captured at ms milliseconds.
func udp(payload []byte, src, dst string, ms float64) *transport.Message {
	at := int64(ms * float64(time.Millisecond))
	return &transport.Message{
		Payload:   payload,
		Proto:     transport.UDP,
		Src:       netip.MustParseAddrPort(src),
		Dst:       netip.MustParseAddrPort(dst),
		FirstSeen: at, Complete: at, Delivered: at,
		Wire: transport.Wire{Total: int64(udpHeaders + len(payload)), Headers: udpHeaders},
	}
}

// tcp returns an unframed TCP message, with framing bytes already attributed by the
// unframer.
func tcp(payload []byte, src, dst string, ms float64) *transport.Message {
	m := udp(payload, src, dst, ms)
	m.Proto = transport.TCP
	m.Wire = transport.Wire{Total: int64(54 + len(payload)), Headers: 54}
	return m
}

// wireAddsUp fails the test when m's wire parts do not add up to its Total.
func wireAddsUp(t *testing.T, name string, m *transport.Message) {
	t.Helper()
	w := m.Wire
	if got := w.Headers + w.Framing + w.Retransmitted + int64(len(m.Payload)); got != w.Total {
		t.Errorf("%s: headers %d + framing %d + retransmitted %d + payload %d = %d, want total %d",
			name, w.Headers, w.Framing, w.Retransmitted, len(m.Payload), got, w.Total)
	}
}
