package tcpframe

// The gap policy: a hole the capture never fills (it dropped the segment, though the peer
// got it) is given up as a capture gap, and the unframer resynchronises after it. A hole is
// given up when the peer's ACK passes it (ack.go), when half a window of later data has piled
// up behind it (TCP would have repaired it by now), when the store holds too many runs, when
// the window must make room, and at the end of the capture.

// tooFar reports whether a segment wholly beyond the window is dropped: a few in a row
// that continue each other mean the capture lost more than a window, and the stream jumps
// to them; fewer are taken as bogus. The window runs from the highest byte seen, not from
// the bytes released: a segment within a window of data already seen is plausible, and
// the holes below it give way (makeRoom). From the bytes released, a stream of segments
// each beyond a hole the capture missed, without ACKs to pass the holes, had 11,769 of
// 20,000 taken for bogus.
func (d *dir) tooFar(s, e int64) bool {
	if s < max(d.released(), d.st.highest)+d.c.window {
		d.farRun = 0
		return false
	}
	if s == d.farNext {
		d.farRun++
	} else {
		d.farRun = 1
	}
	d.farNext = e
	if d.farRun < farRunJump {
		return true
	}
	d.jump(s)
	d.farRun = 0
	return false
}

// makeRoom makes [released, e) fit in the window: it hands out held-back messages, then
// skips holes so that what is behind them can be unframed.
func (d *dir) makeRoom(e int64) {
	for e-d.released() > d.c.window {
		switch {
		case d.qh < len(d.q):
			d.emitHead()
		case d.st.delivered < d.st.highest:
			d.skipHole(d.st.highest)
		default:
			return
		}
	}
}

// boundHoles gives up holes when too many runs are kept and nothing merges, or when more
// than half a window of data waits behind them.
func (d *dir) boundHoles() {
	st := &d.st
	if st.cs.n() > st.maxChunks() {
		st.compact()
		// Dense holes merge nothing: give up holes down to three quarters of the bound, so
		// that the next compaction, linear in the runs, waits for a quarter of the bound's
		// new runs instead of coming back with the next segment.
		for st.cs.n() > st.maxChunks()*3/4 && st.delivered < st.highest {
			before := st.delivered
			d.skipHole(st.highest)
			if st.delivered == before {
				break
			}
		}
	}
	for st.highest-st.delivered > d.c.window/2 && st.delivered < st.highest {
		d.skipHole(st.highest)
	}
}

// skipHole gives up the hole at the in-order frontier as a capture gap, up to the next
// byte present or to (an ACK that passed part of the hole).
func (d *dir) skipHole(to int64) {
	if min(to, d.st.nextPresent()) <= d.st.delivered {
		return
	}
	d.gap()
	d.stats.gapBytes += d.st.skipTo(to)
	d.frame(stopMore)
}

// skipHolesTo skips every hole below up.
func (d *dir) skipHolesTo(up int64) {
	for d.st.delivered < min(up, d.st.highest) {
		before := d.st.delivered
		d.skipHole(up)
		if d.st.delivered == before {
			return
		}
	}
}

// gap ends the in-order bytes before a capture gap: the unframer finishes what it can, the
// rest of a frame cut by the gap is skipped, and the unframer resynchronises after it.
func (d *dir) gap() {
	d.gaps++
	if d.fr.kind != FramingNone {
		d.frame(stopGap)
	}
	if d.st.delivered > d.st.framed {
		d.discard(d.st.delivered-d.st.framed, d.fr.kind == FramingUnknown)
	}
	d.fr.sync, d.fr.broke = false, false // what follows a gap is skipped because of the gap
}

// jump moves the stream to s after the capture lost more than a window.
func (d *dir) jump(s int64) {
	d.skipHolesTo(d.st.highest)
	d.gap()
	for d.qh < len(d.q) {
		d.emitHead()
	}
	if s > d.st.highest {
		d.stats.gapBytes += s - d.st.highest
	}
	d.st.reset(s)
}
