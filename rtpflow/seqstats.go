package rtpflow

// RFC 3550 A.1's limits: a step of MAX_DROPOUT or more forward, or of MAX_MISORDER or more
// backward, is a "very large jump" that counts only once the next packet confirms it.
const (
	maxDropout  = 3000
	maxMisorder = 100
)

// seqStats is a stream's sequence statistics as RFC 3550 A.1 defines them, over extended
// (unwrapped) sequence numbers: expected = highest − lowest + 1, lost = expected −
// distinct numbers received, duplicates (a number already received, within the last
// windowBits), reordered (a new number below the highest). It also keeps which lost numbers
// the stream's RTX stream recovered (markRTX), since those marks live in the same window.
//
// A very large jump (A.1: MAX_DROPOUT forward, MAX_MISORDER backward, but for a number that
// fills a gap of the segment: fillsGap) is held on probation:
// the packet counts nowhere, and A.1's bad_seq is set to the number after it. If the next
// packet is bad_seq, the sender restarted its numbers (a SIP gateway does, under the same
// SSRC): a new segment begins at the held packet, with its own lowest, highest and window,
// and expected and lost are summed over the segments, so that a restart is neither loss
// nor duplicates. Otherwise the held packet was a stray and stays uncounted, as in A.1,
// unless it stepped back within the segment's numbers: then it is counted late, as a
// duplicate or a reordered packet (late).
// A.1's probation of a new source (MIN_SEQUENTIAL) is not repeated here: the stream rule
// (continuity) already decides whether a source is a stream.
//
// add says what each packet did (seqEvent) so that the caller can put losses in the second
// they were seen, and take one back when a late packet fills a gap.
type seqStats struct {
	un        Unwrapper  // Bits 16
	win       *seqWindow // from the second packet: a one-packet candidate costs no 8 KiB
	lowest    int64      // of the current segment
	highest   int64      // of the current segment
	distinct  int64      // of the current segment
	dups      int64
	reordered int64
	recovered int64 // lost numbers whose original sequence number arrived in the RTX stream

	restarts                   int64
	doneExpected, doneDistinct int64  // sums over the segments before the last restart
	badSeq                     uint16 // A.1 bad_seq: valid while bad
	bad                        bool   // the last packet was a very large jump, held
	// noProbation: an RTX stream's numbers, which need not follow the order it sends in
	// (pion numbers an RTX packet when it buffers the original and resends it under that
	// number as often as asked): a jump is no restart, and a number seen is a duplicate.
	noProbation bool

	// The segment before the last restart, while the restart may yet prove to be its late
	// first packets (joinsBefore): its numbers, span and distinct count, and which arrived.
	prev struct {
		ok       bool
		lowest   uint16
		span     int64
		distinct int64
		got      []uint64
	}
}

func newSeqStats() seqStats { return seqStats{un: Unwrapper{Bits: 16}} }

// seqEvent is what one packet did to the sequence statistics. (Its words first: it is
// returned for every packet, and its bools share one word.)
type seqEvent struct {
	lost int64 // numbers it showed missing: a gap above the highest, or below the lowest
	ext  int64 // its extended number: the numbers it showed lost are just below it, or,
	// when it came below the lowest (below), just above
	heldExt int64 // the extended number of the held packet before (heldDup, heldFilled)

	dup     bool // its number was already received: it counts whole as a duplicate
	filled  bool // it filled a gap: one loss that an earlier packet showed is taken back
	below   bool
	held    bool // a very large jump, on probation: counted only if the next packet restarts
	ahead   bool // held, for a jump forward (MAX_DROPOUT or more)
	restart bool // it confirmed a restart: the held packet before it began a new segment
	// The held packet before this one, no restart after all, stepped back within the
	// segment (late): it was a duplicate, or it filled a gap.
	heldDup, heldFilled bool
}

