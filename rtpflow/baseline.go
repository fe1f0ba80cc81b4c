package rtpflow

// BaselineWindow is how far, in arrival time, the baseline looks each way from a sample.
const BaselineWindow = int64(5e9)

// minAhead is the least time a look-ahead cut short by maxPending must span to count: the
// samples a TCP stall held, arriving together, span none, and their look-ahead is the
// stall itself (a 3 s stall at 200 packets a second, 600 samples, read 2.55 s).
const minAhead = BaselineWindow / 10

// maxPending bounds the samples waiting for their look-ahead (and the look-back kept): a
// stream sending more than maxPending samples in BaselineWindow has them judged with a
// shorter window. 512 holds the whole window for a sample per frame of 60 fps video or per
// packet of 20 ms audio; a stream sampled per packet (abs-send-time video, 250-400 packets
// a second) looks 1.3-2 s each way. A larger bound costs more than it buys: every pending
// sample of every stream is touched again a window later, and at 4096 the pending samples
// of the 40-call bench capture no longer fit the cores' caches (the media goroutine's time
// tripled, the whole run took 1.24x the CPU; at 512, 1.12x).
const maxPending = 512

// baseline follows a stream's transit, so that one anomaly does not make the rest of the
// stream late (the accuracy issue: a global minimum did). A sample's baseline is the larger
// of the smallest transit in the window before it and the smallest in the window after it
// (BaselineWindow each way, by arrival, the sample included), and its delay is its transit
// above that. So:
//
//   - a delay that ends (a queue that drains, a TCP retransmission, a late packet) is above
//     both sides' minima and counts in full;
//   - a step of the transit that stays, up or down (a sender's timestamp step, a path switch,
//     an encoder that flushed frames ahead of their time, a clock drift) is above one side
//     only: the packets on either side are measured against their own level;
//   - a delay that builds up and stays for longer than the window is read as a new level:
//     the window is the horizon over which a jitter buffer adapts;
//   - at the stream's start the look-back is short: its first sample is on time by
//     definition, as a jitter buffer takes it (so an encoder's flush of frames ahead of
//     their time does not make the rest late), unless TCP held it (a retransmission, the
//     window): while the look-back holds only such samples, the look-ahead alone is their
//     baseline; at its end the look-ahead is short, and the look-back alone is the
//     baseline (judge);
//   - over TCP, a silence longer than the window (a stall, whose held packets then arrive
//     together) leaves the minimum from before it in the look-back for a window (quiet).
//
// Samples are judged once their look-ahead has passed (or at flush), from two monotonic
// deques, in O(1) amortized time and memory bounded by maxPending samples.
type baseline struct {
	pending ring[bsample] // not judged yet, in arrival order: sample idx is out + position
	lead    ring[minRef]  // pending samples with increasing rel (key: idx): the look-ahead's minimum in front
	trail   ring[minRef]  // judged samples with increasing rel (key: at): the look-back's minimum in front
	in, out int64         // indices of the next sample pushed and judged
	// quiet is the look-back's minimum from before a silence longer than the window, which
	// the samples judged up to quietUntil (the window after it) see too (judge).
	quiet      int64
	quietUntil int64
	quietOK    bool
	// freeSeen says that a sample TCP did not hold was judged: until one is, the
	// look-back holds held samples only.
	freeSeen bool
}

// bsample is one transit sample waiting for its look-ahead: its arrival, transit (rel, ns),
// series second, the packets it speaks for, and what TCP held it up with. It is kept small:
// every sample waits a window in the pending ring, which for a busy capture is larger than
// the cores' caches.
type bsample struct {
	at, rel int64
	sec     int32
	n       uint16 // the packets it speaks for: its frame's, on RTP timestamps
	// behind counts those of them held behind a retransmission of earlier bytes where the
	// frame's first packet, whose hold hd is, was held otherwise (its own bytes resent).
	behind uint16
	hd     hold
}

// minRef is a sample in a minimum's deque: its transit and its key (index or arrival).
type minRef struct{ key, rel int64 }

// due reports whether the oldest pending sample is to be judged before a sample arriving
// at at is pushed: its look-ahead is over, or the pending samples are at their bound.
func (b *baseline) due(at int64) bool {
	return b.pending.n > 0 && (at-b.pending.front().at >= BaselineWindow || b.pending.n == maxPending)
}

