package rtpflow

// Unwrapper extends a wrapping counter of Bits bits (16 for RTP sequence numbers, 32 for RTP
// timestamps, 24 for abs-send-time) to int64, as RFC 3550 A.1 does for sequence numbers:
// each value is placed nearest to the highest value unwrapped so far, so that both forward
// wrap-around and late (reordered) values from before a wrap come out right. A jump of half
// the range or more is ambiguous and is read as going backwards.
//
// The first value unwraps to itself. The zero value is not ready: set Bits.
type Unwrapper struct {
	Bits    uint
	highest int64
	started bool
}

// Unwrap returns v extended to int64.
func (u *Unwrapper) Unwrap(v uint32) int64 {
	mask := uint64(1)<<u.Bits - 1
	if !u.started {
		u.started = true
		u.highest = int64(uint64(v) & mask)
		return u.highest
	}
	d := (uint64(v) - uint64(u.highest)) & mask
	delta := int64(d)
	if d >= (mask+1)/2 {
		delta -= int64(mask + 1)
	}
	x := u.highest + delta
	if x > u.highest {
		u.highest = x
	}
	return x
}