// add accounts one packet's sequence number, in arrival order. outage says that a very
// large jump forward is no restart to hold on probation: the numbers in between were lost
// (Stream.outage).
func (q *seqStats) add(seq uint16, outage bool) seqEvent {
	if q.distinct == 0 && q.dups == 0 {
		ext := q.un.Unwrap(uint32(seq))
		q.lowest, q.highest = ext, ext
		q.distinct = 1
		return seqEvent{}
	}
	if q.prev.ok {
		if ev, ok := q.joinsBefore(seq); ok {
			return ev
		}
	}
	d := seq - uint16(q.highest)
	jump := !q.noProbation && d >= maxDropout && d <= 1<<16-maxMisorder && !q.fillsGap(seq) && !(outage && d < 1<<15)
	if jump && q.bad && seq == q.badSeq {
		q.bad = false
		q.restartAt(seq - 1)
		ev := q.step(seq)
		ev.restart = true
		return ev
	}
	var prior seqEvent
	// Ahead of the highest, or of the packet held before it: a run of jumps, each a
	// stray, leaves the highest behind.
	ahead := d < 1<<15 || q.bad && seq-q.badSeq < 1<<15
	if q.bad {
		q.bad = false
		prior = q.late(q.badSeq - 1)
	}
	ev := seqEvent{held: true, ahead: ahead}
	if jump {
		q.bad, q.badSeq = true, seq+1
	} else {
		ev = q.step(seq)
	}
	ev.heldDup, ev.heldFilled, ev.heldExt = prior.dup, prior.filled, prior.ext
	return ev
}

// fillsGap says whether seq, behind the highest, is a number of the current segment that
// was shown missing and has not arrived: a late packet filling a gap, however far behind
// (DESIGN counts distinct numbers), not A.1's very large jump. A burst held back 2.1 s, 104
// packets behind the highest when it came, was a restart of its own numbers: 105 lost of
// 1,000 where none was.
func (q *seqStats) fillsGap(seq uint16) bool {
	back := int64(uint16(q.highest) - seq)
	ext := q.highest - back
	return q.win != nil && back < windowBits && ext >= q.lowest && !q.win.has(ext)
}

// late accounts a held packet that the next one did not confirm as a restart. One that
// stepped back within the segment's numbers is what it would have been without the
// probation: a copy (duplicate) or a late packet filling a gap (reordered), as DESIGN counts
// them within the whole window where A.1 would drop them beyond MAX_MISORDER. Anything
// else (a jump ahead, or below the lowest) was a stray and counts nowhere, as in A.1.
func (q *seqStats) late(seq uint16) seqEvent {
	back := int64(uint16(q.highest) - seq)
	if back >= 1<<15 || q.highest-back < q.lowest {
		return seqEvent{}
	}
	return q.step(seq)
}

// settle accounts the packet still on probation when the stream ends: no packet came to
// confirm a restart, so it is what late makes of it, as when the next packet does not. And a
// restart that was the late first packets of the segment before joins it (joinAtEnd).
func (q *seqStats) settle() seqEvent {
	var ev seqEvent
	if q.bad {
		q.bad = false
		ev = q.late(q.badSeq - 1)
	}
	q.joinAtEnd()
	return ev
}

// restartAt closes the current segment and begins one at first, the held packet's number.
// A new segment that begins less than MAX_DROPOUT below the closed one's lowest may be its
// own first packets, come late: the closed one is kept for joinsBefore.
func (q *seqStats) restartAt(first uint16) {
	q.restarts++
	span := q.highest - q.lowest + 1
	q.doneExpected += span
	q.doneDistinct += q.distinct
	if q.win == nil { // a one-packet segment
		q.win = newSeqWindow()
		q.win.testSet(q.highest)
	}
	below := uint16(q.lowest) - first
	q.prev.ok = below > 0 && below < maxDropout && span < windowBits-maxDropout
	if q.prev.ok {
		q.prev.lowest, q.prev.span, q.prev.distinct = uint16(q.lowest), span, q.distinct
		q.prev.got = append(q.prev.got[:0], q.win.got...)
	}
	q.un = Unwrapper{Bits: 16}
	ext := q.un.Unwrap(uint32(first))
	q.lowest, q.highest, q.distinct = ext, ext, 1
	clear(q.win.got)
	clear(q.win.rtx)
	clear(q.win.nack)
	q.win.aheadN = 0
	q.win.testSet(ext)
}

