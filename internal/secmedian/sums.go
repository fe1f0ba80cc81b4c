package secmedian

// Sums adds up a quantity (wire bytes) by second, to be read (Spread) on a 1-second grid
// whose origin is known only when the report is built: a call direction's, anchored at its
// first media packet. Until Anchor gives the time the caller expects that origin at, the
// latest additions are kept whole (maxRecent of them) and the older ones on the clock's
// grid (Unix seconds); once anchored, the sums are kept on the anchor's grid, and a reader
// on that origin gets every second exactly. On another grid, each second is shared out:
// it keeps its first two additions with their times and the times of its first and last
// addition, so that a second of one or two additions (an RTCP report, a STUN check) is
// read exactly on any grid, and one of more (a second of TCP ACKs) whose first and last
// addition the grid's boundary falls between is shared out as if spread evenly between
// them. Bounds as Series's. The zero value is ready to use.
type Sums struct {
	origin   int64 // of the grid: 0, the clock's, until anchored
	anchored bool
	base     int64 // grid second of secs[0]
	last     int64 // the start (ns) of the last of secs
	secs     []sumSecond
	recent   []sumEvent // before the anchor: the latest additions
}

// maxRecent is how many additions Sums keeps whole before it is anchored: the anchor (a
// direction's first RTP message, which TCP may hold a round trip and more) can come after
// additions later than it.
const maxRecent = 64

// sumEvent is one addition.
type sumEvent struct{ at, n int64 }

// sumSecond is one second's sum, the offsets (ns into the second) of its first and last
// addition, and its first two additions (at, v), exactly while k <= 2.
type sumSecond struct {
	n      int64
	lo, hi int32
	k      uint8
	at     [2]int32
	v      [2]int64
}

// Anchor moves the grid to origin t (ns), once: what was added before is put on it, the
// additions kept whole exactly, the older ones shared out as Spread would.
func (b *Sums) Anchor(t int64) {
	if b.anchored {
		return
	}
	old := *b
	*b = Sums{origin: t, anchored: true}
	b.Merge(&old)
}

// Add adds n (> 0) at time at (ns).
func (b *Sums) Add(at, n int64) {
	if n <= 0 {
		return
	}
	if i := len(b.secs) - 1; b.anchored && i >= 0 && b.secs[i].k > 2 {
		// The common case, first: a busy second, the last one.
		if off := at - b.last; off >= 0 && off < 1e9 {
			s := &b.secs[i]
			s.n += n
			s.lo, s.hi = min(s.lo, int32(off)), max(s.hi, int32(off))
			return
		}
	}
	if !b.anchored {
		b.recent = append(b.recent, sumEvent{at, n})
		if len(b.recent) == maxRecent {
			for _, e := range b.recent[:maxRecent/2] {
				b.bin(e.at, e.n)
			}
			b.recent = append(b.recent[:0], b.recent[maxRecent/2:]...)
		}
		return
	}
	b.bin(at, n)
}

// bin adds n at time at to its second of the grid.
func (b *Sums) bin(at, n int64) {
	k := floorDiv(at-b.origin, 1e9)
	off := int32(at - b.origin - k*1e9)
	b.addSecond(k, sumSecond{n: n, lo: off, hi: off, k: 1, at: [2]int32{off}, v: [2]int64{n}})
}

// addSecond adds c to grid second k.
func (b *Sums) addSecond(k int64, c sumSecond) {
	i, ok := hold(&b.secs, &b.base, k)
	if !ok {
		return
	}
	b.last = b.origin + (b.base+int64(len(b.secs))-1)*1e9
	s := &b.secs[i]
	if s.n == 0 {
		*s = c
		return
	}
	if s.k+c.k <= 2 {
		copy(s.at[s.k:], c.at[:c.k])
		copy(s.v[s.k:], c.v[:c.k])
	}
	s.k = min(s.k+c.k, 3)
	s.n += c.n
	s.lo, s.hi = min(s.lo, c.lo), max(s.hi, c.hi)
}

// Merge adds o's sums to b's.
func (b *Sums) Merge(o *Sums) {
	if o.origin == b.origin {
		for k, c := range o.secs {
			if c.n > 0 {
				b.addSecond(o.base+int64(k), c)
			}
		}
	} else {
		o.each(b.origin, func(k int64, c sumSecond) { b.addSecond(k, c) })
	}
	for _, e := range o.recent {
		b.Add(e.at, e.n)
	}
}

// Spread adds b's sums to dst, by second of a grid anchored at t0 (ns): dst[j] takes
// [t0 + j s, t0 + (j+1) s). What falls outside dst's seconds is left out.
func (b *Sums) Spread(dst []float64, t0 int64) {
	put := func(j, n int64) {
		if j >= 0 && j < int64(len(dst)) {
			dst[j] += float64(n)
		}
	}
	b.each(t0, func(j int64, c sumSecond) { put(j, c.n) })
	for _, e := range b.recent {
		put(floorDiv(e.at-t0, 1e9), e.n)
	}
}

// each gives b's seconds (not its recent additions) by second of a grid anchored at t0, as
// sumSeconds: the additions kept whole, each in its second; a second of more shared out
// between the two it overlaps, in proportion, each part spanning its side of the boundary.
func (b *Sums) each(t0 int64, f func(j int64, c sumSecond)) {
	one := func(at, n int64) {
		j := floorDiv(at-t0, 1e9)
		off := int32(at - t0 - j*1e9)
		f(j, sumSecond{n: n, lo: off, hi: off, k: 1, at: [2]int32{off}, v: [2]int64{n}})
	}
	for k, c := range b.secs {
		if c.n == 0 {
			continue
		}
		u := b.origin + (b.base+int64(k))*1e9
		if c.k <= 2 {
			for e := range c.k {
				one(u+int64(c.at[e]), c.v[e])
			}
			continue
		}
		x0, x1 := u+int64(c.lo), u+int64(c.hi)
		j0, j1 := floorDiv(x0-t0, 1e9), floorDiv(x1-t0, 1e9)
		part := func(j, n, lo, hi int64) {
			s := t0 + j*1e9
			f(j, sumSecond{n: n, lo: int32(lo - s), hi: int32(hi - s), k: 3})
		}
		if j0 == j1 {
			part(j0, c.n, x0, x1)
			continue
		}
		// x0 < the boundary t0 + j1 s <= x1, and j1 = j0 + 1: a second is shorter than the
		// grid's. The first part is rounded down, the second takes the rest: sums stay whole.
		cut := t0 + j1*1e9
		first := int64(float64(c.n) * float64(cut-x0) / float64(x1-x0))
		if first > 0 {
			part(j0, first, x0, cut-1)
		}
		if c.n > first {
			part(j1, c.n-first, cut, x1)
		}
	}
}
