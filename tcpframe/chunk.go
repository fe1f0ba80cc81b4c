package tcpframe

// chunk is a run of present bytes [start, end) of a direction's stream that are not yet
// unframed, with their timing and the wire bytes they account for.
//
// Header bytes are shared out per segment in proportion to bytes with exact integer
// apportioning: the bytes [x, y) of a segment starting at s with P payload bytes and H header
// bytes get floor(H*(y-s)/P) - floor(H*(x-s)/P). The shares of any partition of the segment
// telescope to H, so however chunks are later cut at message boundaries the headers add up
// exactly; the remainder of a cut goes to the later bytes.
type chunk struct {
	start, end int64

	first, last int64 // first-seen time of the bytes (equal unless chunks were merged)
	lastCopy    int64 // time of the latest copy of any byte
	dlv         int64 // time the in-order frontier passed these bytes at the vantage (0: not yet)

	segStart   int64 // stream offset of the segment that first brought the bytes
	segP, segH int64 // its payload and header bytes (segP 0 after a merge)
	hdrFixed   int64 // header bytes not described by seg* (merged chunks)

	xBytes    int64 // payload bytes of extra copies (retransmissions seen at the vantage)
	xHdr      int64 // header share of the extra copies
	lateBytes int64 // bytes that filled a hole late: retransmissions whose original was not seen

	snapped bool // some bytes were cut by the snap length (zeros stand for them)

	// ext holds the bytes when they are still in their packet (borrowed, see store); nil
	// when they are in the store's buffer. gen is the packet's Conn.gen.
	ext []byte
	gen uint32
}

// share is the header share of the bytes [x, y) of a segment starting at s. The bytes up
// to the segment's end get all of it and those from its start none, without a division:
// most runs and messages begin or end with a segment.
func share(h, p, s, x, y int64) int64 {
	if p <= 0 {
		return 0
	}
	hy := h
	if y-s < p {
		hy = h * (y - s) / p
	}
	if x > s {
		hy -= h * (x - s) / p
	}
	return hy
}

func (c *chunk) hdr() int64 {
	return c.hdrFixed + share(c.segH, c.segP, c.segStart, c.start, c.end)
}

// split cuts c at k (c.start < k < c.end) and returns the right part; c keeps the left.
func (c *chunk) split(k int64) chunk {
	r := *c
	c.cut(k, &r)
	return r
}

// cut makes c the part of itself before k (c.start < k < c.end) and r, a copy of c, the part
// from k on. Amounts that are not per-segment are shared in proportion to bytes, the
// remainder right.
func (c *chunk) cut(k int64, r *chunk) {
	l, a := c.end-c.start, k-c.start
	prop := func(v int64) (int64, int64) {
		if v == 0 {
			return 0, 0
		}
		left := v * a / l
		return left, v - left
	}
	c.hdrFixed, r.hdrFixed = prop(c.hdrFixed)
	c.xBytes, r.xBytes = prop(c.xBytes)
	c.xHdr, r.xHdr = prop(c.xHdr)
	c.lateBytes, r.lateBytes = prop(c.lateBytes)
	if c.ext != nil {
		c.ext, r.ext = c.ext[:a], c.ext[a:]
	}
	c.end, r.start = k, k
}

// addTo adds what the bytes [c.start, y) of c carried to p, which holds what the bytes
// before them carried (first, when p is empty, the zero piece).
func (c *chunk) addTo(p *piece, y int64, first bool) {
	if first {
		p.first, p.complete, p.lastCopy, p.dlv, p.snapped = c.first, c.last, c.lastCopy, c.dlv, c.snapped
		p.ext, p.gen = nil, c.gen
		if c.ext != nil && y == c.end {
			p.ext = c.ext
		}
	} else {
		p.complete = max(p.complete, c.last)
		p.lastCopy = max(p.lastCopy, c.lastCopy)
		p.dlv = max(p.dlv, c.dlv)
		p.snapped = p.snapped || c.snapped
		p.ext = nil
	}
	p.hdr += c.hdrFixed + share(c.segH, c.segP, c.segStart, c.start, y)
	p.xBytes += c.xBytes
	p.xHdr += c.xHdr
	p.lateBytes += c.lateBytes
}

// chunks is the sorted list of chunks of a direction; the live ones are list[head:].
type chunks struct {
	list []chunk
	head int
}

func (cs *chunks) live() []chunk { return cs.list[cs.head:] }
func (cs *chunks) n() int        { return len(cs.list) - cs.head }

// search returns the index (into live) of the first chunk whose end is beyond off.
func (cs *chunks) search(off int64) int {
	l := cs.live()
	lo, hi := 0, len(l)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l[m].end <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// insert puts c at live index i.
func (cs *chunks) insert(i int, c chunk) { *cs.add(i) = c }

// add makes room for a chunk at live index i and returns it, zeroed, to be filled in place
// (a chunk literal copied in whole stalls on store forwarding: see store.take).
func (cs *chunks) add(i int) *chunk {
	i += cs.head
	if cs.head > 0 && i == cs.head {
		cs.head--
		cs.list[cs.head] = chunk{}
		return &cs.list[cs.head]
	}
	if i == len(cs.list) {
		cs.list = append(cs.list, chunk{})
		return &cs.list[i]
	}
	if n := len(cs.list); i == 0 && n >= 32 {
		// Before the first run with no room there: segments arriving in reverse order
		// would move the whole list each (131 s for 300,000 one-byte segments). The live
		// runs move up by as many as there are, once, so that as many more go in front
		// at no cost.
		l := make([]chunk, 2*n, 2*n+n/2)
		copy(l[n:], cs.list)
		cs.list, cs.head = l, n-1
		return &cs.list[cs.head]
	}
	cs.list = append(cs.list, chunk{})
	copy(cs.list[i+1:], cs.list[i:])
	cs.list[i] = chunk{}
	return &cs.list[i]
}

// splitAt makes off a chunk boundary if a chunk straddles it.
func (cs *chunks) splitAt(off int64) {
	i := cs.search(off)
	l := cs.live()
	if i < len(l) && l[i].start < off {
		r := l[i].split(off)
		cs.insert(i+1, r)
	}
}

// pop removes the first live chunk.
func (cs *chunks) pop() {
	cs.head++
	if cs.head == len(cs.list) {
		cs.list, cs.head = cs.list[:0], 0
	} else if cs.head > 64 && cs.head > len(cs.list)/2 {
		n := copy(cs.list, cs.list[cs.head:])
		cs.list, cs.head = cs.list[:n], 0
	}
}

// mergeContiguous merges neighbouring chunks that touch, halving the list at most; it
// reports whether anything merged. Timing becomes a range (first, last) and headers fixed
// amounts: the sums stay exact, the split between messages becomes proportional.
func (cs *chunks) mergeContiguous() bool {
	l := cs.live()
	out := cs.list[:cs.head]
	merged := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		if i+1 < len(l) && l[i+1].start == c.end && (c.dlv == 0) == (l[i+1].dlv == 0) {
			d := l[i+1]
			c.hdrFixed = c.hdr() + d.hdr()
			c.segP, c.segH = 0, 0
			c.end = d.end
			c.first, c.last = min(c.first, d.first), max(c.last, d.last)
			c.lastCopy, c.dlv = max(c.lastCopy, d.lastCopy), max(c.dlv, d.dlv)
			c.xBytes += d.xBytes
			c.xHdr += d.xHdr
			c.lateBytes += d.lateBytes
			c.snapped = c.snapped || d.snapped
			i++
			merged = true
		}
		out = append(out, c)
	}
	cs.list = out
	return merged
}