// joinsBefore undoes the last restart when the segment it began, counting up from below the
// segment before, reaches that segment and steps over it: seq is beyond the segment
// before's highest (by less than MAX_DROPOUT) while the current highest is still below its
// lowest. The "restart" was the stream's own first packets arriving late (records out of
// time order, a capture merged from two): one segment again, the numbers between the two
// lost, and seq accounted in it. A segment that steps into the numbers of the one before is
// a true restart onto numbers already used, and the chance to join ends.
func (q *seqStats) joinsBefore(seq uint16) (seqEvent, bool) {
	p := &q.prev
	dl := int64(p.lowest - uint16(q.highest)) // forward from the highest to p's lowest
	ds := int64(seq - uint16(q.highest))
	if dl == 0 || dl >= maxDropout || ds >= 1<<15 || ds < dl {
		return seqEvent{}, false // not (yet) reaching the segment before
	}
	if ds < dl+p.span || ds >= dl+p.span+maxDropout || dl+p.span+(q.highest-q.lowest+1) >= windowBits {
		p.ok = false
		return seqEvent{}, false
	}
	gap := q.join(dl)
	ev := q.step(seq)
	ev.lost += gap
	return ev, true
}

// joinAtEnd is joinsBefore for a stream that ended with the late first packets, no packet
// after them stepping over the segment before: they end less than MAX_MISORDER below its
// lowest (the stronger evidence a following packet gave is missing, and a true restart
// lands that close by chance once in 650).
func (q *seqStats) joinAtEnd() {
	p := &q.prev
	if !p.ok {
		return
	}
	p.ok = false
	dl := int64(p.lowest - uint16(q.highest))
	if dl == 0 || dl >= maxMisorder || dl+p.span+(q.highest-q.lowest+1) >= windowBits {
		return
	}
	q.join(dl)
}

// join makes the segment before the last restart, dl above the current highest, and the
// current one a single segment again, and returns how many numbers lay between them (lost).
func (q *seqStats) join(dl int64) int64 {
	p := &q.prev
	p.ok = false
	lo := q.highest + dl
	hi := lo + p.span - 1
	q.win.advance(q.highest, hi)
	for ext := lo; ext <= hi; ext++ {
		if i, m := bitPos(ext); p.got[i]&m != 0 {
			q.win.got[i] |= m
		}
	}
	q.restarts--
	q.doneExpected -= p.span
	q.doneDistinct -= p.distinct
	q.reordered += q.distinct // the late first packets came after those above them
	q.distinct += p.distinct
	q.highest = hi
	q.un.Unwrap(uint32(uint16(hi))) // the unwrapper follows the highest
	return dl - 1
}

// step accounts a packet within the current segment.
func (q *seqStats) step(seq uint16) seqEvent {
	ext := q.un.Unwrap(uint32(seq))
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
		return seqEvent{lost: gap, ext: ext}
	case ext > q.highest-windowBits:
		if q.win.testSet(ext) {
			q.dups++
			return seqEvent{dup: true, ext: ext}
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
		return seqEvent{lost: gap, ext: ext, below: true}
	}
	return seqEvent{filled: true, ext: ext}
}

// markRTX notes that original sequence number osn arrived in the stream's RTX stream; when
// the original itself has not arrived (and is within the window, not below the lowest nor
// ahead of the highest), it counts as recovered, once.
func (q *seqStats) markRTX(osn uint16) { q.markRTXAt(q.place(osn)) }

// osnPlace is where an OSN fell among a stream's numbers when its RTX packet came: its
// extended number, in which segment (restarts then), and whether it was missing.
type osnPlace struct {
	ext     int64
	seg     int32
	missing bool
}

