package rtpflow

// tsRing keeps a stream's last tsRingLen distinct RTP timestamps (consecutive packets of a
// frame share one), for the timestamp vote of RTX matching (rtxmatcher.go): an RTX packet
// carries its original's timestamp (RFC 4588, 4). 64 frames are 2 s of 30 fps video, more
// than libwebrtc's NACK and probing resend from their packet history in practice.
type tsRing struct {
	ts   [tsRingLen]uint32
	n    int // entries filled
	next int
}

const tsRingLen = 64

// add records ts unless it repeats the last one.
func (r *tsRing) add(ts uint32) {
	if r.n > 0 && r.ts[(r.next+tsRingLen-1)%tsRingLen] == ts {
		return
	}
	r.ts[r.next] = ts
	r.next = (r.next + 1) % tsRingLen
	if r.n < tsRingLen {
		r.n++
	}
}

// has reports whether ts is among the recent timestamps.
func (r *tsRing) has(ts uint32) bool {
	for _, x := range r.ts[:r.n] {
		if x == ts {
			return true
		}
	}
	return false
}

// tsNear is how close to a stream's last timestamp another is taken for the same clock:
// 2^20 ticks, 11.6 s at 90 kHz.
const tsNear = 1 << 20

// near reports whether ts lies within tsNear of the last timestamp.
func (r *tsRing) near(ts uint32) bool {
	if r.n == 0 {
		return false
	}
	d := int32(ts - r.ts[(r.next+tsRingLen-1)%tsRingLen])
	return d > -tsNear && d < tsNear
}
