package rtpflow

import "slices"

// The Stream's side of RTX detection (rtxmatcher.go): its votes, its repairs and its
// link to the media stream it retransmits.

// rtxOSN takes the first two payload bytes of a payload-bearing packet, which are the
// original sequence number if the stream is RTX (RFC 4588, 4), and its timestamp, which is
// the original's: votes while the stream is undecided, and once it is found to be RTX, a
// recovered packet of its media stream, or where it was elected by timestamps (the OSN is
// encrypted), a repair if it answers a NACK (nackLedger). A media stream, once decided,
// has nothing to do here.
//
// A padded packet (the P bit) does not vote: with SRTP it may be padding only, whose first
// bytes are no OSN and whose timestamp libwebrtc takes from the clock, not from an
// original; elected by timestamps, a stream's padded packets are probes.
//
// While it votes, signalling may name it RTX (signalledRTX): it is linked at once, and the
// rest of its votes only check the signalling. Linked so while its payload is known to be
// encrypted (SRTP), its OSNs are unreadable: its repairs are told by timestamps, as for a
// stream elected by them.
func (s *Stream) rtxOSN(osn uint16, ts uint32, at int64, padded, encrypted, skipped, filled bool) {
	s.rtx.encrypted = s.rtx.encrypted || encrypted
	if !s.rtx.voting() {
		s.repairOrRecover(osn, ts, at, padded)
		return
	}
	if s.rtx.of == nil {
		s.linkSignalled()
	}
	if padded {
		s.repairOrRecover(osn, ts, at, padded)
		return
	}
	m := s.snd.match(s, osn)
	var tm *Stream
	if !s.rtx.signalled {
		tm = s.snd.matchTS(s, ts)
	}
	hole, credit := int64(-1), false
	var behind *Stream
	switch {
	case tm != nil: // tell its repair now, while its frame is recent; undone if tm is not elected
		hole, credit = s.repairOf(tm, ts, at)
	case !s.rtx.signalled:
		behind = s.snd.matchBehind(s, ts)
	}
	var place osnPlace
	if m != nil {
		place = m.seq.place(osn)
	}
	full := s.rtx.vote(osn, m, place, m != nil && m.seq.wanted(osn), tm, hole, credit, ts, skipped, filled, behind)
	s.repairOrRecover(osn, ts, at, padded)
	if full {
		s.decideRTX(false)
	}
}

// repairOrRecover accounts one packet of an RTX stream linked to its media stream, if it
// is: by timestamps where the OSNs are unreadable (repairTS; a padded packet is a probe),
// else by its OSN (recover).
func (s *Stream) repairOrRecover(osn uint16, ts uint32, at int64, padded bool) {
	switch {
	case s.rtx.of == nil:
	case s.rtx.byTS:
		if !padded {
			s.repairTS(ts, at)
		}
	default:
		s.recover(osn, s.rtx.of.seq.wanted(osn))
	}
}

// repairTS tells whether a payload-bearing packet of an RTX stream elected by timestamps,
// of timestamp ts arrived at at, is a repair (counted) or a probe. The OSN is encrypted,
// so the frame stands for the packet: it is a repair when the media stream is missing a
// number its frame may own (tsRing.span) that no RTX packet repaired yet, which it then
// marks recovered (at the receiver's side of a loss: the media stream shows the hole), or
// the frame was never seen and ts falls in a gap of numbers between two frames (lost whole);
// else when it answers a NACK about the path (nackLedger: at the sender's side of a loss,
// or where the hole left the window). Otherwise it is a probe: libwebrtc resending a
// packet the receiver has. A probe resending a packet of a frame with a hole not repaired
// yet is taken for its repair: the one a protocol engineer would make from the same view.
func (s *Stream) repairTS(ts uint32, at int64) {
	if hole, credit := s.repairOf(s.rtx.of, ts, at); hole >= 0 || credit {
		s.rtx.repairs++
	}
}

