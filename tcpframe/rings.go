package tcpframe

// ackRing remembers when the peer's cumulative ACK advanced, so that a message framed or
// emitted later still finds the first ACK that covered it. Old entries are overwritten.
// Offsets increase from entry to entry. Its storage grows as entries come (ringStart,
// doubling to ackRingSize): a connection that carries nothing (a SYN) holds none, where
// its fixed arrays made every connection cost 41 KB.
type ackRing struct {
	off, t []int64 // a power of two long; entry number k at k & (len-1)
	pushed int     // entries ever pushed: the newest is pushed-1, the oldest pushed-n
	n      int
	cur    int // where the last lookup ended (an entry number like pushed)
}

const (
	ackRingSize = 256
	ringStart   = 8 // entries a ring starts with
)

func (r *ackRing) push(off, t int64) {
	if r.n == len(r.off) && len(r.off) < ackRingSize {
		r.grow()
	}
	i := r.pushed & (len(r.off) - 1)
	r.pushed++
	r.n = min(r.n+1, len(r.off))
	r.off[i], r.t[i] = off, t
}

// grow doubles the storage, each entry moving to its number's place in the larger one.
func (r *ackRing) grow() {
	size := max(ringStart, 2*len(r.off))
	off, t := make([]int64, size), make([]int64, size)
	for k := r.pushed - r.n; k < r.pushed; k++ {
		off[k&(size-1)], t[k&(size-1)] = r.at(k)
	}
	r.off, r.t = off, t
}

// at returns entry number k.
func (r *ackRing) at(k int) (off, t int64) {
	i := k & (len(r.off) - 1)
	return r.off[i], r.t[i]
}

// firstCovering returns the time of the first remembered ACK at or beyond off. Messages are
// looked up in stream order, so the search walks on from where the last one ended: amortised
// O(1) per ACK instead of a binary search per message. A lookup behind the last one searches.
func (r *ackRing) firstCovering(off int64) (int64, bool) {
	if r.n == 0 {
		return 0, false
	}
	mask := len(r.off) - 1
	if r.off[(r.pushed-1)&mask] < off {
		return 0, false
	}
	oldest := r.pushed - r.n
	c := max(r.cur, oldest)
	if c > oldest && r.off[(c-1)&mask] >= off {
		lo, hi := oldest, c-1
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if r.off[m&mask] < off {
				lo = m + 1
			} else {
				hi = m
			}
		}
		c = lo
	}
	for r.off[c&mask] < off {
		c++
	}
	r.cur = c
	return r.t[c&mask], true
}

// sentRing remembers the data segments not yet acknowledged, for RTT samples: a sample is the
// delay from a segment to the first ACK that ends exactly at its end, skipping segments whose
// bytes were sent more than once (Karn's rule). When full, the oldest is forgotten. Its
// storage grows as ackRing's does, to sentRingSize.
type sentRing struct {
	seg   []sentSeg // a power of two long; the oldest at first
	first int
	n     int
}

type sentSeg struct {
	start, end, t int64
	retx          bool
}

const sentRingSize = 512

func (r *sentRing) push(start, end, t int64, retx bool) {
	if r.n == len(r.seg) && len(r.seg) < sentRingSize {
		seg := make([]sentSeg, max(ringStart, 2*len(r.seg)))
		for k := 0; k < r.n; k++ {
			seg[k] = r.seg[(r.first+k)&(len(r.seg)-1)]
		}
		r.seg, r.first = seg, 0
	}
	mask := len(r.seg) - 1
	i := (r.first + r.n) & mask
	if r.n == len(r.seg) {
		r.first = (r.first + 1) & mask
	} else {
		r.n++
	}
	r.seg[i] = sentSeg{start, end, t, retx}
}

// newest returns when the latest segment that extended the stream was seen; false when
// every one was acknowledged.
func (r *sentRing) newest() (int64, bool) {
	if r.n == 0 {
		return 0, false
	}
	return r.seg[(r.first+r.n-1)&(len(r.seg)-1)].t, true
}

// markRetx marks the remembered segments that overlap [s, e) as sent more than once.
func (r *sentRing) markRetx(s, e int64) {
	for k := 0; k < r.n; k++ {
		g := &r.seg[(r.first+k)&(len(r.seg)-1)]
		if g.end > s && g.start < e {
			g.retx = true
		}
	}
}

