package tcpframe

// ackRing remembers when the peer's cumulative ACK advanced, so that a message framed or
// emitted later still finds the first ACK that covered it. Old entries are overwritten.
// Offsets increase from entry to entry.
type ackRing struct {
	off, t [ackRingSize]int64
	pushed int // entries ever pushed: the newest is pushed-1, the oldest pushed-n
	n      int
	cur    int // where the last lookup ended (an entry number like pushed)
}

const ackRingSize = 256

func (r *ackRing) push(off, t int64) {
	i := r.pushed % ackRingSize
	r.pushed++
	r.n = min(r.n+1, ackRingSize)
	r.off[i], r.t[i] = off, t
}

// firstCovering returns the time of the first remembered ACK at or beyond off. Messages are
// looked up in stream order, so the search walks on from where the last one ended: amortised
// O(1) per ACK instead of a binary search per message. A lookup behind the last one searches.
func (r *ackRing) firstCovering(off int64) (int64, bool) {
	if r.n == 0 || r.off[(r.pushed-1)%ackRingSize] < off {
		return 0, false
	}
	oldest := r.pushed - r.n
	c := max(r.cur, oldest)
	if c > oldest && r.off[(c-1)%ackRingSize] >= off {
		lo, hi := oldest, c-1
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if r.off[m%ackRingSize] < off {
				lo = m + 1
			} else {
				hi = m
			}
		}
		c = lo
	}
	for r.off[c%ackRingSize] < off {
		c++
	}
	r.cur = c
	return r.t[c%ackRingSize], true
}

// sentRing remembers the data segments not yet acknowledged, for RTT samples: a sample is the
// delay from a segment to the first ACK that ends exactly at its end, skipping segments whose
// bytes were sent more than once (Karn's rule). When full, the oldest is forgotten.
type sentRing struct {
	start, end, t [sentRingSize]int64
	retx          [sentRingSize]bool
	first         int
	n             int
}

const sentRingSize = 512

func (r *sentRing) push(start, end, t int64, retx bool) {
	i := (r.first + r.n) % sentRingSize
	if r.n == sentRingSize {
		r.first = (r.first + 1) % sentRingSize
	} else {
		r.n++
	}
	r.start[i], r.end[i], r.t[i], r.retx[i] = start, end, t, retx
}

// markRetx marks the remembered segments that overlap [s, e) as sent more than once.
func (r *sentRing) markRetx(s, e int64) {
	for k := 0; k < r.n; k++ {
		i := (r.first + k) % sentRingSize
		if r.end[i] > s && r.start[i] < e {
			r.retx[i] = true
		}
	}
}

// ack forgets the segments that ack covers and returns the sample for the one that ends at
// ack, if any.
func (r *sentRing) ack(a, t int64) (sample int64, ok bool) {
	for r.n > 0 {
		i := r.first
		if r.end[i] > a {
			break
		}
		if r.end[i] == a && !r.retx[i] {
			sample, ok = t-r.t[i], true
		}
		r.first = (r.first + 1) % sentRingSize
		r.n--
	}
	return sample, ok
}

// retxRing remembers recent retransmitted ranges, and when they were seen, so that a later
// D-SACK (RFC 2883) can mark them spurious and a message can tell whether it waited behind
// one.
type retxRing struct {
	start, end, t [retxRingSize]int64
	spurious      [retxRingSize]bool
	next, n       int
}

const retxRingSize = 32

func (r *retxRing) push(s, e, t int64, spurious bool) {
	r.start[r.next], r.end[r.next], r.t[r.next], r.spurious[r.next] = s, e, t, spurious
	r.next = (r.next + 1) % retxRingSize
	if r.n < retxRingSize {
		r.n++
	}
}

// dsack returns the retransmitted bytes in [l, h) not yet counted spurious, and marks them.
func (r *retxRing) dsack(l, h int64) int64 {
	var n int64
	for i := 0; i < r.n; i++ {
		if r.spurious[i] || r.end[i] <= l || r.start[i] >= h {
			continue
		}
		n += min(h, r.end[i]) - max(l, r.start[i])
		r.spurious[i] = true
	}
	return n
}

// heldBehind reports whether a retransmission of bytes below start was seen from first to
// now: a message first seen at first, starting at start, and delivered late in order waited
// for it (head-of-line blocking). When the ring has forgotten ranges seen since first, it
// answers yes: those many retransmissions are the likelier cause.
func (r *retxRing) heldBehind(first, now, start int64) bool {
	for i := range r.n {
		if r.start[i] < start && r.t[i] >= first && r.t[i] <= now {
			return true
		}
	}
	return r.n == retxRingSize && r.t[r.next] > first
}
