package rtpflow

const (
	// earlyMax bounds the packets buffered until the clock rate and abs-send-time are
	// decided; the decision is taken earlier once the buffer spans earlySpan.
	earlyMax  = 256
	earlySpan = int64(1e9)
	// earlyWait is the longest the decision waits for a clock that fits (settled).
	earlyWait = int64(5e9)
)

// The timing decision. Jitter and delay need a stream's clock rate and whether it carries
// abs-send-time, which a dynamic payload type and unnegotiated extensions leave to be
// inferred from the first packets: they are buffered (early) until the decision, then
// replayed, in arrival order, to Jitter and delayStats. This file wires those parts.

// early is one packet buffered until the stream's timing decision.
type early struct {
	at    int64
	ts    int64
	seq   uint16
	hd    hold
	media bool
	ast   astValues
}

// earlyDup is a duplicate that arrived while the packets were early: jitter counts it
// (duplicateTiming) when they are replayed, after the early packet pos-1.
type earlyDup struct {
	pos   int
	at    int64
	ts    int64
	media bool
}

// heldPacket is the packet seqStats holds on probation (a very large sequence jump): its
// timing, fed to jitter and delay after the next packet confirms a restart or shows it
// late (lateHeld), dropped for a stray; and its sizes, for lateHeld to move a late copy's
// bytes to the duplicates.
type heldPacket struct {
	ok    bool
	at    int64
	sec   int
	ts    uint32
	seq   uint16
	hd    hold
	ext   bool
	media bool
	ast   astValues

	len, headerLen, payloadLen, padLen int64
}

// timing feeds one packet to jitter, delay and lateness, or buffers it until the clock rate
// is known. ts is its RTP timestamp unwrapped, seq its sequence number, media false for an
// event or comfort noise payload (Stream.media).
func (s *Stream) timing(at, ts int64, seq uint16, media bool, hd hold, ext bool, ast *astValues, sec int) {
	if s.timed() {
		s.sample(at, ts, seq, media, ast.v[0], ast.mask != 0, hd, sec)
	} else {
		s.untimed(at, ts, seq, media, hd, ext, ast, sec)
	}
}

// rebase starts the timestamps again at a restart of the sequence numbers: a sender that
// restarts them (RFC 3550 A.1) restarts its timestamps too, from another random value. The
// timing decision is taken on the packets before (a restart in the first second leaves
// fewer to infer a clock from), the unwrapper starts afresh, and jitter, delay and the late
// clock inference take the next packet as a new reference instead of a jump of hours.
func (s *Stream) rebase() {
	s.decide()
	s.tsUn = Unwrapper{Bits: 32}
	s.jit.rebase()
	s.delay.rebase()
	s.lateAt, s.lateTS = 0, 0
}

// timed reports whether the timing decision gave the stream a reference (a clock rate or
// abs-send-time): its packets then go straight to jitter and delay (sample).
func (s *Stream) timed() bool { return s.decided && (s.clock != 0 || s.ext.astID != 0) }

// untimed takes a packet of a stream not timed yet: buffered until the decision, or after
// a decision without a reference, a step of the late clock inference. at is its arrival,
// ts its RTP timestamp unwrapped, hd what TCP held it up with (hold), ext whether it has a header extension, ast its 3-byte extension values,
// sec its second in the series.
func (s *Stream) untimed(at, ts int64, seq uint16, media bool, hd hold, ext bool, ast *astValues, sec int) {
	if !s.decided && s.packets == 1 && !ext {
		if _, ok := static(s.pt); ok {
			s.decide() // a static payload type without extensions: nothing to wait for
		}
	}
	if s.decided {
		if s.clock == 0 && s.ext.astID == 0 {
			s.lateInfer(at, ts)
		}
		s.sample(at, ts, seq, media, ast.v[0], ast.mask != 0, hd, sec)
		return
	}
	if s.early == nil {
		s.early = make([]early, 0, 16)
	}
	s.early = append(s.early, early{at: at, ts: ts, seq: seq, hd: hd, media: media, ast: *ast})
	if n := len(s.early); n >= earlyMax || (n >= 8 && at-s.early[0].at >= earlySpan && s.settled(at)) {
		s.decide()
	}
}

// settled says whether the early packets, spanning earlySpan, are enough to decide on:
// they are when SDP, a static payload type or the video shape gives the clock, or
// abs-send-time is found (the clock is then taken on it, sentClock); else when the rate
// the arrivals give is close and steady (inferEarly) and no other candidate lies within
// 10% of it. Until then the stream waits, up to earlyWait or earlyMax packets, looking
// again every 16 packets: a queue that built up through the first second and drained in
// the next read 48 kHz as 16 kHz, and every delay as 0 (h137).
func (s *Stream) settled(at int64) bool {
	n := len(s.early)
	if at-s.early[0].at >= earlyWait {
		return true
	}
	if n < s.earlyNext {
		return false
	}
	s.earlyNext = n + 16
	if _, ok := static(s.pt); ok || s.frames.frames() {
		return true
	}
	if h, ok := s.t.hints.lookup(s); ok && h.ClockRate > 0 {
		return true
	}
	if s.ext.nCand > 0 && chooseAST(s.early, s.ext.nCand) >= 0 {
		// abs-send-time dates the packets, and the clock is inferred on it (sentClock),
		// which no queue skews; a clock jump of the capture's, later, would hide it (h137).
		return true
	}
	c, close := inferEarly(s.early)
	if close && nearOther(c) {
		// 44.1 and 48 kHz are 9% apart: a queue that grows or drains by a tenth over the
		// first second reads one for the other, steadily (h142: 250 packets late on a clean
		// 44.1 kHz stream read as 48). The envelope of the whole wait tells them apart: no
		// need to look again before it ends.
		s.earlyNext = earlyMax + 1
		return false
	}
	return close
}