// ack forgets the segments that ack covers and returns the sample for the one that ends at
// ack, if any.
func (r *sentRing) ack(a, t int64) (sample int64, ok bool) {
	for r.n > 0 {
		g := &r.seg[r.first]
		if g.end > a {
			break
		}
		if g.end == a && !g.retx {
			sample, ok = t-g.t, true
		}
		r.first = (r.first + 1) & (len(r.seg) - 1)
		r.n--
	}
	return sample, ok
}

// retxRing remembers recent retransmitted ranges, and when they were seen, so that a later
// D-SACK (RFC 2883) can mark them spurious and a message can tell whether it waited behind
// one. It holds what was pushed, up to retxRingSize (nothing for a connection that never
// retransmits); then each push overwrites the oldest, at next.
type retxRing struct {
	r    []retxRange
	next int
}

type retxRange struct {
	start, end, t int64
	spurious      bool
	acked         bool // the peer's ACK covered all of it when it was seen: it held nothing
	dsacked       bool // a D-SACK accounted for it
}

const retxRingSize = 32

func (r *retxRing) push(s, e, t int64, spurious, acked bool) {
	x := retxRange{start: s, end: e, t: t, spurious: spurious, acked: acked}
	if len(r.r) < retxRingSize {
		r.r = append(r.r, x)
		return
	}
	r.r[r.next] = x
	r.next = (r.next + 1) % retxRingSize
}

// dsack takes a D-SACK of [l, h): one redundant copy of those bytes reached the receiver
// (RFC 2883: the block is that copy's range). It returns the bytes it makes spurious. The
// copy is the newest retransmission of exactly that range that no D-SACK accounted for
// yet, else the newest ones overlapping it, up to its length. One counted spurious when it
// came (its bytes were acknowledged then) is accounted for, and counts nothing again: at
// the receiver, a segment delayed past its fast retransmission comes late, spurious, and
// its D-SACK made the retransmission spurious too (2,800 bytes of 1,400 sent twice).
func (r *retxRing) dsack(l, h int64) int64 {
	for j := len(r.r) - 1; j >= 0; j-- {
		if x := r.at(j); x.start == l && x.end == h && !x.dsacked {
			return x.takeDSACK(h - l)
		}
	}
	var n int64
	for j, need := len(r.r)-1, h-l; j >= 0 && need > 0; j-- {
		if x := r.at(j); !x.dsacked && x.end > l && x.start < h {
			m := min(need, min(h, x.end)-max(l, x.start))
			need -= m
			n += x.takeDSACK(m)
		}
	}
	return n
}

// spuriousOver reports whether a resend of bytes in [s, e) was shown spurious by a D-SACK:
// the receiver had the original, and the resend held nothing up.
func (r *retxRing) spuriousOver(s, e int64) bool {
	for _, x := range r.r {
		if x.dsacked && x.spurious && x.end > s && x.start < e {
			return true
		}
	}
	return false
}

// at returns the range pushed j-th of those held: 0 the oldest.
func (r *retxRing) at(j int) *retxRange { return &r.r[(r.next+j)%len(r.r)] }

// takeDSACK accounts a D-SACK of n bytes of x: spurious now, unless it was when it came.
func (x *retxRange) takeDSACK(n int64) int64 {
	x.dsacked = true
	if x.spurious {
		return 0
	}
	x.spurious = true
	return n
}

// heldBehind reports whether a retransmission of bytes below start was seen from first to
// now: a message first seen at first, starting at start, and delivered late in order waited
// for it (head-of-line blocking). A retransmission of bytes the peer had acknowledged when
// it was seen held nothing: the receiver had them (a tester's spurious resend made five
// messages, each waiting 9.9 ms for an ACK that rode on data, read as blocked); nor did one
// a D-SACK since showed spurious (at the sender, 79 messages of a window stall were said
// to wait behind a resend whose original the receiver had). When the
// ring has forgotten ranges seen since first, it answers yes: those many retransmissions
// are the likelier cause.
func (r *retxRing) heldBehind(first, now, start int64) bool {
	for _, x := range r.r {
		if x.start < start && x.t >= first && x.t <= now && !x.acked && !x.dsacked {
			return true
		}
	}
	return len(r.r) == retxRingSize && r.r[r.next].t > first
}
