package tcpframe

// data takes the payload of a data segment: it sorts its bytes into new, retransmitted
// (seen before, or filling a hole late) and spurious (already ACKed), stores them, and
// applies the gap policy.
//
// A segment that fills a hole is a retransmission when it comes more than one minimum RTT
// (minRTT: with a margin for the RTT's own noise) after the first byte beyond the hole was
// seen, else it is out of order (DESIGN, "TCP"). A retransmission that also fills a hole
// (the sender resegmented its repair) is a repair of all of it, however soon after the
// bytes beyond: a sender never sends new bytes below the ones it sent before, so the
// hole's bytes are resent ones too. A repair sent on a timer (RTO) comes when the timer
// says, not a round trip after the bytes beyond: in a Chromium call through coturn with
// loss, one filled its hole under 95% of the round trip after them.
// Bytes below the store's framed offset were seen before: they are copies of messages held
// back or already handed out (oldCopy). So are those of a direction that ended (its FIN
// delivered, or RST) that lie below what it framed: a FIN segment sent again counts as a
// retransmission, spurious when the peer's ACK had covered it.
func (d *dir) data(g *dataSeg) {
	s, e := g.start, g.end()
	st := &d.st
	if d.ended && e > st.framed || d.finSeen && s >= d.finOff {
		d.stats.endSegments++
		d.stats.endBytes += g.size
		d.addRest(&d.rest.Unframed, g.size+g.hdr)
		return
	}
	if d.tooFar(s, e) {
		d.stats.farSegments++
		d.stats.farBytes += g.size
		d.addRest(&d.rest.Unframed, g.size+g.hdr)
		return
	}
	d.makeRoom(e)
	limit := d.released() + d.c.window
	if d.finSeen {
		limit = min(limit, d.finOff)
	}

	var seen int64 // bytes seen before
	lo := s
	if lo < st.framed {
		y := min(e, st.framed)
		d.oldCopy(lo, y, g)
		seen += y - lo
		lo = y
	}
	hi := max(min(e, limit), lo)

	var holeNew int64
	late := false
	if lo < hi && lo < st.highest {
		var firstNew int64
		holeNew, firstNew = st.uncovered(lo, min(hi, st.highest))
		if holeNew > 0 {
			late = st.seenBefore(firstNew, g.t-d.c.minRTT())
		}
	}
	prevHighest := st.highest
	if lo < hi {
		if !st.fits(hi) {
			st.reserve(d.bufFrom(), hi, d.qBuf > 0)
		}
		seen += st.insert(g, lo, hi, late, d.c.borrow)
	}
	if hi < e {
		d.addRest(&d.rest.Unframed, e-hi+share(g.hdr, g.size, s, hi, e))
	}

	retx := seen > 0 || holeNew > 0 && late
	switch {
	case retx:
		d.stats.retxSegments++
		d.stats.retxBytes += seen + holeNew
		if d.restSecs != nil {
			d.restSecs.RetransmittedPayload.Add(g.t, seen+holeNew)
		}
		var spurious int64
		if d.ackSeen && seen > 0 {
			spurious = min(seen, max(0, min(e, d.ackHigh)-s))
		}
		d.stats.spuriousBytes += spurious
		// Karn: the ACKs of every segment beyond were held by the loss too.
		d.sent.markRetx(s, 1<<62)
		d.retx.push(s, e, g.t, spurious > 0, spurious == e-s)
	case holeNew > 0:
		d.stats.oooSegments++
	}
	if e > prevHighest {
		d.sent.push(s, e, g.t, retx)
	}

	st.deliver(g.t, false)
	d.boundHoles()
}
