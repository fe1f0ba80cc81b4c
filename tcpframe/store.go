package tcpframe

import "sort"

// store holds the bytes of one direction's stream that are not yet unframed, with the time
// each byte was first seen, and says which of them are in order. Offsets are int64 stream
// offsets; the store is cut by three of them:
//
//	framed <= delivered <= highest
//
// [framed, delivered) is in order (no hole before it) and waits for the unframer; beyond
// delivered the bytes present are runs (chunks) separated by holes. A byte below framed is
// gone from the store (taken into a message or dropped), but the buffer keeps the bytes from
// keep (the owner's oldest message still held back) so that held messages can point into it.
//
// In-order segments can be kept without a copy (borrowed): when a segment starts exactly at
// highest, the store points into its payload instead of copying it, and the unframer reads
// messages straight from the packet. detach copies what is still borrowed before the
// packets' bytes are reused. Bytes are copied into the buffer only when they must outlive
// their packet: out-of-order data, and the start of a frame a segment leaves unfinished once
// the next segment comes (or the packet goes).
type store struct {
	buf    []byte // stream bytes [bufOff, bufOff+len(buf)), at most window
	bufOff int64
	cs     chunks
	window int64

	framed, delivered, highest int64
	lastDlv                    int64 // delivery time of the last bytes that came in order
	borrowed                   bool  // some chunk's bytes may be in a packet (chunk.ext)
	owned                      int64 // the chunks that end by it are not borrowed (inOrder)
	bytesIn                    int64 // distinct bytes ever stored
}

// dataSeg is the payload of one TCP segment: bytes [start, start+size) of the stream, captured
// at t, whose frame carried hdr header bytes (link, IP, TCP). payload holds the captured
// bytes: fewer than size when the snap length cut the frame.
type dataSeg struct {
	start, size, hdr int64
	payload          []byte
	t                int64
	gen              uint32 // Conn.gen when the packet was given: what Detach goes by
}

func (g *dataSeg) end() int64 { return g.start + g.size }

// piece is what a run of taken bytes [start, end) carried: the times its bytes were first
// seen (first of its first byte, complete when all had arrived), last copied and delivered,
// and the wire bytes it accounts for beyond itself.
type piece struct {
	first, complete, lastCopy, dlv int64
	hdr                            int64 // header share of the first copies
	xBytes, xHdr                   int64 // payload and header share of extra copies
	lateBytes                      int64 // bytes that filled a hole late
	snapped                        bool
	ext                            []byte // the bytes, when they are still in their packet
	gen                            uint32 // the ext packet's Conn.gen
}

// bytes returns the buffered stream bytes [x, y); they must not be borrowed.
func (st *store) bytes(x, y int64) []byte { return st.buf[x-st.bufOff : y-st.bufOff] }

// fits says whether the buffer reaches hi already.
func (st *store) fits(hi int64) bool { return hi-st.bufOff <= int64(len(st.buf)) }

// reserve makes the buffer hold [keep, hi): it moves the bytes that matter (chunks not
// borrowed, and held messages when heldInBuf) to the start of the buffer, which it first
// grows when they would fill more than half of it, so that over time a move copies no more
// bytes than the stream advanced since the last one.
func (st *store) reserve(keep, hi int64, heldInBuf bool) {
	if st.fits(hi) {
		return
	}
	live := heldInBuf
	for i, l := 0, st.cs.live(); i < len(l) && !live; i++ {
		live = l[i].ext == nil
	}
	n := int64(len(st.buf))
	if need := hi - keep; 2*need > n {
		n = min(max(2*n, 2*need, 4096), st.window)
	}
	nb := st.buf
	if n != int64(len(st.buf)) {
		nb = make([]byte, n)
	}
	if live && st.highest > keep {
		copy(nb, st.buf[keep-st.bufOff:st.highest-st.bufOff])
	}
	st.buf, st.bufOff = nb, keep
}

