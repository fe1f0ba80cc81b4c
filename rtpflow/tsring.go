package rtpflow

// tsRing keeps a stream's last tsRingLen frames: each distinct RTP timestamp (consecutive
// packets of a frame share one) with the extended sequence numbers of its first and last
// packets seen. It serves RTX matching where the OSNs are encrypted (rtxmatcher.go): an RTX
// packet carries its original's timestamp (RFC 4588, 4), which says which stream it
// resends (sender.matchTS) and of which frame, whose missing numbers it may repair
// (Stream.repairFrame). 64 frames are 2 s of 30 fps video, more than libwebrtc's NACK and
// probing resend from their packet history in practice.
type tsRing struct {
	e    [tsRingLen]tsFrame
	n    int // entries filled
	next int
}

type tsFrame struct {
	ts          uint32
	first, last int64 // extended sequence numbers
}

const tsRingLen = 64

// add records a packet of timestamp ts and extended sequence number ext: a new frame
// unless ts repeats the last one. A packet that arrived late (it filled a gap, or repeats
// a number) goes to late instead.
func (r *tsRing) add(ts uint32, ext int64) {
	if r.n > 0 {
		if f := &r.e[(r.next+tsRingLen-1)%tsRingLen]; f.ts == ts {
			f.first, f.last = min(f.first, ext), max(f.last, ext)
			return
		}
	}
	r.e[r.next] = tsFrame{ts: ts, first: ext, last: ext}
	r.next = (r.next + 1) % tsRingLen
	if r.n < tsRingLen {
		r.n++
	}
}

// late records a packet that arrived late (it filled a gap, or repeats a number): it
// extends its own frame if that is recent, and opens none. As a frame after the last one
// (add), it cut the last frame's span short (span), and the missing tail of that frame,
// which an RTX packet of its timestamp then repaired, was taken for no repair.
func (r *tsRing) late(ts uint32, ext int64) {
	if age, ok := r.find(ts); ok {
		f := r.at(age)
		f.first, f.last = min(f.first, ext), max(f.last, ext)
	}
}

// find returns the age (0: the last frame) of the newest frame with timestamp ts.
func (r *tsRing) find(ts uint32) (age int, ok bool) {
	for age = 0; age < r.n; age++ {
		if r.at(age).ts == ts {
			return age, true
		}
	}
	return 0, false
}

// at returns the frame of the given age.
func (r *tsRing) at(age int) *tsFrame { return &r.e[(r.next+tsRingLen-1-age)%tsRingLen] }

// has reports whether ts is among the recent timestamps, or falls in a frame lost whole:
// between two consecutive frames with numbers missing between them (gap).
func (r *tsRing) has(ts uint32) bool {
	if _, ok := r.find(ts); ok {
		return true
	}
	_, _, ok := r.gap(ts)
	return ok
}

// gap returns the numbers missing between the two consecutive recent frames whose
// timestamps ts lies strictly between: the frame of timestamp ts, never seen, was lost
// whole (a TCP sender's dropped burst), and its RTX packets resend it.
func (r *tsRing) gap(ts uint32) (lo, hi int64, ok bool) {
	for age := 0; age+1 < r.n; age++ {
		b, a := r.at(age), r.at(age+1)
		if b.first > a.last+1 && int32(ts-a.ts) > 0 && int32(b.ts-ts) > 0 {
			return a.last + 1, b.first - 1, true
		}
	}
	return 0, 0, false
}

// span returns the sequence numbers the frame of the given age may own: from after the
// frame before it to before the frame after it (a loss between two frames may be the
// end of one or the start of the other), up to highest for the last frame. Without the
// frame before, it starts at the frame's first packet.
func (r *tsRing) span(age int, highest int64) (lo, hi int64) {
	f := r.at(age)
	lo, hi = f.first, highest
	if age+1 < r.n {
		lo = min(lo, r.at(age+1).last+1)
	}
	if age > 0 {
		hi = max(f.last, r.at(age-1).first-1)
	}
	return lo, hi
}

// tsNear is how close to a stream's last timestamp another is taken for the same clock:
// 2^20 ticks, 11.6 s at 90 kHz.
const tsNear = 1 << 20

// near reports whether ts lies within tsNear of the last timestamp.
func (r *tsRing) near(ts uint32) bool {
	if r.n == 0 {
		return false
	}
	d := int32(ts - r.at(0).ts)
	return d > -tsNear && d < tsNear
}