// repairOf is repairTS against media stream m: it returns the number it marked recovered
// (-1: none) or whether it took a NACK credit.
func (s *Stream) repairOf(m *Stream, ts uint32, at int64) (hole int64, credit bool) {
	lo, hi, ok := m.rtx.recent.gap(ts)
	if age, found := m.rtx.recent.find(ts); found {
		lo, hi = m.rtx.recent.span(age, m.seq.highest)
		ok = true
	}
	if ok {
		for ext := max(lo, hi-maxFrameSpan); ext <= hi; ext++ {
			if m.seq.markHole(ext) {
				s.takeCredit(at) // the NACK that asked for it, if seen, is answered
				return ext, false
			}
		}
	}
	return -1, s.takeCredit(at)
}

// maxFrameSpan bounds the numbers repairTS looks through: a key frame of several hundred
// packets is searched from its end.
const maxFrameSpan = 512

// takeCredit takes a NACK credit of s's path valid at at (nackLedger). The RTX stream
// travels the path of its media stream, so the NACKs about that path are about it.
func (s *Stream) takeCredit(at int64) bool {
	if s.rtx.nl == nil {
		if s.rtx.nl = s.t.nackLedgerOf(s.path, false); s.rtx.nl == nil {
			return false
		}
	}
	return s.rtx.nl.take(at)
}

// linkSignalled makes s the RTX stream of the stream signalling names for it, if any and
// seen; the OSNs s voted for that stream before are its packets too, or, when its payload
// is encrypted, the repairs its timestamps told of that stream.
func (s *Stream) linkSignalled() {
	m := s.signalledMedia()
	if m == nil {
		return
	}
	s.rtx.of, s.rtx.signalled = m, true
	s.seq.noProbation = true
	m.rtx.hasRTX = true
	if s.rtx.encrypted {
		s.rtx.byTS = true
		s.rtx.repairs += s.rtx.settleTS(m)
		return
	}
	s.recoverVoted(m)
}

// signalledMedia returns the media stream signalling names for s (rtxmatcher.go): the
// FID pair's media SSRC among the sender's streams, else the only stream on s's path with
// the apt payload type; nil when there is none, or several, or no signalling. Without SIP
// in the capture it returns at once.
func (s *Stream) signalledMedia() *Stream {
	ht := &s.t.hints
	if ht.m == nil && ht.fid == nil {
		return nil
	}
	usable := func(o *Stream) bool { return o != s && !o.evicted && o.rtx.of == nil && o.packets > 0 }
	if media, ok := ht.fidOf(s); ok {
		for _, o := range s.snd.streams {
			if o.ssrc == media && usable(o) {
				return o
			}
		}
	}
	h, ok := ht.lookup(s)
	if !ok || !h.RTX {
		return nil
	}
	var found *Stream
	for _, o := range s.snd.streams {
		if o.path == s.path && o.pt == h.APT && usable(o) {
			if found != nil {
				return nil
			}
			found = o
		}
	}
	return found
}

// recover accounts one RTX packet of the elected media stream: a repair when the media
// stream wanted osn when it came, and a recovered loss if the original never arrives. An
// OSN just ahead of the media stream's highest number (the resend came before the packet
// that shows the gap) is judged once the media stream has passed it (settleAhead).
func (s *Stream) recover(osn uint16, wanted bool) {
	m := &s.rtx.of.seq
	s.settleAhead()
	p := m.place(osn)
	switch {
	case wanted:
		s.rtx.repairs++
	case s.rtx.holdAhead(p, m):
		return
	}
	m.markRTXAt(p)
}

// settleAhead judges the OSNs held ahead (rtxMatcher.holdAhead) that the media stream has
// passed since: each a repair, and a recovered loss, when its original has not come.
// Those of a segment the media stream has left (a restart) are probes: unknown.
func (s *Stream) settleAhead() {
	r := &s.rtx
	if r.aheadN == 0 || r.of == nil {
		return
	}
	m := &r.of.seq
	n := 0
	for _, p := range r.ahead[:r.aheadN] {
		switch {
		case int64(p.seg) != m.restarts:
		case p.ext > m.highest:
			r.ahead[n] = p
			n++
		case m.wantedAt(p):
			r.repairs++
			m.markRTXAt(p)
		}
	}
	r.aheadN = n
}

