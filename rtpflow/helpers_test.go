package rtpflow

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"testing"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// T0 is a capture time on a whole second, so that the tracker's grid seconds are easy.
const T0 = int64(1_700_000_000) * 1e9

const ms1 = int64(1e6)

var (
	alice = netip.MustParseAddrPort("10.0.0.1:5000")
	bob   = netip.MustParseAddrPort("198.51.100.9:6000")
	pathA = Path{Leg: 1, Src: alice, Dst: bob}
	pathB = Path{Leg: 1, Src: bob, Dst: alice}
)

// profileOneByte is the RFC 8285 one-byte header extension profile.
const profileOneByte = 0xBEDE

// rtpTo decodes m's header with h, as the demux does, and gives the packet to tr, as the
// analysis does; false when the header does not decode. h is the caller's so that a test of
// allocations can reuse it (nil: a new one).
func rtpTo(tr *Tracker, h *wire.RTP, p Path, m *transport.Message) bool {
	if h == nil {
		h = new(wire.RTP)
	}
	if h.Unmarshal(m.Payload, m.Snapped) != nil {
		return false
	}
	var pk Packet
	PacketOf(&pk, p, m, h)
	tr.RTP(&pk)
	return true
}

// rp is an RTP packet to build by hand.
type rp struct {
	pt         uint8
	marker     bool
	seq        uint16
	ts         uint32
	ssrc       uint32
	csrcs      int
	extProfile uint16
	ext        []byte // extension body, a multiple of 4 bytes
	payload    []byte
	pad        int
}

func (p rp) bytes() []byte {
	b := []byte{0x80 | byte(p.csrcs), p.pt, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if p.marker {
		b[1] |= 0x80
	}
	if p.pad > 0 {
		b[0] |= 0x20
	}
	binary.BigEndian.PutUint16(b[2:], p.seq)
	binary.BigEndian.PutUint32(b[4:], p.ts)
	binary.BigEndian.PutUint32(b[8:], p.ssrc)
	for i := 0; i < p.csrcs; i++ {
		b = binary.BigEndian.AppendUint32(b, uint32(0x1000+i))
	}
	if p.ext != nil {
		b[0] |= 0x10
		b = binary.BigEndian.AppendUint16(b, p.extProfile)
		b = binary.BigEndian.AppendUint16(b, uint16(len(p.ext)/4))
		b = append(b, p.ext...)
	}
	b = append(b, p.payload...)
	if p.pad > 0 {
		b = append(b, make([]byte, p.pad-1)...)
		b = append(b, byte(p.pad))
	}
	return b
}

type el struct {
	id   uint8
	data []byte
}

// oneByte builds an RFC 8285 one-byte extension body (profile 0xBEDE).
func oneByte(els ...el) []byte {
	var b []byte
	for _, e := range els {
		b = append(b, e.id<<4|byte(len(e.data)-1))
		b = append(b, e.data...)
	}
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// twoByte builds an RFC 8285 two-byte extension body (profile 0x1000).
func twoByte(els ...el) []byte {
	var b []byte
	for _, e := range els {
		b = append(b, e.id, byte(len(e.data)))
		b = append(b, e.data...)
	}
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func u24(v uint32) []byte { return []byte{byte(v >> 16), byte(v >> 8), byte(v)} }
func u16(v uint16) []byte { return []byte{byte(v >> 8), byte(v)} }

// udpHeaders is the Ethernet+IPv4+UDP header bytes of a test datagram.
const udpHeaders = 42

func msg(b []byte, at int64) *transport.Message {
	return &transport.Message{Payload: b, Proto: transport.UDP, FirstSeen: at, Complete: at, Delivered: at,
		Wire: transport.Wire{Total: int64(len(b)) + udpHeaders, Headers: udpHeaders}}
}

// arrival is one message at a time on a path.
type arrival struct {
	p Path
	m *transport.Message
}

// feed sorts arrivals by delivery time (stable) and feeds them.
func feed(t *testing.T, tr *Tracker, as []arrival) {
	t.Helper()
	slices.SortStableFunc(as, func(a, b arrival) int {
		switch {
		case a.m.Delivered < b.m.Delivered:
			return -1
		case a.m.Delivered > b.m.Delivered:
			return 1
		}
		return 0
	})
	for _, a := range as {
		if !rtpTo(tr, nil, a.p, a.m) {
			t.Fatalf("RTP(%x) = false", a.m.Payload)
		}
	}
}

func only(t *testing.T, tr *Tracker) *Stream {
	t.Helper()
	ss := tr.Streams()
	if len(ss) != 1 {
		t.Fatalf("got %d streams, want 1", len(ss))
	}
	return ss[0]
}

func bySSRC(t *testing.T, tr *Tracker, ssrc uint32) *Stream {
	t.Helper()
	for _, s := range tr.Streams() {
		if s.SSRC() == ssrc {
			return s
		}
	}
	t.Fatalf("no stream 0x%08x", ssrc)
	return nil
}

// rfcJitter computes RFC 3550 A.8 independently, in ms: mean, max, last.
func rfcJitter(at []int64, ts []uint32, clock float64) (mean, mx, last float64) {
	var j, sum float64
	var prev float64
	for i := range at {
		transit := float64(at[i]-at[0])/1e9*clock - float64(int64(ts[i])-int64(ts[0])+wrapFix(ts[0], ts[i]))
		if i > 0 {
			d := transit - prev
			if d < 0 {
				d = -d
			}
			j += (d - j) / 16
			sum += j
			mx = max(mx, j)
		}
		prev = transit
	}
	k := 1000 / clock
	return sum / float64(len(at)-1) * k, mx * k, j * k
}

// wrapFix adds 2^32 when ts wrapped past ts0 (the test streams wrap at most once).
func wrapFix(ts0, ts uint32) int64 {
	if ts < ts0 && ts0-ts > 1<<31 {
		return 1 << 32
	}
	return 0
}

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }
func str(v string) *string   { return &v }
func intp(v int) *int        { return &v }

func slicesSortBy[T any](s []T, key func(T) int64) {
	slices.SortStableFunc(s, func(a, b T) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
}

func quantile3(v float64) float64 { return numfmt.Round(v, 3) }

// deref is *p, or the zero value for nil.
func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}
