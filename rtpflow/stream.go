package rtpflow

// Stream is one SSRC seen in one direction of one leg (one Path). It counts its packets
// and their bytes on the wire itself and hands each packet, in turn, to the parts that
// follow one aspect of it (add): continuity for the stream rule, seqStats for RFC 3550
// loss, series for the per-second figures, extDetector for header extensions, rtxMatcher
// for RTX, and the timing decision, Jitter and delayStats for jitter, delay and lateness.
type Stream struct {
	t       *Tracker
	path    Path
	ssrc    uint32
	snd     *sender
	evicted bool

	// Counters, every packet (duplicates included).
	pt                           uint8 // of the first packet
	packets                      int64
	payloadBytes, headerBytes    int64
	paddingBytes, paddingPackets int64
	paddedPackets                int64 // the P bit, whether or not the count was read
	// padUnread: some packet's padding count was not read (Packet.PadUnread), so the
	// stream is SRTP and none of its counts is a count: padding is folded into payload
	// (unpad) and padding_bytes and padding_packets cannot be measured.
	padUnread bool
	// padCut: some padded packet had its count cut by the snap length (Packet.PadCut): its
	// padding is in the payload and, unknown, leaves padding_bytes and padding_packets
	// unmeasured too. Other packets' counts are still read: the stream need not be SRTP.
	padCut          bool
	markers         int64
	firstAt, lastAt int64
	// mediaAt is the arrival of its first packet that is not padding only (a bandwidth
	// probe): where its direction's active time begins (Tracker.Direction), as its series
	// does. 0 until one comes. mediaLastAt is the arrival of its last such packet: where
	// the active time ends, so that keep-alives of padding after the media do not stretch it.
	mediaAt, mediaLastAt int64

	wire WireTotals // per stream, summed over its messages

	steps  continuity
	shape  eventShape // of the packets of the stream's first payload type
	frames videoShape // of the packets before the timing decision
	seq    seqStats
	series series
	ext    extDetector
	rtx    rtxMatcher

	// Over TCP: the losses seen where the connection gave up no byte since the stream's
	// packet before (DroppedBeforeTCP), and that packet's transport.StreamPos.Gaps.
	tcpDropped int64
	tcpGaps    uint32

	// Timing (timing.go): packets are buffered until the clock rate and abs-send-time are
	// decided.
	tsUn           Unwrapper
	decided        bool
	clock          int
	clockInferred  bool
	early          []early
	earlyDups      []earlyDup // duplicates among them, for jitter
	earlyNext      int        // how many early packets settled waits for before it looks again
	lateAt, lateTS int64      // first packet after an undecidable buffer, for late inference
	jit            Jitter
	delay          delayStats
	held           heldPacket // the packet seqStats holds on probation, for its timing
	timeSteps      uint32     // Packet.TimeSteps of the stream's last packet
	// The last media packet's unwrapped timestamp and arrival, for tsStep.
	tsPrev, tsPrevAt int64
	tsPrevOK         bool
	// clockPT is the media payload type the timing's clock is for; after a change to a
	// type of another clock rate (switchClock), baseClock is the stream's own (its first
	// type's), which the report gives.
	clockPT   uint8
	switched  bool
	baseClock int

	authTag int // SRTP authentication tag length (SetAuthTag), 0 when not known

	// The payload type of the last packet and whether it carries media (media).
	lastPT    uint8
	lastMedia bool
	ptSeen    bool
}

func newStream(t *Tracker, p Path, ssrc uint32, snd *sender, tw *twccState) *Stream {
	return &Stream{t: t, path: p, ssrc: ssrc, snd: snd, seq: newSeqStats(), ext: extDetector{tw: tw},
		tsUn: Unwrapper{Bits: 32}, delay: newDelayStats(t.budget, t.span)}
}

// Path is where the stream travelled.
func (s *Stream) Path() Path { return s.path }