// nearOther says whether another candidate clock lies within 10% of clock.
func nearOther(clock int) bool {
	for _, o := range clockCandidates {
		if d := o - clock; o != clock && 10*max(d, -d) < clock {
			return true
		}
	}
	return false
}

// decide takes the timing decisions from the buffered early packets (clock rate,
// abs-send-time) and replays them.
func (s *Stream) decide() {
	if s.decided {
		return
	}
	s.decided = true
	n := len(s.early)
	st, isStatic := static(s.pt)
	j := s.ext.choose(s.early)
	switch {
	case s.t.hints.take(s):
		// SDP signalled the clock rate of this payload type at this address.
	case isStatic:
		s.clock = st.clock
	case s.frames.frames():
		s.clock, s.clockInferred = 90000, true // a video payload format's (videoShape)
	case n >= 2:
		c := sentClock(s.early, j)
		if c == 0 {
			c, _ = inferEarly(s.early)
		}
		if c > 0 {
			s.clock, s.clockInferred = c, true
		}
	}
	if s.clock > 0 {
		s.jit = NewJitter(s.clock)
	}
	s.delay.reference(s.clock, s.ext.astID != 0)
	dups := s.earlyDups
	for i, e := range s.early {
		for ; len(dups) > 0 && dups[0].pos <= i; dups = dups[1:] {
			s.duplicateTiming(dups[0].at, dups[0].ts, dups[0].media)
		}
		var v uint32
		ok := false
		if j >= 0 {
			v, ok = e.ast.v[j], e.ast.mask&(1<<j) != 0
		}
		s.sample(e.at, e.ts, e.seq, e.media, v, ok, e.hd, s.series.index(e.at))
	}
	for _, d := range dups {
		s.duplicateTiming(d.at, d.ts, d.media)
	}
	if n > 0 {
		s.lateAt, s.lateTS = s.early[0].at, s.early[0].ts
	}
	s.early, s.earlyDups = nil, nil
}

// sentClock infers the clock from the timestamps' advance against abs-send-time's (the
// early packets' values of candidate j, -1 for none), from the first packet that has one
// to the last: the sender's own clock against its own sending, which no queue on the way
// skews. 0 when it cannot tell.
func sentClock(pk []early, j int) int {
	if j < 0 {
		return 0
	}
	var first, last *early
	for i := range pk {
		if e := &pk[i]; e.ast.mask&(1<<j) != 0 {
			if first == nil {
				first = e
			}
			last = e
		}
	}
	if first == nil || first == last {
		return 0
	}
	// Within the early packets' few seconds the 24-bit value wraps (every 64 s) once at most.
	d := int64(last.ast.v[j]-first.ast.v[j]) & (1<<24 - 1)
	return InferClockRate(last.ts-first.ts, astToNs(d))
}

// lateInfer keeps trying to infer the clock rate after the early buffer could not (a
// stream with a dynamic payload type whose first packets came in a burst, as a TCP backlog
// does), over successive 1-second windows, accepting a rate only within 15% of the ratio;
// the packets before that moment have no jitter or delay sample.
func (s *Stream) lateInfer(at, ts int64) {
	if _, ok := static(s.pt); ok {
		return
	}
	if s.lateAt == 0 && s.lateTS == 0 {
		s.lateAt, s.lateTS = at, ts
		return
	}
	if at-s.lateAt < earlySpan {
		return
	}
	if c := inferClose(ts-s.lateTS, at-s.lateAt); c > 0 {
		s.clock, s.clockInferred = c, true
		s.jit = NewJitter(c)
		s.delay.reference(c, false)
		return
	}
	s.lateAt, s.lateTS = at, ts
}

