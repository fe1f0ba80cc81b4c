package analysis

import (
	"net/netip"
	"slices"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/transport"
)

// repeatedFragment counts r, a repeated fragment of a datagram (the network or the capture
// wrote it twice, and a receiver discards it), with the datagram's flow: its frame carried
// that flow. Its bytes are no message: its side's other.
func (a *analyzer) repeatedFragment(r repeatFrame) {
	f := a.flow(r.src, r.dst, r.proto, r.t)
	if f == nil {
		return
	}
	f.packets++
	f.wire += r.n
	s := &f.sides[f.dir(r.src)]
	s.packets++
	s.wire += r.n
	f.carried(s, &s.other, r.t, r.n)
}

// repeatFrame is a repeated fragment: a frame of n bytes from src to dst at t, of a datagram
// of transport proto; of the second copy id when it is an Echo.
type repeatFrame struct {
	src, dst netip.AddrPort
	proto    transport.Proto
	t, n     int64
	id       uint32
}

// transportOf returns the transport of p, a repeated fragment or a datagram rebuilt: UDP
// or TCP, whose Proto values are IP's protocol numbers.
func transportOf(p *capture.Packet) transport.Proto {
	if transport.Proto(p.IPProto) == transport.TCP {
		return transport.TCP
	}
	return transport.UDP
}

// maxEchoes bounds the echoes waiting: beyond it the oldest counts as a repeat at once.
const maxEchoes = 1024

// echo keeps p, a repeat that may begin a second copy of its datagram (capture.Packet.Echo),
// until the copy completes or the capture ends.
func (a *analyzer) echo(p *capture.Packet) {
	if len(a.echoes) == maxEchoes {
		a.repeatedFragment(a.echoes[0])
		a.echoes = append(a.echoes[:0], a.echoes[1:]...)
	}
	a.echoes = append(a.echoes, repeatFrame{p.SrcAddrPort(), p.DstAddrPort(), transportOf(p), p.Time, int64(p.FrameLen), p.EchoID})
}

// echoed takes out of the echoes those of p, a second copy of a datagram rebuilt, whose
// WireLen counts them: its frames but the last, its EchoID's. (By its ports and their
// bytes, another datagram's repeat went with them: h135.)
func (a *analyzer) echoed(p *capture.Packet) {
	a.echoes = slices.DeleteFunc(a.echoes, func(e repeatFrame) bool { return e.id == p.EchoID })
}
