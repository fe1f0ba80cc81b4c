package tcpframe

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

var (
	addrA = netip.MustParseAddrPort("10.0.0.1:50000")
	addrB = netip.MustParseAddrPort("203.0.113.7:443")
)

const hdrLen = 54 // Ethernet + IPv4 + TCP without options

const (
	fSYN = capture.FlagSYN
	fACK = capture.FlagACK
	fFIN = capture.FlagFIN
	fRST = capture.FlagRST
	fPSH = capture.FlagPSH
)

// ms is a capture time in nanoseconds from milliseconds.
func ms(v float64) int64 { return int64(v * float64(time.Millisecond)) }

// seg builds a TCP segment from A (fromA) or B.
func seg(t int64, fromA bool, flags uint8, seq, ack uint32, payload []byte) *capture.Packet {
	src, dst := addrA, addrB
	if !fromA {
		src, dst = addrB, addrA
	}
	return &capture.Packet{
		Time: t, Kind: capture.KindTCP, Src: src.Addr(), Dst: dst.Addr(), IPProto: 6,
		SrcPort: src.Port(), DstPort: dst.Port(),
		HeaderLen: hdrLen, WireLen: hdrLen + len(payload), CapLen: hdrLen + len(payload),
		PayloadLen: len(payload), Payload: payload,
		TCP: capture.TCPHeader{Seq: seq, Ack: ack, Flags: flags, Window: 65535},
	}
}

// got is a copy of an emitted message.
type got struct {
	dir                            int // 0 a->b, 1 b->a
	payload                        []byte
	firstSeen, complete, delivered int64
	wire                           transport.Wire
	retransmitted, snapped         bool
	hold                           transport.Hold
}

// feeder drives a Conn and checks every emitted message's own accounting.
//
// A shadow Conn that borrows the payloads (Config.BorrowPayload) is fed the same segments,
// each payload in a buffer of its own that is overwritten after it is detached; close checks
// that it emitted the same messages.
type feeder struct {
	t      *testing.T
	c      *Conn
	msgs   []got
	wire   [2]int64
	totals [2]int64

	shadow     *Conn
	lent       []byte // the payload given to shadow before its last Detach
	shadowMsgs []got
	shadowEmit func(m *transport.Message)
}

func newFeeder(t *testing.T, cfg Config) *feeder {
	f := &feeder{t: t, c: NewConn(cfg, addrA, addrB)}
	cfg.BorrowPayload = true
	f.shadow = NewConn(cfg, addrA, addrB)
	f.shadowEmit = func(m *transport.Message) {
		f.shadowMsgs = append(f.shadowMsgs, got{payload: append([]byte(nil), m.Payload...),
			firstSeen: m.FirstSeen, complete: m.Complete, delivered: m.Delivered,
			wire: m.Wire, retransmitted: m.Retransmitted, snapped: m.Snapped, hold: m.Hold})
	}
	return f
}

func (f *feeder) emit(m *transport.Message) {
	f.t.Helper()
	w := m.Wire
	if w.Total != w.Headers+w.Framing+w.Retransmitted+int64(len(m.Payload)) {
		f.t.Errorf("message wire does not add up: %+v payload %d", w, len(m.Payload))
	}
	i := 0
	if m.Src == addrB {
		i = 1
	}
	if m.Proto != transport.TCP || m.Dst != f.c.dirs[i].dst {
		f.t.Errorf("message proto %v dst %v", m.Proto, m.Dst)
	}
	f.totals[i] += w.Total
	f.msgs = append(f.msgs, got{dir: i, payload: append([]byte(nil), m.Payload...),
		firstSeen: m.FirstSeen, complete: m.Complete, delivered: m.Delivered,
		wire: w, retransmitted: m.Retransmitted, snapped: m.Snapped, hold: m.Hold})
}

func (f *feeder) send(p *capture.Packet) {
	f.t.Helper()
	if p.SrcAddrPort() == addrA {
		f.wire[0] += int64(p.WireLen)
	} else {
		f.wire[1] += int64(p.WireLen)
	}
	f.c.Segment(p, f.emit)

	// The shadow borrows the payload: it may keep pointing into it until the second Detach
	// after it; then the bytes are overwritten, as a reused read buffer would be.
	q := *p
	q.Payload = append([]byte(nil), p.Payload...)
	f.shadow.Segment(&q, f.shadowEmit)
	f.shadow.Detach()
	for i := range f.lent {
		f.lent[i] = 0xA5
	}
	f.lent = q.Payload
}