// place places osn nearest the highest extended sequence number, now.
func (q *seqStats) place(osn uint16) osnPlace {
	ext := q.extOf(osn)
	return osnPlace{ext: ext, seg: int32(q.restarts), missing: q.win != nil && ext <= q.highest &&
		ext > q.highest-windowBits && ext >= q.lowest && !q.win.has(ext)}
}

// markRTXAt is markRTX of an OSN placed earlier (place). One the window has left since,
// whose arrival can no longer be told, counts as recovered when it was missing then: an
// original that had not come when its resend did was lost.
func (q *seqStats) markRTXAt(p osnPlace) {
	if q.win == nil || int64(p.seg) != q.restarts || p.ext > q.highest || p.ext < q.lowest {
		return
	}
	switch {
	case p.ext <= q.highest-windowBits:
		if p.missing {
			q.recovered++
		}
	case q.win.has(p.ext):
	case !q.win.rtxTestSet(p.ext):
		q.recovered++
	}
}

// extOf places seq nearest the highest extended sequence number.
func (q *seqStats) extOf(seq uint16) int64 { return q.highest + int64(int16(seq-uint16(q.highest))) }

// markHole marks ext, if it is within the window, not received and not yet marked, as
// recovered by an RTX packet that resent its frame (Stream.repairFrame), and reports
// whether it did.
func (q *seqStats) markHole(ext int64) bool {
	if q.win == nil || ext > q.highest || ext <= q.highest-windowBits || ext < q.lowest || q.win.has(ext) {
		return false
	}
	if q.win.rtxTestSet(ext) {
		return false
	}
	q.recovered++
	return true
}

// unmarkHole undoes markHole(ext) (an RTX vote that elected no stream), if ext is still
// in the window.
func (q *seqStats) unmarkHole(ext int64) {
	if q.win == nil || ext > q.highest || ext <= q.highest-windowBits {
		return
	}
	if q.win.rtxClear(ext) {
		q.recovered--
	}
}

// wanted reports whether the stream wanted original sequence number osn when an RTX packet
// carrying it came (a repair, rtxmatcher.go): osn, placed nearest the highest, lies in the
// window of numbers received (not below the lowest nor above the highest) and has not
// arrived, or the receiver NACKed it (markNACK), even before it arrived.
func (q *seqStats) wanted(osn uint16) bool { return q.wantedAt(q.place(osn)) }

// wantedAt is wanted of an OSN placed earlier (place).
func (q *seqStats) wantedAt(p osnPlace) bool {
	ext := p.ext
	if q.win == nil || int64(p.seg) != q.restarts || ext > q.highest || ext <= q.highest-windowBits || ext < q.lowest {
		return false
	}
	return !q.win.has(ext) || q.win.nacked(ext) || q.win.nackedAhead(uint16(ext))
}

// markNACK notes that the receiver asked again for seq (RTCP NACK, RFC 4585 6.2.1), for
// wanted; numbers below the window are ignored, and those up to maxNACKAhead above the
// highest received are remembered apart (seqWindow.ahead).
func (q *seqStats) markNACK(seq uint16) {
	if q.win == nil {
		return
	}
	ext := q.highest + int64(int16(seq-uint16(q.highest)))
	switch {
	case ext > q.highest+maxNACKAhead, ext <= q.highest-windowBits, ext < q.lowest:
	case ext > q.highest:
		q.win.nackAheadAdd(seq)
	default:
		q.win.nackSet(ext)
	}
}

// maxNACKAhead bounds how far above the highest number received a NACK is taken: a
// receiver asks for the packets it expected by now, a few frames' worth.
const maxNACKAhead = 1000

// expected is the sum over the segments of highest − lowest + 1, 0 before the first packet.
func (q *seqStats) expected() int64 {
	if q.distinct == 0 {
		return 0
	}
	return q.doneExpected + q.highest - q.lowest + 1
}

// lost is expected − distinct received, never negative (nor is it in any segment: a
// segment's distinct numbers lie between its lowest and highest).
func (q *seqStats) lost() int64 { return max(0, q.expected()-q.doneDistinct-q.distinct) }