// SSRC is the stream's synchronization source.
func (s *Stream) SSRC() uint32 { return s.ssrc }

// FirstAt is the capture time of the stream's first packet.
func (s *Stream) FirstAt() int64 { return s.firstAt }

// SeriesStart is the start (ns, capture time) of the first second of the stream's own
// series (Summary's bitrate.series_kbps), on its direction's 1-second grid; the stream's
// first packet when it has no series (probes only, on a direction with no media packet).
func (s *Stream) SeriesStart() int64 {
	if !s.series.started {
		return s.firstAt
	}
	return s.series.origin + s.series.base*1e9
}

// IsRTX reports whether the stream is an RFC 4588 retransmission stream: elected or
// signalled for its media stream, or named RTX by signalling that could not say for which.
func (s *Stream) IsRTX() bool { return s.rtx.of != nil || s.rtx.named }

// RTXOf is the media stream an RTX stream retransmits, or nil.
func (s *Stream) RTXOf() *Stream { return s.rtx.of }

// RTXDisputed is, for an RTX stream linked by signalling (SDP), the other stream its OSNs
// elected (rtxmatcher.go); nil when they agree or decided nothing.
func (s *Stream) RTXDisputed() *Stream { return s.rtx.disputed }

// IsMedia reports whether the stream carries original media (audio, video or unknown, not
// RTX).
func (s *Stream) IsMedia() bool { return !s.IsRTX() }

// auxiliary says whether the stream, not RTX, is of a kind its direction's media figures
// leave out (DESIGN: "the streams of a direction are its audio, video and RTX streams"):
// RFC 4733 events, comfort noise or FEC, each on an SSRC of its own. Their packets are no
// media packets of the direction, their payload no media payload (overhead, other), their
// sequence numbers no part of its loss: a tester's direction read "4 of 200 media packets
// lost" where 4 of its 180 video packets were, 20 being ulpfec; another, 40 of 1,020 where
// 20 were a DTMF stream's.
func (s *Stream) auxiliary() bool { return s.IsMedia() && s.auxKind() != "" }

// qualifies is the stream rule: at least MinPackets packets, with continuing sequence
// numbers and a stable payload type (continuity.continuing); or an RTX stream elected by
// its OSNs (rtxmatcher.go, at least rtxMinVotes of them) whose media stream qualifies: its
// own numbers say nothing (pion's jump between sparse repairs), and a handful of repairs
// in a call with little loss still count.
func (s *Stream) qualifies() bool {
	if s.evicted {
		return false
	}
	if m := s.rtx.of; m != nil {
		return !m.evicted && m.byRule()
	}
	return s.byRule()
}

func (s *Stream) byRule() bool {
	return s.packets >= int64(s.t.cfg.MinPackets) && s.steps.continuing()
}