// close ends the capture and checks that the wire bytes add up exactly per direction.
func (f *feeder) close() {
	f.t.Helper()
	f.c.Close(f.emit)
	f.shadow.Close(f.shadowEmit)
	var want []got
	for _, m := range f.msgs {
		m.dir = 0
		want = append(want, m)
	}
	if diff := cmp.Diff(want, f.shadowMsgs, cmp.AllowUnexported(got{})); diff != "" {
		f.t.Errorf("borrowing payloads changed the messages (-copied +borrowed):\n%s", diff)
	}
	if diff := cmp.Diff(f.c.Summary(), f.shadow.Summary()); diff != "" {
		f.t.Errorf("borrowing payloads changed the summary (-copied +borrowed):\n%s", diff)
	}
	s := f.c.Summary()
	for i, d := range [2]int64{s.AToB.WireBytes, s.BToA.WireBytes} {
		r := f.c.Rest(i)
		sum := f.totals[i] + r.ACKs + r.Control + r.Retransmitted + r.Unframed
		if d != f.wire[i] || sum != d {
			f.t.Errorf("dir %d: wire %d, fed %d, messages %d + rest %+v = %d", i, d, f.wire[i], f.totals[i], r, sum)
		}
	}
}

func (f *feeder) dirMsgs(i int) []got {
	var out []got
	for _, m := range f.msgs {
		if m.dir == i {
			out = append(out, m)
		}
	}
	return out
}

// Wire structures, built field by field.

func channelData(ch uint16, n int, pad bool, fill byte) []byte {
	b := make([]byte, 4, 4+n+3)
	binary.BigEndian.PutUint16(b, ch)            // channel number
	binary.BigEndian.PutUint16(b[2:], uint16(n)) // length, padding not included
	for i := 0; i < n; i++ {
		b = append(b, fill)
	}
	if fill < 4 && n >= 20 {
		// A datagram starting as STUN carries its magic cookie, as a relay's does: the
		// fill stays the first byte.
		binary.BigEndian.PutUint32(b[channelDataHeaderLen+4:], 0x2112A442)
	}
	for pad && len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func stunMsg(typ uint16, attrLen int) []byte {
	b := make([]byte, 20+attrLen)
	binary.BigEndian.PutUint16(b, typ)                      // message type
	binary.BigEndian.PutUint16(b[2:], uint16(attrLen))      // length, after the header
	binary.BigEndian.PutUint32(b[4:], wire.STUNMagicCookie) // magic cookie
	for i := 8; i < 20; i++ {                               // transaction id
		b[i] = byte(i)
	}
	return b
}

func rtpPacket(n int, seq uint16) []byte {
	b := make([]byte, n)
	b[0] = 0x80 // V=2
	b[1] = 96   // PT 96
	binary.BigEndian.PutUint16(b[2:], seq)
	return b
}

func dtlsRecord(n int) []byte {
	b := make([]byte, n)
	b[0], b[1], b[2] = 22, 0xFE, 0xFD // handshake, DTLS 1.2
	binary.BigEndian.PutUint16(b[11:], uint16(n-13))
	return b
}

func rfc4571(content []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(content)))
	return append(b, content...)
}

func tlsRecord(typ byte, n int) []byte {
	b := []byte{typ, 3, 3, byte(n >> 8), byte(n)} // type, TLS 1.2, length
	return append(b, make([]byte, n)...)
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// handshake feeds SYN at t0, SYN/ACK at t1, ACK at t2 with ISNs isnA and isnB.
func (f *feeder) handshake(t0, t1, t2 int64, isnA, isnB uint32) {
	f.send(seg(t0, true, fSYN, isnA, 0, nil))
	f.send(seg(t1, false, fSYN|fACK, isnB, isnA+1, nil))
	f.send(seg(t2, true, fACK, isnA+1, isnB+1, nil))
}

func capturedBlock(l, r uint32) capture.SACKBlock { return capture.SACKBlock{Left: l, Right: r} }

func ptr[T any](v T) *T { return &v }
