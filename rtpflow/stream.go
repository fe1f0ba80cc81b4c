package rtpflow

import (
	"encoding/binary"

	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

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
	markers                      int64
	firstAt, lastAt              int64
	wire                         WireTotals // per stream, summed over its messages

	steps  continuity
	seq    seqStats
	series series
	ext    extDetector
	rtx    rtxMatcher

	// Timing (timing.go): packets are buffered until the clock rate and abs-send-time are
	// decided.
	tsUn           Unwrapper
	decided        bool
	clock          int
	clockInferred  bool
	early          []early
	lateAt, lateTS int64 // first packet after an undecidable buffer, for late inference
	jit            Jitter
	delay          delayStats
}

func newStream(t *Tracker, p Path, ssrc uint32, snd *sender, tw *twccState) *Stream {
	return &Stream{t: t, path: p, ssrc: ssrc, snd: snd, seq: newSeqStats(), ext: extDetector{tw: tw},
		tsUn: Unwrapper{Bits: 32}, delay: newDelayStats(t.budget, t.span)}
}

// Path is where the stream travelled.
func (s *Stream) Path() Path { return s.path }

// SSRC is the stream's synchronization source.
func (s *Stream) SSRC() uint32 { return s.ssrc }

// IsRTX reports whether the stream is an RFC 4588 retransmission stream.
func (s *Stream) IsRTX() bool { return s.rtx.of != nil }

// RTXOf is the media stream an RTX stream retransmits, or nil.
func (s *Stream) RTXOf() *Stream { return s.rtx.of }

// IsMedia reports whether the stream carries original media (audio, video or unknown, not
// RTX).
func (s *Stream) IsMedia() bool { return s.rtx.of == nil }

// qualifies is the stream rule: at least MinPackets packets, with continuing sequence
// numbers and a stable payload type (continuity.continuing).
func (s *Stream) qualifies() bool {
	return !s.evicted && s.packets >= int64(s.t.cfg.MinPackets) && s.steps.continuing()
}

// add accounts one packet of the stream: h is its header, payloadLen its payload on the
// wire (more than h.PayloadLen when the snap length cut it). Arrival is m.Delivered.
func (s *Stream) add(h *wire.RTP, payloadLen int, m *transport.Message) {
	at := m.Delivered
	if s.packets == 0 {
		s.pt, s.firstAt = h.PayloadType, at
		s.series.start(s.t.directionOrigin(s.path, at), at)
	}
	s.steps.add(h.SequenceNumber, h.PayloadType, at) // steps, for the stream rule
	s.count(h, payloadLen, at)                       // counters
	sec := s.series.index(at)                        // its second in the series
	ev := s.seq.add(h.SequenceNumber)                // RFC 3550 A.1: duplicate, losses seen
	s.series.loss(sec, ev)                           // losses in their second
	s.account(h, payloadLen, m, sec, ev.dup)         // wire bytes
	var ast astValues
	if h.Extension {
		s.ext.observe(h, &ast) // RFC 8285 ids, abs-send-time candidates, transport-cc
	}
	s.rtxPayload(m.Payload[h.HeaderLen:]) // RTX vote, or a loss its RTX stream recovered
	ts := s.tsUn.Unwrap(h.Timestamp)
	hol := m.Retransmitted || m.Delivered > m.Complete
	if s.timed() {
		s.sample(at, ts, ast.v[0], ast.mask != 0, hol, sec) // jitter, delay, lateness
	} else {
		s.untimed(at, ts, hol, h.Extension, &ast, sec) // until the clock rate is known
	}
}

// count updates the counters of every packet.
func (s *Stream) count(h *wire.RTP, payloadLen int, at int64) {
	if at > s.lastAt || s.packets == 0 {
		s.lastAt = at
	}
	if at < s.firstAt {
		s.firstAt = at
	}
	padLen := h.PaddingLen()
	s.packets++
	s.payloadBytes += int64(payloadLen)
	s.headerBytes += int64(h.HeaderLen)
	s.paddingBytes += int64(padLen)
	if payloadLen == 0 && padLen > 0 {
		s.paddingPackets++
	}
	if h.Marker {
		s.markers++
	}
}

// account adds the message's wire bytes to the stream's totals and to its second sec: a
// duplicate counts whole as duplicate bytes, other packets by header, padding and payload.
func (s *Stream) account(h *wire.RTP, payloadLen int, m *transport.Message, sec int, dup bool) {
	padLen := int64(h.PaddingLen())
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
		w.PaddingBytes += padLen
		w.MediaPayloadBytes += int64(payloadLen)
		w.Packets++
	}
	if c := s.series.at(sec); c != nil {
		c.wire += m.Wire.Total
		c.retrans += m.Wire.Retransmitted
		if !dup {
			c.payload += int64(payloadLen)
			c.padding += padLen
		}
	}
}

// rtxPayload takes the first two payload bytes of a payload-bearing packet, which are the
// original sequence number if the stream is RTX (RFC 4588, 4): a vote while the stream is
// undecided, and once it is found to be RTX, a recovered packet of its media stream. The
// payload is what was captured: a snapped packet may hold fewer bytes than it had.
func (s *Stream) rtxPayload(payload []byte) {
	// A media stream, once decided, has nothing to do here: the common case, kept inline.
	if len(payload) >= 2 && (!s.rtx.decided || s.rtx.of != nil) {
		s.rtxOSN(payload)
	}
}

func (s *Stream) rtxOSN(payload []byte) {
	osn := binary.BigEndian.Uint16(payload)
	switch {
	case s.rtx.voting():
		if s.rtx.vote(osn, s.snd.match(s, osn)) {
			s.decideRTX(false)
		}
	case s.rtx.of != nil:
		s.rtx.of.seq.markRTX(osn)
	}
}

// decideRTX takes the RTX decision (rtxMatcher.decide); an elected media stream learns
// that it has an RTX stream and which of its losses the votes already recovered.
func (s *Stream) decideRTX(final bool) {
	best := s.rtx.decide(final)
	if best == nil {
		return
	}
	s.rtx.of = best
	best.rtx.hasRTX = true
	s.rtx.votedFor(best, best.seq.markRTX)
}