// add accounts one packet of the stream: h is its header, payloadLen its payload on the
// wire (more than h.PayloadLen when the snap length cut it). Arrival is m.Delivered.
func (s *Stream) add(pk *Packet) {
	at := pk.Delivered
	if pk.PadUnread && !s.padUnread {
		s.unpad()
	}
	s.padCut = s.padCut || pk.PadCut
	if s.padUnread && pk.PadLen > 0 {
		// A count read before the stream showed it is SRTP (no DTLS in the capture) is an
		// auth tag's byte too.
		pk.PayloadLen += pk.PadLen
		pk.PadLen = 0
	}
	if s.packets == 0 {
		s.pt, s.clockPT, s.firstAt = pk.PT, pk.PT, at
	}
	if !pk.paddingOnly() {
		if s.mediaAt == 0 {
			s.mediaAt = at
		}
		s.mediaLastAt = max(s.mediaLastAt, at)
	}
	if !s.series.started {
		anchors := !pk.paddingOnly() && !s.t.hints.namesRTX(s, pk.PT) // a media packet
		if o, ok := s.t.directionOrigin(s.path, at, anchors); ok {
			s.series.start(o, at, &s.t.seriesLeft)
		}
	}
	outage := false // a very large jump ahead whose numbers were lost: looked at before count
	if d := pk.Seq - uint16(s.seq.highest); d >= maxDropout && d < 1<<15 {
		outage = s.outage(pk, at, d)
	}
	s.steps.add(pk.Seq, pk.PT, at, !pk.TimeUnknown) // steps, for the stream rule
	s.count(pk, at)                                 // counters
	sec := s.series.index(at)                       // its second in the series
	ev := s.seq.add(pk.Seq, outage)                 // RFC 3550 A.1: duplicate, losses seen
	s.series.loss(sec, ev)                          // losses in their second
	s.account(pk, sec, ev.dup)                      // wire bytes
	if !s.shape.other && pk.PT == s.pt {
		s.shape.add(pk) // RFC 4733 events on an SSRC of their own
	}
	if !s.decided {
		s.frames.add(pk.Timestamp, pk.PayloadLen) // video frames: a 90 kHz clock
	}
	if pk.TCP {
		s.tcpLoss(ev, pk.Gaps) // losses where TCP lost nothing: dropped before it
	}
	if ev.heldDup || ev.heldFilled {
		s.lateHeld(ev.heldDup, ev.heldExt) // the packet held before this one was late, no restart
	}
	var ast astValues
	if pk.Extension {
		s.ext.observe(pk.ExtProfile, pk.ExtBody, &ast) // RFC 8285 ids, abs-send-time candidates, transport-cc
	}
	// A repeat of a number seen votes nothing, nor repairs anything: a duplicate, or a
	// number far behind the highest, held on probation (pion resends an RTX packet under
	// the number it gave it when it buffered the original, every 100 ms while the receiver
	// asks, so that its RTX numbers go back by hundreds: its late copies voted against
	// the stream their first copies had matched). A jump far ahead votes, having skipped
	// numbers: pion's RTX numbers, when repairs are rare, jump by the thousands of packets
	// buffered between them (at a jump of 3,000, 11 repairs of 12 were taken for probes).
	if pk.HasOSN && !ev.dup && (!ev.held || ev.ahead) && (!s.rtx.decided || s.rtx.of != nil) {
		s.rtxOSN(pk.OSN, pk.Timestamp, at, pk.Padded, pk.Encrypted, ev.lost >= rtxSkip || ev.held, ev.filled) // RTX vote, or a loss its RTX stream recovered
	}
	if s.rtx.of == nil {
		if ev.filled || ev.dup { // for an RTX stream matched by timestamps
			s.rtx.recent.late(pk.Timestamp, s.seq.extOf(pk.Seq))
		} else {
			s.rtx.recent.add(pk.Timestamp, s.seq.extOf(pk.Seq))
		}
	}
	if pk.TimeSteps != s.timeSteps {
		// The capture's clock stepped since the stream's last packet: the interval to this
		// one is not known, so jitter and delay take it as a new reference.
		s.timeSteps = pk.TimeSteps
		s.jit.rebase()
		s.delay.restep()
	}
	hd := holdOf(pk)
	media := s.media(pk.PT) && !s.eventShaped(pk)
	if media && pk.PT != s.clockPT {
		// Looked at once per change of the media type, not per packet: after a codec
		// change every packet's type differs from the stream's first, and media's cache of
		// one type would be asked for both in turn.
		if pk.PT != s.pt && (!s.media(s.pt) || s.shape.events()) {
			s.mediaAfterOpener(pk.PT)
		}
		s.switchClock(pk.PT)
	}
	if ev.held { // on probation: timed only if the next packet confirms a restart
		s.held = heldPacket{ok: true, at: at, ts: pk.Timestamp, seq: pk.Seq, media: media, hd: hd, ext: pk.Extension, ast: ast, sec: sec,
			len: pk.Len, headerLen: int64(pk.HeaderLen), payloadLen: int64(pk.PayloadLen), padLen: int64(pk.PadLen)}
		return
	}
	if ev.restart && s.held.ok {
		s.rebase() // the timestamps restart with the numbers
		h := &s.held
		s.timing(h.at, s.tsUn.Unwrap(h.ts), h.seq, h.media, h.hd, h.ext, &h.ast, h.sec)
	}
	s.held.ok = false // a stray that failed probation has no timing either
	if pk.TimeUnknown {
		// A corrupt time stamp, replaced with the packet before's: timed there, it made a
		// perfectly paced stream's delay baseline, p50 20 ms above it, and a jitter of 2.4 ms.
		return
	}
	if pk.maybePaddingOnly() {
		// Maybe padding only: a bandwidth probe, whose timestamp (libwebrtc's first is 0,
		// the next ones an old frame's) says nothing of when it was sent. It takes no part
		// in jitter, delay or lateness, so that a stream of probes has none (null) rather
		// than an absurd one; over SRTP a padded packet's count is unreadable (PadUnread)
		// and it may be such a probe too.
		return
	}
	ts := s.tsUn.Unwrap(pk.Timestamp)
	if ev.dup {
		s.duplicateTiming(at, ts, media)
		return
	}
	if media {
		s.tsStep(at, ts, !ev.filled && !ev.below)
	}
	s.timing(at, ts, pk.Seq, media, hd, pk.Extension, &ast, sec)
}

