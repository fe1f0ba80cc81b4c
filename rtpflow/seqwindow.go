package rtpflow

// windowBits is how many recent sequence numbers the duplicate detector remembers: the
// whole 16-bit space, so that every duplicate of a packet still ahead of a wrap is seen, in
// 8 KiB per stream whatever the stream's length.
const windowBits = 1 << 16

// seqWindow remembers, for the extended sequence numbers in (highest−windowBits, highest],
// which were received on the stream (got), which arrived in its RTX stream (rtx) and which
// the receiver NACKed (nack).
// A bit's position is the extended number modulo windowBits; advance clears the positions
// that enter the window so that a set bit always belongs to the number in the window.
type seqWindow struct {
	got  []uint64
	rtx  []uint64 // allocated when the stream is found to have an RTX stream
	nack []uint64 // allocated with the first NACK about the stream
	// ahead holds the last numbers NACKed above the highest received, which the window
	// cannot hold yet: a receiver may ask for a packet when it is due, before any later one
	// came (GStreamer's jitter buffer does, behind a path that delivers in bursts).
	ahead  [nackAheadLen]uint16
	aheadN int // numbers ever put in ahead; the next goes to aheadN % nackAheadLen
}

// nackAheadLen is how many numbers NACKed ahead are remembered: more than a burst of losses
// a receiver asks for at once.
const nackAheadLen = 32

func newSeqWindow() *seqWindow { return &seqWindow{got: make([]uint64, windowBits/64)} }

func bitPos(ext int64) (word int, mask uint64) {
	p := uint64(ext) & (windowBits - 1)
	return int(p >> 6), 1 << (p & 63)
}

// advance moves the window's top from old to new (new > old), clearing the positions of
// old+1 .. new.
func (w *seqWindow) advance(old, new int64) {
	if new-old >= windowBits {
		clear(w.got)
		clear(w.rtx)
		clear(w.nack)
		return
	}
	p := int(uint64(old+1) & (windowBits - 1))
	n := int(new - old)
	if p+n > windowBits {
		w.clearRange(p, windowBits)
		w.clearRange(0, p+n-windowBits)
		return
	}
	w.clearRange(p, p+n)
}

// clearRange clears bit positions [a, b).
func (w *seqWindow) clearRange(a, b int) {
	clearBits(w.got, a, b)
	if w.rtx != nil {
		clearBits(w.rtx, a, b)
	}
	if w.nack != nil {
		clearBits(w.nack, a, b)
	}
}

func clearBits(words []uint64, a, b int) {
	for a < b && a&63 != 0 {
		words[a>>6] &^= 1 << (a & 63)
		a++
	}
	for ; a+64 <= b; a += 64 {
		words[a>>6] = 0
	}
	for ; a < b; a++ {
		words[a>>6] &^= 1 << (a & 63)
	}
}

// testSet sets ext's received bit and reports whether it was already set.
func (w *seqWindow) testSet(ext int64) bool {
	i, m := bitPos(ext)
	was := w.got[i]&m != 0
	w.got[i] |= m
	return was
}

func (w *seqWindow) has(ext int64) bool {
	i, m := bitPos(ext)
	return w.got[i]&m != 0
}

// rtxTestSet sets ext's RTX bit and reports whether it was already set.
func (w *seqWindow) rtxTestSet(ext int64) bool {
	if w.rtx == nil {
		w.rtx = make([]uint64, windowBits/64)
	}
	i, m := bitPos(ext)
	was := w.rtx[i]&m != 0
	w.rtx[i] |= m
	return was
}

// rtxClear clears ext's RTX bit and reports whether it was set.
func (w *seqWindow) rtxClear(ext int64) bool {
	if w.rtx == nil {
		return false
	}
	i, m := bitPos(ext)
	was := w.rtx[i]&m != 0
	w.rtx[i] &^= m
	return was
}

// nackSet sets ext's NACK bit.
func (w *seqWindow) nackSet(ext int64) {
	if w.nack == nil {
		w.nack = make([]uint64, windowBits/64)
	}
	i, m := bitPos(ext)
	w.nack[i] |= m
}

// nacked reports whether ext's NACK bit is set.
func (w *seqWindow) nacked(ext int64) bool {
	if w.nack == nil {
		return false
	}
	i, m := bitPos(ext)
	return w.nack[i]&m != 0
}

// nackAheadAdd remembers seq, NACKed above the highest number received.
func (w *seqWindow) nackAheadAdd(seq uint16) {
	w.ahead[w.aheadN%nackAheadLen] = seq
	w.aheadN++
}

// nackedAhead reports whether seq is among the numbers last NACKed ahead.
func (w *seqWindow) nackedAhead(seq uint16) bool {
	for _, v := range w.ahead[:min(w.aheadN, nackAheadLen)] {
		if v == seq {
			return true
		}
	}
	return false
}
