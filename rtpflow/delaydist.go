package rtpflow

import (
	"math"
	"math/bits"
	"slices"
)

// binWidth is the resolution of the exact delay window: 0.1 ms.
const binWidth = int64(100e3)

// delayDist is the distribution of one stream's transits, kept so that the delay above the
// stream's baseline (its smallest transit, known only at the end) is exact with memory that
// does not grow with the packet count.
//
// Values are transits relative to the first sample's (rel, ns). The window of values from
// the running minimum up to minimum + span (span ≥ the largest threshold asked for) lives in
// linear bins of binWidth, each with its count and the exact smallest and largest value in
// it, in a ring that moves down when the minimum does; bins pushed out of the top, and values
// above the window, go to an overflow log histogram. So:
//
//   - min (the baseline) and max are exact;
//   - the count above any threshold up to span is exact unless one bin holds values on both
//     sides of it (then it is interpolated within that bin, which is ≤ 0.1 ms wide): with
//     constant transit plus chosen delays, every bin holds one value and counts are exact,
//     wherever the minimum comes;
//   - percentiles are interpolated inside 0.1 ms bins within the window and have ~0.8%
//     relative error above it.
//
// Memory: the ring grows in powers of two up to span/binWidth bins of 12 bytes (≈130 KB for
// 1.1 s, only for a stream whose delays spread that far) plus a sparse overflow histogram.
type delayDist struct {
	n              int64
	minRel, maxRel int64
	nb             int64 // bins in the window
	kmin, kmax     int64 // occupied bin indices
	ring           []dbin
	over           logHist
}

type dbin struct {
	n      uint32
	lo, hi uint32 // offsets (ns) of the smallest and largest value in the bin
}