// insert stores the bytes [lo, hi) of segment g (framed <= lo, within the buffer reserved)
// and returns how many of them were present already; those count as a copy of what is
// there. late marks the bytes that fill a hole below highest as retransmitted though their
// first copy was not seen. With borrow, a whole captured segment that starts at highest
// is kept in its packet.
func (st *store) insert(g *dataSeg, lo, hi int64, late, borrow bool) (seen int64) {
	if borrow && lo == st.highest && lo == g.start && hi == g.end() && int64(len(g.payload)) == g.size {
		c := st.cs.add(st.cs.n())
		c.start, c.end, c.first, c.last, c.lastCopy = lo, hi, g.t, g.t, g.t
		c.segStart, c.segP, c.segH, c.ext, c.gen = g.start, g.size, g.hdr, g.payload, g.gen
		st.borrowed = true
		st.bytesIn += hi - lo
		st.highest = hi
		return 0
	}
	i := st.cs.n() // no chunk ends beyond highest: an in-order segment needs no search
	if lo < st.highest {
		i = st.cs.search(lo)
	}
	pos := lo
	for pos < hi {
		l := st.cs.live()
		if i < len(l) && l[i].start <= pos {
			if l[i].start < pos {
				st.cs.splitAt(pos)
				i++
			}
			if st.cs.live()[i].end > hi {
				st.cs.splitAt(hi)
			}
			ch := &st.cs.live()[i]
			ch.xBytes += ch.end - ch.start
			ch.xHdr += share(g.hdr, g.size, g.start, ch.start, ch.end)
			ch.lastCopy = g.t
			seen += ch.end - ch.start
			pos = ch.end
			i++
			continue
		}
		nx := hi
		if i < len(l) && l[i].start < nx {
			nx = l[i].start
		}
		if late && pos < st.highest && nx > st.highest {
			nx = st.highest // only the bytes of the hole are late
		}
		ch := chunk{start: pos, end: nx, first: g.t, last: g.t, lastCopy: g.t, segStart: g.start, segP: g.size, segH: g.hdr}
		if late && pos < st.highest {
			ch.lateBytes = nx - pos
		}
		dst := st.bytes(pos, nx)
		a, b := pos-g.start, nx-g.start
		avail := int64(len(g.payload))
		if a < avail {
			copy(dst, g.payload[a:min(b, avail)])
		}
		if b > avail {
			clear(dst[max(avail-a, 0):])
			ch.snapped = true
		}
		st.cs.insert(i, ch)
		st.bytesIn += nx - pos
		pos = nx
		i++
	}
	st.highest = max(st.highest, hi)
	return seen
}

// uncovered returns how many bytes of [x, y) are not present, and the first of them.
func (st *store) uncovered(x, y int64) (n, first int64) {
	l := st.cs.live()
	first = -1
	pos := x
	for i := st.cs.search(x); pos < y; i++ {
		next := y
		if i < len(l) && l[i].start < y {
			next = max(l[i].start, pos)
		}
		if next > pos {
			if first < 0 {
				first = pos
			}
			n += next - pos
		}
		if i >= len(l) || l[i].start >= y {
			break
		}
		pos = max(pos, l[i].end)
	}
	return n, first
}

// seenBefore reports whether some byte beyond off was first seen before t. It stops at the
// first such run: the runs beyond a hole just filled are most often the ones seen last, and
// a scan of them all, for every segment filling a hole, took 131 s for 300,000 one-byte
// segments in reverse order.
func (st *store) seenBefore(off, t int64) bool {
	l := st.cs.live()
	for i := st.cs.search(off); i < len(l); i++ {
		if l[i].first < t {
			return true
		}
	}
	return false
}

// deliver moves the in-order frontier over the bytes present, dating their delivery t (or,
// with own, their own arrival: bytes after a capture gap, which the receiver had before the
// capture saw them), never earlier than bytes delivered before.
func (st *store) deliver(t int64, own bool) {
	l := st.cs.live()
	for i := st.cs.search(st.delivered); i < len(l) && l[i].start == st.delivered; i++ {
		if l[i].dlv == 0 {
			dt := t
			if own {
				dt = l[i].last
			}
			l[i].dlv = max(dt, st.lastDlv)
			st.lastDlv = l[i].dlv
		}
		st.delivered = l[i].end
	}
}

// nextPresent returns the first byte present at or beyond delivered (highest when none).
func (st *store) nextPresent() int64 {
	l := st.cs.live()
	if i := st.cs.search(st.delivered); i < len(l) {
		return l[i].start
	}
	return st.highest
}

// skipTo gives up the hole at delivered up to to (at most the next byte present): the
// bytes there become in order, dated by their own arrival. It returns how many bytes were
// skipped: none while in-order bytes wait to be unframed or dropped (framed < delivered).
func (st *store) skipTo(to int64) int64 {
	to = min(to, st.nextPresent())
	if to <= st.delivered || st.framed < st.delivered {
		return 0
	}
	n := to - st.delivered
	st.framed, st.delivered = to, to
	st.deliver(0, true)
	return n
}

// dropBeyond removes the bytes beyond the in-order ones (those behind a hole) and returns the
// wire bytes they account for, as drop does, and how many stream bytes they were.
func (st *store) dropBeyond() (w, n int64) {
	for st.cs.n() > 0 {
		c := &st.cs.list[len(st.cs.list)-1]
		if c.start < st.delivered {
			break
		}
		n += c.end - c.start
		w += c.end - c.start + c.hdr() + c.xBytes + c.xHdr
		st.cs.list = st.cs.list[:len(st.cs.list)-1]
	}
	st.highest = st.delivered
	return w, n
}

// reset empties the store and moves it to offset s (the capture lost more than a window).
func (st *store) reset(s int64) {
	for st.cs.n() > 0 {
		st.cs.pop()
	}
	st.framed, st.delivered, st.highest = s, s, s
	st.bufOff = s
}

