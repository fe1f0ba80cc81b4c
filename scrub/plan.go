package scrub

import (
	"errors"
	"io"
	"net/netip"
	"slices"
	"unsafe"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/demux"
	"github.com/callpcap/callpcap/tcpframe"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// span is a byte range [lo, hi).
type span struct{ lo, hi int }

// span64 is a range [lo, hi) of a TCP direction's stream.
type span64 struct{ lo, hi int64 }

// patch is what the copy does to one record: zero ranges of its packet data (sorted,
// disjoint, relative to Data), then fix the checksum.
type patch struct {
	off   int64 // of the packet's Data in the decompressed file
	zeros []span
	sum   checksum
}

// checksum says how to fix a rewritten packet's UDP or TCP checksum.
type checksum struct {
	kind   sumKind
	l4, n  int    // the transport header and its payload: Data[l4:l4+n]
	field  int    // the checksum's offset in Data
	pseudo uint32 // partial sum of the pseudo-header
	udp    bool   // a computed 0 is sent as 0xffff (RFC 768)
}

type sumKind uint8

const (
	sumNone      sumKind = iota
	sumClear             // UDP over IPv4: 0, no checksum
	sumRecompute         // over the whole rewritten segment
	sumStale             // the segment is cut by the snap length: left as it was
)

// connKey is a TCP connection, its two ends in a fixed order.
type connKey struct{ lo, hi netip.AddrPort }

func keyOf(a, b netip.AddrPort) connKey {
	if b.Compare(a) < 0 {
		a, b = b, a
	}
	return connKey{a, b}
}

func parseConnKey(a, b string) (connKey, error) {
	x, err := netip.ParseAddrPort(a)
	if err != nil {
		return connKey{}, err
	}
	y, err := netip.ParseAddrPort(b)
	if err != nil {
		return connKey{}, err
	}
	return keyOf(x, y), nil
}

// conn is one media TCP connection being followed.
type conn struct {
	c    *tcpframe.Conn
	a    netip.AddrPort // the side seen first: tcpframe's direction 0
	dirs [2]streamDir
}

// streamDir is what one direction's messages say: the ranges to zero and the frames.
type streamDir struct {
	zero, frames []span64
}

// segment is a TCP data segment of a media connection, to be zeroed once every message is
// known.
type segment struct {
	c      *conn
	dir    int
	stream int64 // stream offset of its first payload byte
	n      int   // captured payload bytes
	off    int64 // of Data in the file
	pay    int   // of the payload in Data
	sum    checksum
}

// planner reads the capture once through the project's pipeline (capture, tcpframe, demux)
// and writes down the patches.
type planner struct {
	facts
	st      *Stats
	cls     demux.Classifier
	tr      *demux.Tracker
	inner   transport.Message
	nested  transport.Message
	udp     transport.Message
	spans   []span // of the message being planned, relative to its Payload
	conns   map[connKey]*conn
	cur     *conn
	emit    func(*transport.Message)
	segs    []segment
	patches []patch
}

func newPlanner(f facts, st *Stats) *planner {
	pl := &planner{facts: f, st: st, tr: demux.NewTracker(), conns: map[connKey]*conn{}}
	pl.emit = pl.tcpMessage
	return pl
}

// run plans the capture in r and returns its compression.
func (pl *planner) run(r io.Reader) (string, error) {
	rd, err := capture.Open(r)
	if err != nil {
		return "", err
	}
	defer rd.Close()
	var p capture.Packet
	for {
		err := rd.Next(&p)
		if err != nil {
			if err != io.EOF && !errors.Is(err, capture.ErrTruncated) && !errors.Is(err, capture.ErrCorrupt) {
				return "", err // the source failed: not the capture's damage
			}
			break
		}
		pl.st.Packets++
		switch p.Kind {
		case capture.KindUDP:
			pl.udpPacket(&p, rd.DataOffset())
		case capture.KindTCP:
			pl.tcpSegment(&p, rd.DataOffset())
		}
	}
	for _, c := range pl.conns {
		pl.cur = c
		c.c.Close(pl.emit)
	}
	pl.resolve()
	slices.SortFunc(pl.patches, func(x, y patch) int { return int(x.off - y.off) })
	return rd.Compression(), nil
}

func (pl *planner) udpPacket(p *capture.Packet, off int64) {
	if p.Reassembled || p.TransportOff < 0 {
		pl.st.Fragmented++
		return
	}
	pay, ok := offsetIn(p.Data, p.Payload)
	if !ok {
		return
	}
	m := &pl.udp
	*m = transport.Message{Payload: p.Payload, Proto: transport.UDP, Src: p.SrcAddrPort(), Dst: p.DstAddrPort(),
		Iface: p.Iface, FirstSeen: p.Time, Complete: p.Time, Delivered: p.Time, Snapped: p.Snapped,
		Wire: transport.Wire{Total: int64(p.WireLen), Headers: int64(p.HeaderLen)}}
	pl.message(m, false)
	if len(pl.spans) == 0 {
		return
	}
	pt := patch{off: off, zeros: make([]span, len(pl.spans))}
	for i, s := range pl.spans {
		pt.zeros[i] = span{pay + s.lo, pay + s.hi}
	}
	if p.Src.Is4() {
		pt.sum = checksum{kind: sumClear, field: p.TransportOff + 6}
	} else {
		pt.sum = pl.fullSum(p, 8+p.PayloadLen, 6, uint8(transport.UDP))
		pt.sum.udp = true
	}
	pl.patches = append(pl.patches, pt)
}

// fullSum is the checksum fix of p, whose transport header and payload are n bytes with the
// checksum at field within the header.
func (pl *planner) fullSum(p *capture.Packet, n, field int, proto uint8) checksum {
	l4 := p.TransportOff
	if p.Snapped || l4 < 0 || l4+n > len(p.Data) {
		return checksum{kind: sumStale}
	}
	return checksum{kind: sumRecompute, l4: l4, n: n, field: l4 + field, pseudo: wire.PseudoHeaderSum(p.Src, p.Dst, proto, n)}
}

func (pl *planner) tcpSegment(p *capture.Packet, off int64) {
	src, dst := p.SrcAddrPort(), p.DstAddrPort()
	k := keyOf(src, dst)
	if !pl.media[k] {
		return
	}
	c := pl.conns[k]
	if c == nil {
		c = &conn{c: tcpframe.NewConn(tcpframe.Config{}, src, dst), a: src}
		pl.conns[k] = c
	}
	pl.cur = c
	c.c.Segment(p, pl.emit)
	if len(p.Payload) == 0 || p.TransportOff < 0 {
		return
	}
	dir, so, ok := c.c.SegmentOffset(p)
	pay, ok2 := offsetIn(p.Data, p.Payload)
	if !ok || !ok2 {
		return
	}
	n := len(p.Payload)
	if p.PayloadLen < n {
		n = max(p.PayloadLen, 0)
	}
	seg := segment{c: c, dir: dir, stream: so, n: n, off: off, pay: pay}
	if l4 := p.TransportOff; l4+13 <= len(p.Data) {
		hdr := int(p.Data[l4+12]>>4) * 4
		seg.sum = pl.fullSum(p, hdr+p.PayloadLen, 16, uint8(transport.TCP))
	} else {
		seg.sum = checksum{kind: sumStale}
	}
	pl.segs = append(pl.segs, seg)
}

// tcpMessage plans a message unframed from the connection being fed.
func (pl *planner) tcpMessage(m *transport.Message) {
	c := pl.cur
	d := &c.dirs[0]
	if m.Src != c.a {
		d = &c.dirs[1]
	}
	d.frames = append(d.frames, span64{m.Stream.Start, m.Stream.End})
	pl.message(m, c.c.Framing() == tcpframe.FramingTURN)
	for _, s := range pl.spans {
		d.zero = append(d.zero, span64{m.Stream.Payload + int64(s.lo), m.Stream.Payload + int64(s.hi)})
	}
}

// message classifies m as the analysis does (analysis/message.go) and writes down in
// pl.spans the ranges of m.Payload to zero.
func (pl *planner) message(m *transport.Message, turnFramed bool) {
	pl.spans = pl.spans[:0]
	cls := pl.cls.Classify(m.Payload, m.Snapped)
	if len(m.Payload) > 0 && wire.IsLegacyChannelByte(m.Payload[0]) {
		cls = pl.tr.Refine(m, cls, turnFramed)
	}
	switch cls {
	case demux.ClassSTUN:
		if pl.tr.STUN(m, &pl.inner) {
			pl.wrapped(m.Payload, &pl.inner)
		}
	case demux.ClassChannelData:
		if pl.tr.ChannelData(m, &pl.inner) {
			pl.wrapped(m.Payload, &pl.inner)
		}
	case demux.ClassRTP:
		pl.rtp(0, m.Payload, m.Snapped)
	case demux.ClassDTLS:
		pl.dtls(0, m.Payload)
	}
}

// wrapped plans the datagram that TURN carried inside outer.
func (pl *planner) wrapped(outer []byte, in *transport.Message) {
	base, ok := offsetIn(outer, in.Payload)
	if !ok {
		return
	}
	switch pl.cls.Classify(in.Payload, in.Snapped) {
	case demux.ClassRTP:
		pl.rtp(base, in.Payload, in.Snapped)
	case demux.ClassDTLS:
		pl.dtls(base, in.Payload)
	case demux.ClassSTUN:
		pl.tr.STUN(in, &pl.nested) // ICE through the relay, as the analysis follows it
	}
}

// rtp zeroes the payload of the RTP packet b at base, whose header the classifier decoded.
func (pl *planner) rtp(base int, b []byte, snapped bool) {
	h := pl.cls.RTP()
	if h == nil {
		return // cut inside its header: nothing the analysis reads either
	}
	lo, hi := h.HeaderLen, len(b)
	if h.Padding && !snapped {
		hi-- // the padding count
	}
	if pl.rtx[h.SSRC] && h.PayloadLen >= 2 {
		lo += 2 // the OSN
	}
	pl.st.RTPPackets++
	if lo < hi {
		pl.spans = append(pl.spans, span{base + lo, base + hi})
	}
}

// dtls zeroes the fragments of the application_data records of the DTLS datagram b at base.
func (pl *planner) dtls(base int, b []byte) {
	for rest := b; ; {
		typ, frag, next, ok := wire.NextDTLSRecord(rest)
		if !ok {
			return
		}
		if typ == wire.DTLSContentApplicationData && len(frag) > 0 {
			lo, _ := offsetIn(b, frag)
			pl.spans = append(pl.spans, span{base + lo, base + lo + len(frag)})
			pl.st.DTLSRecords++
		}
		rest = next
	}
}

// resolve turns each TCP segment into a patch over the ranges its stream bytes cover.
func (pl *planner) resolve() {
	for _, c := range pl.conns {
		for i := range c.dirs {
			d := &c.dirs[i]
			cmp := func(x, y span64) int { return compare64(x.lo, y.lo) }
			slices.SortFunc(d.zero, cmp)
			slices.SortFunc(d.frames, cmp)
		}
	}
	var zs []span
	for i := range pl.segs {
		g := &pl.segs[i]
		d := &g.c.dirs[g.dir]
		lo, hi := g.stream, g.stream+int64(g.n)
		zs = zs[:0]
		unplaced := 0
		add := func(x, y int64, placed bool) {
			x, y = max(x, lo), min(y, hi)
			if x >= y {
				return
			}
			if !placed {
				unplaced += int(y - x)
			}
			zs = append(zs, span{g.pay + int(x-lo), g.pay + int(y-lo)})
		}
		j, _ := slices.BinarySearchFunc(d.zero, lo, func(s span64, t int64) int { return compare64(s.hi, t+1) })
		for ; j < len(d.zero) && d.zero[j].lo < hi; j++ {
			add(d.zero[j].lo, d.zero[j].hi, true)
		}
		// Between two frames: bytes no message carried.
		if f := d.frames; len(f) > 1 {
			k, _ := slices.BinarySearchFunc(f, lo, func(s span64, t int64) int { return compare64(s.hi, t+1) })
			for k = max(k, 1); k < len(f) && f[k-1].hi < hi; k++ {
				if f[k-1].hi < f[k].lo {
					add(f[k-1].hi, f[k].lo, false)
				}
			}
		}
		if len(zs) == 0 {
			continue
		}
		slices.SortFunc(zs, func(x, y span) int { return x.lo - y.lo })
		pl.st.UnplacedBytes += int64(unplaced)
		pl.patches = append(pl.patches, patch{off: g.off, zeros: slices.Clone(zs), sum: g.sum})
	}
	pl.segs = nil
}

func compare64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// offsetIn returns where inner starts within outer, which it must lie in: the decoders
// point into their input (a ChannelData payload, a DATA attribute, a record's fragment), so
// that the distance between the two slices places the inner bytes in the packet.
func offsetIn(outer, inner []byte) (int, bool) {
	if len(inner) == 0 || len(outer) == 0 {
		return 0, false
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(inner))) - uintptr(unsafe.Pointer(unsafe.SliceData(outer)))
	if d >= uintptr(len(outer)) || int(d)+len(inner) > len(outer) {
		return 0, false
	}
	return int(d), true
}