// decideRTX takes the RTX decision (rtxMatcher.decide); an elected media stream learns
// that it has an RTX stream and which of its losses the votes already recovered.
//
// A signalled stream is checked instead: its vote electing another stream is a dispute.
// At the end of the capture, a stream still undecided looks for signalling once more (a
// stream with no payload-bearing packet, or signalling after its first packets).
// unlinkWeakRTX undoes, at the end of the capture, an election by timestamps whose
// original is no stream (fewer than --min-packets packets, or no continuity) when the
// elected stream is one by its own rule: a timestamp that a stream of a packet or two sent
// is thin evidence (senders that start every stream's timestamps at 0, against RFC 3550
// 5.1, match by the first frame), and the RTX reading would leave out of the report a
// stream that qualifies, since an RTX stream is reported only with its original.
func (s *Stream) unlinkWeakRTX() {
	if o := s.rtx.of; o != nil && s.rtx.byTS && !s.rtx.signalled && !s.evicted && !o.byRule() && s.byRule() {
		s.rtx.of, s.rtx.byTS, s.rtx.repairs = nil, false, 0
	}
}

func (s *Stream) decideRTX(final bool) {
	if final && s.rtx.of == nil && !s.rtx.decided {
		s.linkSignalled()
	}
	was := s.rtx.decided
	best, byTS := s.rtx.decide(final)
	if byTS && s.shape.events() {
		// RFC 4733 events on an SSRC of their own carry the timestamps of the audio they
		// interrupt, on its clock: no resends (a tester's DTMF stream was elected RTX of
		// the audio, its events counted as probes).
		best, byTS = nil, false
	}
	if best != nil && !s.rtx.signalled && s.t.hints.namesOther(s) {
		// Signalling names its payload type a codec of its own (ulpfec and flexfec
		// carry the timestamps of the media they protect): no retransmission.
		best, byTS = nil, false
	}
	if final && s.rtx.of == nil && best == nil && s.t.hints.namesRTX(s, s.pt) {
		s.rtx.named = true
	}
	if !was && s.rtx.decided && !byTS {
		s.rtx.settleTS(nil) // the timestamp votes' marks stand only for a stream they elected
	}
	if s.rtx.signalled {
		// Only OSNs dispute signalling: timestamps vote once signalling is known only if
		// it came late, and are the weaker inference.
		if best != nil && best != s.rtx.of && !byTS {
			s.rtx.disputed = best
		}
		return
	}
	if best == nil {
		return
	}
	s.rtx.of = best
	s.seq.noProbation = true
	best.rtx.hasRTX = true
	if byTS {
		s.rtx.byTS = true
		s.rtx.repairs += s.rtx.settleTS(best)
		return
	}
	s.recoverVoted(best)
}

// recoverVoted accounts the packets s voted with for m, now its media stream (recover):
// each a repair when m wanted its OSN when it came, or wants it now. An OSN above m's
// highest number when it came (an RTX packet ahead of the packet that shows the gap) was
// not yet wanted then; if the number turned out lost, the packet repaired it, as
// recovered_by_rtx, counted now, says. Each OSN is taken where it fell when its packet
// came (osnPlace), not placed anew: an election at the end of a long capture is tens of
// thousands of numbers past an early repair (a 200 s call at 200 packets a second
// recovered none of its 12).
func (s *Stream) recoverVoted(m *Stream) {
	var done [rtxVotes]osnPlace
	n := 0
	s.rtx.votedFor(m, func(p osnPlace, wanted bool) {
		again := slices.Contains(done[:n], p) // a second copy: a repair again, recovered once
		done[n] = p
		n++
		switch {
		case wanted || m.seq.wantedAt(p):
			s.rtx.repairs++
		case s.rtx.holdAhead(p, &m.seq):
			return
		}
		if !again {
			m.seq.markRTXAt(p)
		}
	})
}
