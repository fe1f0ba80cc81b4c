package capture

import "net/netip"

// Kind says how far a packet was decoded.
type Kind uint8

const (
	KindUndecodable Kind = iota // link or IP header malformed: counted, not analyzed
	KindUnknownLink             // link type this package does not decode
	KindNonIP                   // decodable link layer carrying something other than IP (ARP, LLDP...)
	KindIPOther                 // IP carrying something other than UDP or TCP (ICMP, ESP...), or a fragment still pending
	KindUDP
	KindTCP
)

// TCP flag bits, RFC 9293 3.1.
const (
	FlagFIN = 0x01
	FlagSYN = 0x02
	FlagRST = 0x04
	FlagPSH = 0x08
	FlagACK = 0x10
	FlagURG = 0x20
	FlagECE = 0x40
	FlagCWR = 0x80
)

// SACKBlock is one SACK option block, RFC 2018.
type SACKBlock struct{ Left, Right uint32 }

// TCPHeader is the part of a TCP header the analysis uses.
type TCPHeader struct {
	Seq, Ack uint32
	Flags    uint8
	Window   uint16
	// SACK holds the first NSACK blocks of the SACK option (at most 4).
	SACK  [4]SACKBlock
	NSACK int
	// WScale is the window scale shift (RFC 7323, 2.2) when HasWScale: the option only
	// counts on a SYN, and scales the windows its sender advertises after the handshake.
	WScale    uint8
	HasWScale bool
}

// Packet is one captured frame, decoded in place.
//
// Data, and Payload which points into it (or into a reassembly buffer for IP fragments), are
// valid only until the next call to Reader.Next: copy what must outlive the packet.
type Packet struct {
	Time     int64 // capture time, nanoseconds since the Unix epoch
	Iface    int   // interface index: pcapng interface id, or 0 for classic pcap
	LinkType LinkType
	WireLen  int // original length of the frame on the wire (orig_len)
	CapLen   int // captured length (len(Data))
	Data     []byte
	// FrameLen is this record's own original length, even for a reassembled datagram
	// (whose WireLen covers all its fragments): sum FrameLen for the capture's bytes.
	FrameLen int

	Kind Kind
	// Fragments is how many frames a reassembled datagram was rebuilt from (repeats of a
	// fragment are not: see Repeat); 0 for a datagram that came whole.
	Fragments uint16
	// EchoID names the possible second copy an Echo packet belongs to: its Echo repeats
	// and, rebuilt, the copy share it.
	EchoID uint32

	// Set for IP packets (KindIPOther, KindUDP, KindTCP).
	Src, Dst netip.Addr
	IPProto  uint8
	// Reassembled is true when the datagram was rebuilt from IP fragments; WireLen is then
	// the sum of the fragments' frame lengths.
	Reassembled bool
	// Fragment is true for an IP fragment held for reassembly (Kind is KindIPOther). When
	// its datagram completes, its bytes are counted again in that datagram's WireLen.
	Fragment bool
	// Repeat is true for a fragment that repeats one already filed (the network or the
	// capture wrote it twice; a receiver discards it) of a UDP or TCP datagram whose
	// transport header was seen: Kind is KindIPOther, and IPProto, SrcPort and DstPort are
	// the datagram's, so that its bytes can be counted with the datagram's flow.
	Repeat bool
	// Echo is set on a Repeat that may be the start of a second copy of a datagram already
	// rebuilt, the network having sent it again whole (its fragments in any order): the
	// copy's bytes if it completes, a Repeat's if not. It is set too on that
	// copy, rebuilt: its WireLen and Fragments then cover its frames that came as Echo
	// repeats, all but its last.
	Echo bool

	// Set for UDP and TCP.
	SrcPort, DstPort uint16
	// HeaderLen is the wire bytes before the transport payload: link, IP (with options and
	// extension headers) and UDP/TCP headers. For a reassembled datagram it is the total of
	// every fragment's headers.
	HeaderLen int
	// PayloadLen is the transport payload length the headers declare (UDP length - 8, or
	// IP length minus headers for TCP). Payload holds the captured part of it: shorter when
	// the snap length cut the frame (Snapped).
	PayloadLen int
	Payload    []byte
	Snapped    bool
	// TransportOff is where the UDP or TCP header starts in Data, or -1 when the datagram
	// was reassembled from fragments (it is then in a reassembly buffer): so that a tool
	// that rewrites payload bytes (scrub) can fix the checksum.
	TransportOff int

	TCP TCPHeader // set for KindTCP
}

// SrcAddrPort and DstAddrPort return the transport endpoints.
func (p *Packet) SrcAddrPort() netip.AddrPort { return netip.AddrPortFrom(p.Src, p.SrcPort) }
func (p *Packet) DstAddrPort() netip.AddrPort { return netip.AddrPortFrom(p.Dst, p.DstPort) }

// Linux cooked capture's packet types (tcpdump -i any): where a packet went relative to
// the capturing host.
const (
	sllOutgoing = 4 // PACKET_OUTGOING: sent by the capturing host
	sllTypeOff  = 0 // SLL: packet type, 2 bytes
	sll2TypeOff = 10
)

// Outgoing says whether the capture marked the packet as sent by the capturing host
// (marked): a Linux cooked capture (SLL, SLL2: tcpdump -i any) writes each packet's type,
// outgoing or arrived. Other link types say nothing of it.
func (p *Packet) Outgoing() (out, marked bool) {
	switch p.LinkType {
	case LinkLinuxSLL2:
		if len(p.Data) > sll2TypeOff {
			return p.Data[sll2TypeOff] == sllOutgoing, true
		}
	case LinkLinuxSLL:
		if len(p.Data) > sllTypeOff+1 {
			return p.Data[sllTypeOff] == 0 && p.Data[sllTypeOff+1] == sllOutgoing, true
		}
	}
	return false, false
}