// switchClock follows a change of the media payload type to pt. Where pt's clock rate is
// known and is not the one the timing runs on, the call moved to another codec on the same
// SSRC (a SIP re-INVITE from Opus to PCMU), its timestamps running on at the new rate: read
// at the old one, each 20 ms packet would advance by 3.3 ms, and 250 of 300 packets after
// a switch from 48 to 8 kHz read as late. Jitter and delay go on at the new rate, from the
// next packet as a new reference (as after a timestamp restart). A type's rate is what
// SDP or RFC 3551 names, or, for the stream's first type, its timing decision's; a type of
// unknown rate (RED without SDP) keeps the rate the timing runs on.
func (s *Stream) switchClock(pt uint8) {
	c := s.clockOf(pt)
	s.clockPT = pt
	if c == 0 {
		return
	}
	s.decide() // the packets before the change decide the first type's clock
	if c == s.clock {
		return
	}
	if !s.switched {
		s.switched, s.baseClock = true, s.clock
	}
	if s.clock == 0 {
		s.jit = NewJitter(c)
	} else {
		s.jit.setClock(c)
		s.delay.rebase()
	}
	s.clock = c
	s.delay.reference(c, s.ext.astID != 0)
	s.tsPrevOK = false
}

// clockOf returns the clock rate of payload type pt in this stream (switchClock), 0 when
// it is not known.
func (s *Stream) clockOf(pt uint8) int {
	if h, ok := s.t.hints.lookupPT(s, pt); ok && h.ClockRate > 0 {
		return h.ClockRate
	}
	if st, ok := static(pt); ok {
		return st.clock
	}
	if pt == s.pt && s.switched {
		return s.baseClock
	}
	return 0
}

// ownClock is the stream's clock rate as the report gives it: its first payload type's.
func (s *Stream) ownClock() int {
	if s.switched {
		return s.baseClock
	}
	return s.clock
}

// sample feeds one packet, in arrival order, to jitter and delay; sec is its second in the
// series. An event, comfort noise or FEC payload (media false) takes no part in the jitter,
// as in the delay: an RFC 4733 event's packets all carry the event's start (RFC 4733
// 2.3.1), so each update's timestamp says nothing of when it was sent, and a DTMF digit
// made the jitter of a call tens of milliseconds.
func (s *Stream) sample(at, ts int64, seq uint16, media bool, ast uint32, astOK bool, hd hold, sec int) {
	if s.clock > 0 && media {
		s.jit.Update(at, ts)
	}
	s.delay.sample(at, ts, seq, media, ast, astOK, hd, sec)
}

// duplicateTiming takes a duplicate arriving at at, of timestamp ts: jitter counts it, as
// RFC 3550 A.8 counts every packet received; delay and lateness do not, since the copy
// before it is the one played (a copy 500 ms after an on-time original was a late packet,
// and a finding that it came too late to be played).
func (s *Stream) duplicateTiming(at, ts int64, media bool) {
	switch {
	case s.timed() && s.clock > 0 && media:
		s.jit.Update(at, ts)
	case !s.decided && len(s.earlyDups) < earlyMax:
		// The packets wait for the timing decision (early): it waits with them.
		s.earlyDups = append(s.earlyDups, earlyDup{pos: len(s.early), at: at, ts: ts, media: media})
	}
}

// maxTSStep is how far a media packet's timestamp may step from its arrival, against the
// stream's media packet before, and still be on the same base: a network holds a packet
// for seconds at most (a TCP stall), and reorders or B-frames move a timestamp back by
// less than one. Beyond, the sender moved its RTP clock (a timestamp reset to 0 with the
// sequence numbers going on, as a gateway does on a T.38 switch): a discontinuity.
const maxTSStep = int64(30e9)

// maxBFrameBack is how far back a video frame's timestamp may be from the frame before it
// in sequence order and still be a B-frame's (presentation times, which swing by a few
// frames: issue 11 saw ±165 ms). Audio has no B-frames: its timestamps never go back in
// sequence order.
const maxBFrameBack = int64(1e9)

// tsStep follows the timestamps of the stream's media packets (ts unwrapped, at arrival)
// and rebases at a discontinuity, as at a restart of the sequence numbers: jitter and delay
// at a step beyond maxTSStep either way; the delay alone, for a packet in sequence order
// (inOrder), at a timestamp that went back (beyond what B-frames do): the sender stepped
// its clock back. A 2 s step back left the frames after it skipped as B-frames until their
// timestamps passed the old ones, and read the rest of a 4 s tail 2 s late, 150 packets, by
// the look-back that ends a stream (a tester's). A step ahead needs none: the baseline
// takes the lower level (a rebase there also took a packet that followed a late one by
// more than 500 ms for a step, and moved the delays after it: 2 to 3 late packets fewer
// in two of h126's TCP calls). Jitter takes a step in, as RFC 3550 A.8 and tshark do (a
// 16.5 s step ahead: a maximum of 1,041 ms in both).
func (s *Stream) tsStep(at, ts int64, inOrder bool) {
	if s.clock > 0 && s.tsPrevOK {
		step := tsToNs(ts-s.tsPrev, s.clock) - (at - s.tsPrevAt)
		back := tsToNs(s.tsPrev-ts, s.clock)
		switch {
		case step > maxTSStep || step < -maxTSStep:
			s.jit.rebase()
			s.delay.rebase()
		case inOrder && back > 0 && (s.clock != videoClock || back > maxBFrameBack):
			s.delay.rebase()
		}
	}
	s.tsPrev, s.tsPrevAt, s.tsPrevOK = ts, at, true
}