// outage says whether pk, at, a very large jump (d numbers) ahead of the highest sequence
// number (RFC 3550 A.1: MAX_DROPOUT or more), carries the stream on after an outage rather
// than restarting its numbers: its RTP timestamp moved on from the media packet before's
// by the time that passed (within a quarter, and 200 ms), and its number by about as many
// packets as the stream sent in that time (within a factor of two). A sender that
// restarts draws another random timestamp (RFC 3550 5.1); one whose network failed for a
// minute went on numbering and timestamping what it could not send: A.1's probation took
// such a jump for a restart, and the packets lost in it for none (tshark counts them).
func (s *Stream) outage(pk *Packet, at int64, d uint16) bool {
	if s.clock <= 0 || !s.tsPrevOK || s.packets < 10 {
		return false
	}
	gap, span := at-s.tsPrevAt, s.lastAt-s.firstAt
	if gap <= 0 || span <= 0 {
		return false
	}
	moved := tsToNs(int64(int32(pk.Timestamp-uint32(s.tsPrev))), s.clock)
	if moved <= 0 || max(moved-gap, gap-moved) > gap/4+200e6 {
		return false
	}
	sent := float64(s.packets) / float64(span) * float64(gap) // at the stream's rate so far
	return float64(d) >= sent/2 && float64(d) <= sent*2
}

// tcpLoss follows the losses of a stream over TCP that TCP cannot have caused (DESIGN,
// "Drops before TCP"): a gap in the sequence numbers between two packets with every byte
// of the connection between them in the capture (no capture gap, nothing skipped to
// resynchronise: the same gaps count) is packets the sender or the relay feeding the
// connection dropped before TCP. A gap across bytes the capture lost may be either, and is
// not counted. A late packet that fills a gap takes one back.
func (s *Stream) tcpLoss(ev seqEvent, gaps uint32) {
	if ev.lost > 0 && gaps == s.tcpGaps { // a first packet shows no loss: tcpGaps is its predecessor's
		s.tcpDropped += ev.lost
	}
	if ev.filled && s.tcpDropped > 0 {
		s.tcpDropped--
	}
	s.tcpGaps = gaps
}

// DroppedBeforeTCP is how many of the stream's lost packets (RFC 3550's lost, at most)
// never entered the TCP connection that carried it (tcpLoss).
func (s *Stream) DroppedBeforeTCP() int64 { return min(s.tcpDropped, s.seq.lost()) }