func newDelayDist(span int64) delayDist {
	return delayDist{nb: span/binWidth + 2}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func (d *delayDist) slot(k int64) *dbin { return &d.ring[uint64(k)&uint64(len(d.ring)-1)] }

// add records one transit (ns, relative to the stream's reference).
func (d *delayDist) add(v int64) {
	k := floorDiv(v, binWidth)
	if d.n == 0 {
		d.minRel, d.maxRel = v, v
		d.kmin, d.kmax = k, k
		if d.ring == nil {
			d.ring = make([]dbin, 64)
		}
	}
	d.n++
	if v > d.maxRel {
		d.maxRel = v
	}
	if v < d.minRel {
		d.minRel = v
		if k < d.kmin {
			d.lower(k)
		}
	}
	if k >= d.kmin+d.nb {
		d.over.add(v, d.minRel, d.nb*binWidth)
		return
	}
	if k > d.kmax {
		d.fit(k - d.kmin + 1)
		d.kmax = k
	}
	b := d.slot(k)
	off := uint32(v - k*binWidth)
	if b.n == 0 || off < b.lo {
		b.lo = off
	}
	if b.n == 0 || off > b.hi {
		b.hi = off
	}
	b.n++
}

// lower moves the window's bottom to bin k, flushing the bins that leave its top.
func (d *delayDist) lower(k int64) {
	top := k + d.nb - 1
	for j := d.kmax; j > top && j >= d.kmin; j-- {
		b := d.slot(j)
		if b.n > 0 {
			base := j * binWidth
			d.over.addN(base+int64(b.lo), base+int64(b.hi), int64(b.n), d.minRel, d.nb*binWidth)
			*b = dbin{}
		}
	}
	if d.kmax > top {
		d.kmax = top
	}
	if d.kmax < d.kmin { // everything flushed
		d.kmax = k
	}
	d.fit(d.kmax - k + 1)
	d.kmin = k
}

// fit grows the ring to hold n bins from kmin.
func (d *delayDist) fit(n int64) {
	if n <= int64(len(d.ring)) {
		return
	}
	c := len(d.ring)
	for int64(c) < n {
		c *= 2
	}
	r := make([]dbin, c)
	for j := d.kmin; j <= d.kmax; j++ {
		r[uint64(j)&uint64(c-1)] = *d.slot(j)
	}
	d.ring = r
}

// countAbove counts the values strictly above thr (rel ns). thr must be at least this
// distribution's minimum minus nothing more than span: values in the overflow are counted
// as above it.
func (d *delayDist) countAbove(thr int64) int64 {
	if d.n == 0 {
		return 0
	}
	c := d.over.n
	kx := floorDiv(thr, binWidth)
	for j := max(kx, d.kmin); j <= d.kmax; j++ {
		b := d.slot(j)
		if b.n == 0 {
			continue
		}
		if j > kx {
			c += int64(b.n)
			continue
		}
		off := uint32(thr - kx*binWidth)
		switch {
		case b.lo > off:
			c += int64(b.n)
		case b.hi <= off:
		default: // values on both sides: interpolate within the bin
			x := int64(math.Round(float64(b.n) * float64(b.hi-off) / float64(b.hi-b.lo)))
			c += min(max(x, 1), int64(b.n)-1)
		}
	}
	return c
}

// seg is a run of count values spread over [lo, hi] (ns above a baseline).
type seg struct {
	lo, hi int64
	n      int64
}

// segments appends the distribution as delay above the baseline.
func (d *delayDist) segments(out []seg) []seg {
	for j := d.kmin; d.n > 0 && j <= d.kmax; j++ {
		b := d.slot(j)
		if b.n > 0 {
			base := j*binWidth - d.minRel
			out = append(out, seg{base + int64(b.lo), base + int64(b.hi), int64(b.n)})
		}
	}
	return d.over.segments(out, d.minRel)
}

// quantiles returns p-th percentiles (nearest rank, interpolated within a segment) of
// segs, which it sorts. A segment's n values lie evenly from lo to hi. One stream's segments
// are disjoint (its bins); a direction's, merged from its streams', overlap, and a rank is
// then the least value below which that many values of all segments lie (rankValue), or
// the interpolation inside one segment would pass over the others' values in it: p99 came
// out below p95.
func quantiles(segs []seg, total int64, ps ...float64) []float64 {
	slices.SortFunc(segs, func(a, b seg) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	overlap := false
	for i := 1; i < len(segs) && !overlap; i++ {
		overlap = segs[i].lo <= segs[i-1].hi
	}
	out := make([]float64, len(ps))
	for i, p := range ps {
		rank := int64(math.Ceil(p / 100 * float64(total)))
		rank = min(max(rank, 1), total)
		if overlap {
			out[i] = float64(rankValue(segs, rank))
			continue
		}
		var acc int64
		for _, s := range segs {
			if acc+s.n >= rank {
				j := rank - acc - 1
				v := float64(s.lo)
				if s.n > 1 {
					v += float64(s.hi-s.lo) * float64(j) / float64(s.n-1)
				}
				out[i] = v
				break
			}
			acc += s.n
		}
	}
	return out
}

// rankValue returns the least value v (ns) such that rank values of the segments are at or
// below it, each segment's spread evenly over [lo, hi] (segs sorted by lo, rank ≥ 1).
func rankValue(segs []seg, rank int64) int64 {
	atOrBelow := func(v int64) int64 {
		var c int64
		for _, s := range segs {
			switch {
			case s.lo > v:
				return c
			case v >= s.hi || s.n == 1:
				c += s.n
			default:
				c += int64(float64(v-s.lo)/float64(s.hi-s.lo)*float64(s.n-1)) + 1
			}
		}
		return c
	}
	lo, hi := segs[0].lo, segs[0].hi
	for _, s := range segs {
		hi = max(hi, s.hi)
	}
	for lo < hi { // the least v in [lo, hi] with atOrBelow(v) >= rank
		mid := lo + (hi-lo)/2
		if atOrBelow(mid) >= rank {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// logHist is a sparse log-linear histogram (8 significant bits: ≤ 0.8% relative bucket
// width) of values above an origin, for the delays beyond the exact window. All values share
// one origin, so that a later, lower baseline only shifts them by a known constant; when the
// baseline falls so far that a new value would lie below the origin, the buckets are
// re-placed under a new origin (each time within the bucket resolution).
type logHist struct {
	n       int64
	origin  int64
	buckets map[uint16]int64
}

const logSubBits = 7

func logBucket(x int64) uint16 {
	if x < 1<<logSubBits {
		return uint16(x)
	}
	e := bits.Len64(uint64(x)) - logSubBits - 1
	return uint16((e+1)<<logSubBits) + uint16(x>>e) - 1<<logSubBits
}

// logValue is the middle of bucket i.
func logValue(i uint16) (lo, hi int64) {
	if i < 1<<logSubBits {
		return int64(i), int64(i)
	}
	e := int(i>>logSubBits) - 1
	m := int64(i&(1<<logSubBits-1)) + 1<<logSubBits
	return m << e, (m+1)<<e - 1
}

func (h *logHist) add(v, base, span int64) { h.addN(v, v, 1, base, span) }

// addN records n values in [lo, hi] (at their middle); base is the current baseline.
func (h *logHist) addN(lo, hi, n, base, span int64) {
	if h.buckets == nil {
		h.buckets = make(map[uint16]int64)
		h.origin = base
	}
	if lo < h.origin || base < h.origin-span {
		h.rebase(base)
	}
	mid := lo + (hi-lo)/2
	h.buckets[logBucket(mid-h.origin)] += n
	h.n += n
}

func (h *logHist) rebase(o int64) {
	old := h.buckets
	h.buckets = make(map[uint16]int64, len(old))
	for i, c := range old {
		lo, hi := logValue(i)
		mid := lo + (hi-lo)/2 + h.origin - o
		h.buckets[logBucket(max(mid, 0))] += c
	}
	h.origin = o
}

func (h *logHist) segments(out []seg, base int64) []seg {
	for i, c := range h.buckets {
		lo, hi := logValue(i)
		out = append(out, seg{lo + h.origin - base, hi + h.origin - base, c})
	}
	return out
}
