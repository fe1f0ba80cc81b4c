package rtpflow

import (
	"encoding/binary"
	"slices"

	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

const (
	// maxStep is the largest sequence step between consecutive packets that still counts as
	// continuing (a burst of up to maxStep−1 losses, or reordering within it).
	maxStep = 100
	// earlyMax bounds the packets buffered until the clock rate and abs-send-time are
	// decided; the decision is taken earlier once the buffer spans earlySpan.
	earlyMax  = 256
	earlySpan = int64(1e9)
	// rtxVotes is how many payload-bearing packets decide whether a stream is RTX.
	rtxVotes = 16
	// rtxBehind and rtxAhead delimit the original sequence numbers, relative to the media
	// stream's highest, that an RTX packet may carry.
	rtxBehind = 2048
	rtxAhead  = 16
)

// Stream is one SSRC seen in one direction of one leg (one Path).
type Stream struct {
	t    *Tracker
	path Path
	// origin is the first media packet of the stream's call direction (Path.Src to
	// Path.Dst): its series' 1-second grid, shared by every stream of the direction.
	origin int64
	ssrc   uint32
	snd    *sender
	tw     *twccState

	// qualification: steps between consecutive packets in arrival order
	pt, prevPT                    uint8
	prevSeq                       uint16
	pairs, fwd, cont, ptChanges   int64
	repeats                       int64 // steps that repeat the previous sequence number
	evicted                       bool
	packets                       int64
	payloadBytes, headerBytes     int64
	paddingBytes, paddingPackets  int64
	markers                       int64
	wire                          WireTotals // per stream, summed over its messages
	firstAt, lastAt, prevAt, gap  int64
	seqUn, tsUn                   Unwrapper
	win                           *seqWindow
	lowest, highest               int64
	distinct, duplicates, reorder int64
	recovered                     int64
	hasRTX                        bool

	// extensions
	extIDs  [4]uint64 // bitmap of ids seen
	twoByte bool
	astCand [maxASTCandidates]uint8
	nCand   int
	astID   uint8 // 0: none
	astUn   Unwrapper

	// timing: buffered until the clock rate and abs-send-time are decided
	decided        bool
	clock          int
	clockInferred  bool
	early          []early
	lateAt, lateTS int64 // first packet after an undecidable buffer, for late inference
	jit            Jitter
	sampled        bool
	at0, send0     int64
	delay, hol     delayDist

	// 1-second series on the direction's grid (origin)
	secBase      int64
	secs         []second
	seriesBroken bool
	dOpen        int
	dbuf         []int64
	dStride      int
	dCount       int

	// RTX
	rtxOf      *Stream
	rtxDecided bool
	nVotes     int
	votes      [rtxVotes]*Stream
	voteOSN    [rtxVotes]uint16
}

// early is one packet buffered until the stream's timing decisions.
type early struct {
	at      int64
	ts      int64
	hol     bool
	astMask uint8
	ast     [maxASTCandidates]uint32
}

func newStream(t *Tracker, p Path, ssrc uint32) *Stream {
	return &Stream{t: t, path: p, ssrc: ssrc, seqUn: Unwrapper{Bits: 16},
		tsUn: Unwrapper{Bits: 32}, astUn: Unwrapper{Bits: 24}, dOpen: -1,
		delay: newDelayDist(t.span), hol: newDelayDist(t.span)}
}

// Path is where the stream travelled.
func (s *Stream) Path() Path { return s.path }

// SSRC is the stream's synchronization source.
func (s *Stream) SSRC() uint32 { return s.ssrc }

// IsRTX reports whether the stream is an RFC 4588 retransmission stream.
func (s *Stream) IsRTX() bool { return s.rtxOf != nil }

// RTXOf is the media stream an RTX stream retransmits, or nil.
func (s *Stream) RTXOf() *Stream { return s.rtxOf }

// IsMedia reports whether the stream carries original media (audio, video or unknown, not
// RTX).
func (s *Stream) IsMedia() bool { return s.rtxOf == nil }

// qualifies is the stream rule: at least MinPackets packets; at least 80% of the steps
// between consecutive packets continuing (a sequence step within ±maxStep) and at least
// half of them forward (a stream whose sequence number never moves is not RTP); and the
// payload type stable (it changes on at most 20% of the steps, which leaves room for
// DTMF events or comfort noise on an audio SSRC). Random payloads put a new SSRC on
// nearly every packet, and non-RTP traffic that keeps its bytes 8-11 fixed fails the
// sequence steps.
func (s *Stream) qualifies() bool {
	if s.evicted || s.packets < int64(s.t.cfg.MinPackets) {
		return false
	}
	if s.pairs == 0 {
		return true
	}
	return s.cont*5 >= s.pairs*4 && s.fwd*2 >= s.pairs-s.repeats && s.ptChanges*5 <= s.pairs
}

func (s *Stream) add(h *wire.RTP, payloadLen int, m *transport.Message) {
	at := m.Delivered
	if s.packets == 0 {
		s.pt, s.firstAt = h.PayloadType, at
		s.origin = s.t.directionOrigin(s.path, at)
		s.secBase = floorDiv(at-s.origin, 1e9)
	} else {
		s.pairs++
		switch d := int16(h.SequenceNumber - s.prevSeq); {
		case d >= 1 && d <= maxStep:
			s.fwd++
			s.cont++
		case d == 0:
			// An exact repeat (a duplicate the network or the capture made) says nothing
			// about whether the stream moves: it is neither forward nor backward.
			s.cont++
			s.repeats++
		case d > -maxStep && d < 0:
			s.cont++
		}
		if h.PayloadType != s.prevPT {
			s.ptChanges++
		}
		if g := at - s.prevAt; g > s.gap {
			s.gap = g
		}
	}
	s.prevSeq, s.prevPT, s.prevAt = h.SequenceNumber, h.PayloadType, at
	if at > s.lastAt || s.packets == 0 {
		s.lastAt = at
	}
	if at < s.firstAt {
		s.firstAt = at
	}
	s.packets++
	padLen := h.PaddingLen()
	s.payloadBytes += int64(payloadLen)
	s.headerBytes += int64(h.HeaderLen)
	s.paddingBytes += int64(padLen)
	if payloadLen == 0 && padLen > 0 {
		s.paddingPackets++
	}
	if h.Marker {
		s.markers++
	}

	sec := s.second(at)
	dup := s.trackSeq(h.SequenceNumber, sec)

	w := &s.wire
	w.Messages++
	w.Total += m.Wire.Total
	w.Headers += m.Wire.Headers
	w.Framing += m.Wire.Framing
	w.Retransmitted += m.Wire.Retransmitted
	w.RTPBytes += m.Len()
	if dup {
		w.DuplicateBytes += m.Len()
		w.DuplicatePackets++
	} else {
		w.RTPHeaderBytes += int64(h.HeaderLen)
		w.PaddingBytes += int64(padLen)
		w.MediaPayloadBytes += int64(payloadLen)
		w.Packets++
	}
	if sec != nil {
		sec.wire += m.Wire.Total
		sec.retrans += m.Wire.Retransmitted
		if !dup {
			sec.payload += int64(payloadLen)
			sec.padding += int64(padLen)
		}
	}

	// Extensions.
	var astv [maxASTCandidates]uint32
	var astMask uint8
	if h.Extension {
		if it, ok := h.Elements(); ok {
			if it.TwoByte() {
				s.twoByte = true
			}
			for {
				id, data, ok := it.Next()
				if !ok {
					break
				}
				s.extIDs[id>>6] |= 1 << (id & 63)
				switch len(data) {
				case 3:
					v := uint32(data[0])<<16 | uint32(data[1])<<8 | uint32(data[2])
					if s.decided {
						if id == s.astID && s.astID != 0 {
							astv[0], astMask = v, 1
						}
						continue
					}
					if j := s.candidate(id); j >= 0 {
						astMask |= 1 << j
						astv[j] = v
					}
				case 2:
					s.tw.observe(id, binary.BigEndian.Uint16(data))
				}
			}
		}
	}

	// RTX: the payload of an RTX packet starts with the original sequence number.
	payload := m.Payload[h.HeaderLen:]
	if len(payload) >= 2 { // the captured bytes: a snapped packet may hold fewer than payloadLen
		osn := binary.BigEndian.Uint16(payload)
		if !s.rtxDecided && s.nVotes < rtxVotes {
			s.voteOSN[s.nVotes] = osn
			s.votes[s.nVotes] = s.snd.match(s, osn)
			s.nVotes++
			if s.nVotes == rtxVotes {
				s.decideRTX(false)
			}
		} else if s.rtxOf != nil {
			s.rtxOf.markRTX(osn)
		}
	}

	// Timing.
	ts := s.tsUn.Unwrap(h.Timestamp)
	hol := m.Retransmitted || m.Delivered > m.Complete
	if !s.decided && s.packets == 1 && !h.Extension {
		if _, ok := static(h.PayloadType); ok {
			s.decide() // a static payload type without extensions: nothing to wait for
		}
	}
	if s.decided {
		if s.clock == 0 && s.astID == 0 {
			s.lateInfer(at, ts)
		}
		s.sample(at, ts, astv[0], astMask != 0, hol)
		return
	}
	if s.early == nil {
		s.early = make([]early, 0, 16)
	}
	s.early = append(s.early, early{at: at, ts: ts, hol: hol, astMask: astMask, ast: astv})
	if n := len(s.early); n >= earlyMax || (n >= 8 && at-s.early[0].at >= earlySpan) {
		s.decide()
	}
}

// candidate returns the index of a 3-byte element id among the abs-send-time candidates,
// adding it if there is room.
func (s *Stream) candidate(id uint8) int {
	for j := 0; j < s.nCand; j++ {
		if s.astCand[j] == id {
			return j
		}
	}
	if s.nCand < maxASTCandidates {
		s.astCand[s.nCand] = id
		s.nCand++
		return s.nCand - 1
	}
	return -1
}

// second returns the series record for arrival time at, extending the series, or nil when
// at is outside it: beyond maxSeriesSeconds, or after a break (a jump of more than
// seriesBreakNs past the last second, as in files merged from captures taken far apart).
// A time before the stream's first second (unsorted input) is put in its first second.
func (s *Stream) second(at int64) *second {
	i := s.secIndex(at)
	if i < 0 {
		return nil
	}
	return &s.secs[i]
}

func (s *Stream) secIndex(at int64) int {
	if s.seriesBroken {
		return -1
	}
	i := floorDiv(at-s.origin, 1e9) - s.secBase
	if i < 0 {
		i = 0
	}
	if i < int64(len(s.secs)) {
		return int(i)
	}
	if len(s.secs) > 0 && i-int64(len(s.secs)) > seriesBreakSeconds {
		s.seriesBroken = true
		return -1
	}
	if i >= maxSeriesSeconds {
		return -1
	}
	n := len(s.secs)
	s.secs = slices.Grow(s.secs, int(i)+1-n)[:i+1]
	clear(s.secs[n:])
	return int(i)
}

// trackSeq does the RFC 3550 A.1 bookkeeping for one packet and reports whether it is a
// duplicate. Losses are put in the series at the second a gap is seen, and taken back
// from the latest second with losses when a late packet fills the gap.
func (s *Stream) trackSeq(seq uint16, sec *second) (dup bool) {
	ext := s.seqUn.Unwrap(uint32(seq))
	if s.distinct == 0 && s.duplicates == 0 {
		s.lowest, s.highest = ext, ext
		s.distinct = 1
		return false
	}
	if s.win == nil {
		s.win = newSeqWindow()
		s.win.testSet(s.highest)
	}
	switch {
	case ext > s.highest:
		if gap := ext - s.highest - 1; gap > 0 && sec != nil {
			sec.lost += gap
		}
		s.win.advance(s.highest, ext)
		s.highest = ext
		s.win.testSet(ext)
		s.distinct++
		return false
	case ext > s.highest-windowBits:
		if s.win.testSet(ext) {
			s.duplicates++
			return true
		}
		if s.hasRTX && s.win.rtxClear(ext) {
			s.recovered-- // the original came after all
		}
	}
	s.distinct++
	s.reorder++
	if ext < s.lowest {
		if sec != nil {
			sec.lost += s.lowest - ext - 1
		}
		s.lowest = ext
	} else {
		s.unlose()
	}
	return false
}

// unlose takes one loss back from the latest second that has one (within the last minute).
func (s *Stream) unlose() {
	for i := len(s.secs) - 1; i >= 0 && i >= len(s.secs)-60; i-- {
		if s.secs[i].lost > 0 {
			s.secs[i].lost--
			return
		}
	}
}

// lost is expected − distinct received, never negative.
func (s *Stream) lost() int64 {
	return max(0, s.expected()-s.distinct)
}

func (s *Stream) expected() int64 {
	if s.packets == 0 {
		return 0
	}
	return s.highest - s.lowest + 1
}