// count updates the counters of every packet.
func (s *Stream) count(pk *Packet, at int64) {
	if at > s.lastAt || s.packets == 0 {
		s.lastAt = at
	}
	if at < s.firstAt {
		s.firstAt = at
	}
	s.packets++
	s.payloadBytes += int64(pk.PayloadLen)
	s.headerBytes += int64(pk.HeaderLen)
	s.paddingBytes += int64(pk.PadLen)
	if pk.PayloadLen == 0 && pk.PadLen > 0 {
		s.paddingPackets++
	}
	if pk.Padded {
		s.paddedPackets++
	}
	if pk.Marker {
		s.markers++
	}
}

// account adds the message's wire bytes to the stream's totals and to its second sec: a
// duplicate counts whole as duplicate bytes, other packets by header, padding and payload.
func (s *Stream) account(pk *Packet, sec int, dup bool) {
	padLen := int64(pk.PadLen)
	w := &s.wire
	w.addPacket(pk)
	if dup {
		w.DuplicateBytes += pk.Len
		w.DuplicatePackets++
	} else {
		w.RTPHeaderBytes += int64(pk.HeaderLen)
		w.PaddingBytes += padLen
		w.MediaPayloadBytes += int64(pk.PayloadLen)
		w.Packets++
	}
	wsec := sec
	if pk.Complete < pk.Delivered {
		// Over TCP, held for earlier bytes (or at the sender, for the ACK): its frames were
		// on the wire when its own bytes came, the wire series' second (h131).
		wsec = s.series.index(pk.Complete)
	}
	if c := s.series.at(wsec); c != nil {
		c.wire += pk.Wire.Total
	}
	if c := s.series.at(sec); c != nil {
		if !dup {
			c.payload += int64(pk.PayloadLen)
			c.padding += padLen
			c.packets++
		}
	}
}

// unpad makes the stream's padding unreadable from its first packet on: a stream whose
// padding count could not be read once is SRTP (a sender in the clear never writes a count
// of 0 or beyond its payload, RFC 3550 5.1), where every count is a byte of the auth tag
// (RFC 3711, 3.1). The padding its packets were taken to carry so far counts as payload
// again, in the totals, the wire accounting, the held packet and the series alike.
func (s *Stream) unpad() {
	s.padUnread = true
	s.payloadBytes += s.paddingBytes
	s.paddingBytes = 0
	s.wire.MediaPayloadBytes += s.wire.PaddingBytes
	s.wire.PaddingBytes = 0
	s.held.payloadLen += s.held.padLen
	s.held.padLen = 0
	for i := range s.series.secs {
		c := &s.series.secs[i]
		c.payload += c.padding
		c.padding = 0
	}
}

// lateHeld accounts the packet held on probation that turned out to be late, not a
// restart: a duplicate moves its bytes, accounted as an original's when it came, to the
// duplicates; a gap it filled takes a loss back in the series. Either way it is timed now.
func (s *Stream) lateHeld(dup bool, ext int64) {
	h := &s.held
	if !h.ok {
		return
	}
	h.ok = false
	if dup {
		w := &s.wire
		w.RTPHeaderBytes -= h.headerLen
		w.PaddingBytes -= h.padLen
		w.MediaPayloadBytes -= h.payloadLen
		w.Packets--
		w.DuplicateBytes += h.len
		w.DuplicatePackets++
		if c := s.series.at(h.sec); c != nil {
			c.payload -= h.payloadLen
			c.packets--
			c.padding -= h.padLen
		}
		s.duplicateTiming(h.at, s.tsUn.Unwrap(h.ts), h.media)
		return
	}
	s.series.loss(h.sec, seqEvent{filled: true, ext: ext})
	s.timing(h.at, s.tsUn.Unwrap(h.ts), h.seq, h.media, h.hd, h.ext, &h.ast, h.sec)
}