// push adds a sample and returns its index; the caller judges the due ones first.
func (b *baseline) push(x bsample) int64 {
	idx := b.in
	b.in++
	b.pending.pushBack(x)
	for b.lead.n > 0 && b.lead.back().rel >= x.rel {
		b.lead.popBack()
	}
	b.lead.pushBack(minRef{key: idx, rel: x.rel})
	return idx
}

// judge takes the oldest pending sample and returns it with its delay above its baseline
// (≥ 0: both windows hold the sample itself). ahead says whether its look-ahead is whole;
// when the stream ended before it (flush), the look-back alone is the baseline: a hold-up
// that the end of the capture cut off is late, not a new level.
func (b *baseline) judge(ahead bool) (bsample, int64) {
	cut := b.pending.n == maxPending // judged for the bound: its look-ahead may be short
	p := b.pending.popFront()
	idx := b.out
	b.out++
	for b.lead.front().key < idx {
		b.lead.popFront()
	}
	minR := b.lead.front().rel
	// A silence longer than the window (nothing judged in the window before p) over TCP:
	// a stall delivers nothing for seconds, then its held packets together, which the
	// look-back alone would measure against one another, as on time (a tester's stall of
	// 5 s: no delay, none of its 243 late packets). For the window after it, the look-back
	// also holds the minimum from before it. Not over UDP, where nothing holds packets
	// back for seconds: after a silence (a fax, a mute) the timestamps may be on a level
	// of their own, by milliseconds.
	if b.trail.n > 0 && p.hd != holdUDP && p.at-b.trail.back().key > BaselineWindow {
		b.quiet, b.quietUntil, b.quietOK = b.trail.front().rel, p.at+BaselineWindow, true
	}
	for b.trail.n > 0 && b.trail.back().rel >= p.rel {
		b.trail.popBack()
	}
	if b.trail.n == maxPending {
		b.trail.popFront()
	}
	b.trail.pushBack(minRef{key: p.at, rel: p.rel})
	for p.at-b.trail.front().key > BaselineWindow { // a difference: a time near the int64 bound plus the window would wrap
		b.trail.popFront()
	}
	base := b.trail.front().rel
	quiet := b.quietOK && p.at <= b.quietUntil
	switch {
	case quiet:
		// After a stall over TCP the look-ahead holds the stall's own held samples (all of
		// it, when more than maxPending came together: a stall of 15 s read 10.2 s), and a
		// level the path took after it: the level before the stall is the one to measure
		// the held samples by, for a window.
		base = min(base, b.quiet)
	case p.hd > holdNone && !b.freeSeen:
		// TCP held it (a retransmission, the window), and every sample before it: the
		// look-back holds no level to measure it by (a stream's first packets, held behind
		// a resent Allocate response, were on time: 0.8 s). The look-ahead's is, however
		// short the stream left it (one that ended 5 s after them measured nothing).
		base = minR
	case ahead && (!cut || b.pending.back().at-p.at >= minAhead):
		base = max(base, minR)
	}
	b.freeSeen = b.freeSeen || p.hd <= holdNone
	return p, p.rel - base
}

// floor is the smallest transit of the recent samples: those pending and those judged
// within BaselineWindow before the newest judged one (0 before any sample).
func (b *baseline) floor() int64 {
	switch {
	case b.lead.n > 0 && b.trail.n > 0:
		return min(b.lead.front().rel, b.trail.front().rel)
	case b.lead.n > 0:
		return b.lead.front().rel
	case b.trail.n > 0:
		return b.trail.front().rel
	}
	return 0
}

// ring is a double-ended queue growing in powers of two: nothing is allocated per element
// once it has grown to its working size.
type ring[T any] struct {
	buf     []T
	head, n int
}

func (r *ring[T]) at(i int) *T { return &r.buf[(r.head+i)&(len(r.buf)-1)] }
func (r *ring[T]) front() *T   { return r.at(0) }
func (r *ring[T]) back() *T    { return r.at(r.n - 1) }

func (r *ring[T]) pushBack(v T) {
	if r.n == len(r.buf) {
		nb := make([]T, max(16, 2*len(r.buf)))
		for i := 0; i < r.n; i++ {
			nb[i] = *r.at(i)
		}
		r.buf, r.head = nb, 0
	}
	r.n++
	*r.back() = v
}

func (r *ring[T]) popFront() T {
	v := *r.front()
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return v
}

func (r *ring[T]) popBack() { r.n-- }