// inOrder returns the in-order bytes [framed, delivered), contiguous. They are read from the
// packet when one borrowed segment holds them all; otherwise what is borrowed is copied into
// the buffer first.
func (st *store) inOrder() []byte {
	if st.framed == st.delivered {
		return nil
	}
	if st.borrowed {
		l := st.cs.live()
		if c := &l[0]; c.ext != nil && c.end == st.delivered {
			return c.ext
		}
		// The chunks that end by owned were unborrowed by an earlier call, and none is
		// added below delivered (those bytes are all present): only the ones after them
		// are walked, so that a stream that comes a byte a segment, each its own chunk,
		// is not walked whole at each one.
		i := sort.Search(len(l), func(i int) bool { return l[i].end > st.owned })
		for ; i < len(l) && l[i].start < st.delivered; i++ {
			st.unborrow(&l[i])
		}
		st.owned = st.delivered
	}
	return st.bytes(st.framed, st.delivered)
}

// firstRun returns the first run of in-order bytes when more in-order bytes follow it (in
// runs after it), else nil.
func (st *store) firstRun() []byte {
	if st.framed == st.delivered {
		return nil
	}
	c := &st.cs.list[st.cs.head]
	switch {
	case c.end >= st.delivered:
		return nil
	case c.ext != nil:
		return c.ext
	}
	return st.bytes(c.start, c.end)
}

// gather copies into b the in-order bytes from framed, as many as b holds and are in order,
// and returns how many.
func (st *store) gather(b []byte) int {
	n := 0
	l := st.cs.live()
	for i := range l {
		c := &l[i] // not a copy of the chunk: its struct is too large to be kept in registers
		if n == len(b) || c.start >= st.delivered {
			break
		}
		src := c.ext
		if src == nil {
			src = st.bytes(c.start, c.end)
		}
		n += copy(b[n:], src)
	}
	return n
}

// byteAt returns the present byte at offset off.
func (st *store) byteAt(off int64) byte {
	c := &st.cs.live()[st.cs.search(off)]
	if c.ext != nil {
		return c.ext[off-c.start]
	}
	return st.buf[off-st.bufOff]
}

// snappedBefore says whether the snap length cut any byte present before offset y.
func (st *store) snappedBefore(y int64) bool {
	l := st.cs.live()
	for i := range l {
		c := &l[i]
		if c.start >= y {
			break
		}
		if c.snapped {
			return true
		}
	}
	return false
}

// unborrow copies a borrowed chunk's bytes into the buffer.
func (st *store) unborrow(c *chunk) {
	if c.ext == nil {
		return
	}
	copy(st.bytes(c.start, c.end), c.ext)
	c.ext = nil
}

// detach copies into the buffer the borrowed chunks of packets given before Detach call
// number before: those packets are about to be reused.
func (st *store) detach(before uint32) {
	if !st.borrowed {
		return
	}
	st.borrowed = false
	l := st.cs.live()
	for i := sort.Search(len(l), func(i int) bool { return l[i].end > st.owned }); i < len(l); i++ {
		if l[i].gen < before {
			st.unborrow(&l[i])
		}
		st.borrowed = st.borrowed || l[i].ext != nil
	}
}

// take removes the in-order bytes [framed, y) from the store and puts what they carried in
// *p, which must be zero. It fills *p in place rather than returning a piece: a struct of
// this size built field by field and then copied whole stalls on store forwarding, which
// made this, per message, the slowest step of the path.
func (st *store) take(y int64, p *piece) {
	for first := true; st.cs.n() > 0 && st.cs.live()[0].start < y; first = false {
		st.front(y, p, first)
	}
	st.framed = y
}

// drop removes the in-order bytes [framed, y) that no message carries and returns the wire
// bytes they account for: themselves, their header share and their extra copies.
func (st *store) drop(y int64) int64 {
	var p piece
	n := y - st.framed
	st.take(y, &p)
	return n + p.hdr + p.xBytes + p.xHdr
}

// front removes the first run, or its part before y, adding what it carried to *p.
func (st *store) front(y int64, p *piece, first bool) {
	c := &st.cs.list[st.cs.head]
	if c.end <= y {
		c.addTo(p, c.end, first)
		st.cs.pop()
		return
	}
	if c.hdrFixed|c.xBytes|c.xHdr|c.lateBytes != 0 {
		l := *c
		l.cut(y, c)
		l.addTo(p, y, first)
		return
	}
	// The usual cut of a message from a run that was seen once: nothing to share out in
	// proportion, only the header share of its bytes.
	c.addTo(p, y, first)
	if c.ext != nil {
		a := y - c.start
		if first {
			p.ext = c.ext[:a:a]
		}
		c.ext = c.ext[a:]
	}
	c.start = y
}

// maxChunks bounds the runs kept: beyond it they are merged, or a hole is given up.
func (st *store) maxChunks() int { return int(max(1024, st.window/256)) }

// compact merges neighbouring runs (see chunks.mergeContiguous) and reports whether any
// merged; borrowed runs are copied into the buffer first.
func (st *store) compact() bool {
	st.detach(^uint32(0))
	return st.cs.mergeContiguous()
}
