package tcpframe

// stop says what follows the in-order bytes the unframer is given.
type stop uint8

const (
	stopMore stop = iota // more may come: a frame they end in the middle of waits
	stopGap              // a capture gap: the rest of a frame cut by it is skipped (resync)
	stopEnd              // the end of the stream (FIN, RST, end of the capture): the rest of
	// a frame cut by it is dropped, not counted as skipped to resynchronise
)

// frame runs the unframer over the in-order bytes: it detects the framing from the first
// bytes (or takes the peer's), resynchronises after a gap or garbage, and cuts messages,
// which it holds back (deliver.go) until their delivery can be dated.
func (d *dir) frame(until stop) {
	atEOF := until != stopMore
	st := &d.st
	// The in-order bytes from framed: all of [framed, delivered), or only the first run of
	// them (headsAcross); fetched again when they moved, or when they were only a run.
	var data []byte
	for st.framed < st.delivered {
		if int64(len(data)) != st.delivered-st.framed {
			data = nil
			if !atEOF && d.headsAcross() {
				data = st.firstRun()
			}
			if data == nil {
				data = st.inOrder()
			}
		}
		switch d.fr.kind {
		case FramingNone:
			exactOK := d.synSeen && st.framed == 0
			if pk := d.peer().fr.kind; pk != FramingNone && pk != FramingUnknown {
				d.framed(pk, exactOK)
				continue
			}
			if !atEOF && !detectAgain(len(data), d.fr.tried) {
				return
			}
			k, skip, ok := Detect(data, atEOF, exactOK)
			if !ok {
				d.fr.tried = len(data)
				return
			}
			d.framed(k, k != FramingUnknown)
			if skip > 0 {
				d.discard(int64(skip), false)
				data = data[skip:]
			}
			continue
		case FramingUnknown:
			if d.c.text != nil && len(data) > 0 {
				d.c.text(d.src, data)
			}
			d.discard(int64(len(data)), true)
			data = nil
			continue
		}
		resynced := false
		if !d.fr.sync {
			skip, found := resync(d.resyncProbe(), nil, data, atEOF, false)
			if skip > 0 {
				d.discard(int64(skip), false)
				data = data[skip:]
				continue
			}
			if !found {
				return
			}
			d.fr.sync, d.fr.broke, resynced = true, false, true
		}
		adv, msg, err := d.fr.split(data, atEOF, &d.c.chans)
		switch {
		case err != nil:
			d.fr.sync, d.fr.broke = false, true
			d.stats.breaks++
			if resynced { // cannot happen with a split that agrees with its probe; never loop
				d.discard(1, false)
				data = data[1:]
			}
		case adv == 0 && int64(len(data)) < st.delivered-st.framed:
			// The frame runs past the first run: taken by its head, or else the runs are
			// joined in the buffer and it is cut from there.
			switch d.takeAcross() {
			case acrossWait:
				return
			case acrossNo:
				data = st.inOrder()
			}
		case adv == 0:
			return
		case msg == nil && until == stopEnd:
			d.addRest(&d.rest.Unframed, d.st.drop(d.st.framed+int64(adv))) // a frame cut by the end
			data = data[adv:]
		case msg == nil:
			d.discard(int64(adv), false)
			data = data[adv:]
		default:
			d.carried(msg)
			off := int64(cap(data) - cap(msg))
			d.take(int64(adv), off, msg)
			data = data[adv:]
		}
	}
}

// discard drops n in-order bytes that no message carries: resync skips, or payload of a
// framing no one knows (other).
func (d *dir) discard(n int64, other bool) {
	d.addRest(&d.rest.Unframed, d.st.drop(d.st.framed+n))
	switch {
	case other:
		d.stats.other += n
		return
	case d.fr.broke:
		d.stats.resyncSkipped += n
		d.stats.brokenBytes += n
	default:
		d.stats.resyncSkipped += n
	}
	if n > 0 {
		d.gaps++
	}
}

// take turns the in-order bytes [framed, framed+adv) into a message held back, whose
// payload, msg, lies at off within them.
func (d *dir) take(adv, off int64, msg []byte) {
	payLen := int64(len(msg))
	m := d.taken(adv, off, payLen)
	keep, withLast, byHead := 0, false, false
	if d.c.headsOnly && !m.snapped {
		keep, withLast, byHead = headOf(d.fr.kind, msg, len(msg))
	}
	switch {
	case byHead && withLast:
		m.holdHead(msg[:keep], msg[payLen-1])
	case byHead:
		m.holdHead(msg[:keep], 0)
	case m.ext != nil:
		m.ext = m.ext[off : off+payLen : off+payLen]
	}
	d.queued(m)
}

// taken removes the in-order bytes [framed, framed+adv) from the store into a new message
// held back, whose payload is the payLen bytes at off within them, and returns it to be
// given to queued.
func (d *dir) taken(adv, off, payLen int64) *pending {
	start := d.st.framed
	d.stats.framedBytes += adv
	m := d.enqueue()
	m.start, m.end, m.pay, m.payLen, m.gaps = start, start+adv, start+off, payLen, d.gaps
	d.st.take(start+adv, &m.piece)
	return m
}

// framed sets the direction's framing. A media framing (TURN's, RFC 4571's) makes the
// connection count what no message accounts for by second (CountRestSeconds) from here:
// from before its first media message, whose delivery the pure ACKs that follow it may
// precede.
func (d *dir) framed(k Framing, sync bool) {
	d.fr.kind, d.fr.sync = k, sync
	if k == FramingTURN || k == FramingRFC4571 {
		d.c.CountRestSeconds()
	}
}
