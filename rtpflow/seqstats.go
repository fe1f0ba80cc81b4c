package rtpflow

// seqStats is a stream's sequence statistics as RFC 3550 A.1 defines them, over extended
// (unwrapped) sequence numbers: expected = highest − lowest + 1, lost = expected −
// distinct numbers received, duplicates (a number already received, within the last
// windowBits), reordered (a new number below the highest). It also keeps which lost numbers
// the stream's RTX stream recovered (markRTX), since those marks live in the same window.
//
// add says what each packet did (seqEvent) so that the caller can put losses in the second
// they were seen, and take one back when a late packet fills a gap.
type seqStats struct {
	un        Unwrapper  // Bits 16
	win       *seqWindow // from the second packet: a one-packet candidate costs no 8 KiB
	lowest    int64
	highest   int64
	distinct  int64
	dups      int64
	reordered int64
	recovered int64 // lost numbers whose original sequence number arrived in the RTX stream
}

func newSeqStats() seqStats { return seqStats{un: Unwrapper{Bits: 16}} }

// seqEvent is what one packet did to the sequence statistics.
type seqEvent struct {
	dup    bool  // its number was already received: it counts whole as a duplicate
	lost   int64 // numbers it showed missing: a gap above the highest, or below the lowest
	filled bool  // it filled a gap: one loss that an earlier packet showed is taken back
}

// add accounts one packet's sequence number, in arrival order.
func (q *seqStats) add(seq uint16) seqEvent {
	ext := q.un.Unwrap(uint32(seq))
	if q.distinct == 0 && q.dups == 0 {
		q.lowest, q.highest = ext, ext
		q.distinct = 1
		return seqEvent{}
	}
	if q.win == nil {
		q.win = newSeqWindow()
		q.win.testSet(q.highest)
	}
	switch {
	case ext > q.highest:
		gap := ext - q.highest - 1
		q.win.advance(q.highest, ext)
		q.highest = ext
		q.win.testSet(ext)
		q.distinct++
		return seqEvent{lost: gap}
	case ext > q.highest-windowBits:
		if q.win.testSet(ext) {
			q.dups++
			return seqEvent{dup: true}
		}
		if q.win.rtxClear(ext) {
			q.recovered-- // the original came after all
		}
	}
	q.distinct++
	q.reordered++
	if ext < q.lowest {
		gap := q.lowest - ext - 1
		q.lowest = ext
		return seqEvent{lost: gap}
	}
	return seqEvent{filled: true}
}

// markRTX notes that original sequence number osn arrived in the stream's RTX stream; when
// the original itself has not arrived (and is within the window, not below the lowest nor
// ahead of the highest), it counts as recovered, once.
func (q *seqStats) markRTX(osn uint16) {
	if q.win == nil {
		return
	}
	ext := q.highest + int64(int16(osn-uint16(q.highest)))
	if ext > q.highest || ext <= q.highest-windowBits || ext < q.lowest || q.win.has(ext) {
		return
	}
	if !q.win.rtxTestSet(ext) {
		q.recovered++
	}
}

// expected is highest − lowest + 1, 0 before the first packet.
func (q *seqStats) expected() int64 {
	if q.distinct == 0 {
		return 0
	}
	return q.highest - q.lowest + 1
}

// lost is expected − distinct received, never negative.
func (q *seqStats) lost() int64 { return max(0, q.expected()-q.distinct) }
