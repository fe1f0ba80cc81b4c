package rtpflow

import (
	"fmt"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// WireTotals are sums over RTP messages, split so that the caller can build the exact
// overhead breakdown:
//
//	Total    = Headers + Framing + Retransmitted + RTPBytes   (as the producer accounts m.Wire)
//	RTPBytes = MediaPayloadBytes + RTXPayloadBytes + AuxPayloadBytes + RTPHeaderBytes + PaddingBytes + DuplicateBytes + AuthTagBytes
//
// Payload, header and padding bytes are those of non-duplicate packets; a duplicate (a
// sequence number already received) counts whole in DuplicateBytes.
type WireTotals struct {
	Carried
	Packets           int64 // non-duplicate packets
	MediaPayloadBytes int64 // payload of non-duplicate packets of media streams
	RTXPayloadBytes   int64 // payload of non-duplicate packets of RTX streams
	AuxPayloadBytes   int64 // payload of non-duplicate packets of auxiliary streams (Stream.auxiliary)
	RTPHeaderBytes    int64
	PaddingBytes      int64
	DuplicatePackets  int64
	DuplicateBytes    int64
	// AuthTagBytes are the SRTP authentication tags of the media packets, where their
	// length is known (Stream.SetAuthTag): on the wire, in the payload, no media.
	AuthTagBytes int64
}

// Carried sums what carried RTP messages on the wire, the first line of WireTotals' split.
type Carried struct {
	Messages                               int64
	Total, Headers, Framing, Retransmitted int64 // sums of m.Wire
	RTPBytes                               int64 // sum of m.Len(): the RTP packets' lengths on the wire
}

func (c *Carried) add(o Carried) {
	c.Messages += o.Messages
	c.Total += o.Total
	c.Headers += o.Headers
	c.Framing += o.Framing
	c.Retransmitted += o.Retransmitted
	c.RTPBytes += o.RTPBytes
}

// addPacket adds the message of pk.
func (c *Carried) addPacket(pk *Packet) {
	c.Messages++
	c.Total += pk.Wire.Total
	c.Headers += pk.Wire.Headers
	c.Framing += pk.Wire.Framing
	c.Retransmitted += pk.Wire.Retransmitted
	c.RTPBytes += pk.Len
}

func (w *WireTotals) add(o WireTotals) {
	w.Carried.add(o.Carried)
	w.Packets += o.Packets
	w.MediaPayloadBytes += o.MediaPayloadBytes
	w.RTXPayloadBytes += o.RTXPayloadBytes
	w.AuxPayloadBytes += o.AuxPayloadBytes
	w.RTPHeaderBytes += o.RTPHeaderBytes
	w.PaddingBytes += o.PaddingBytes
	w.DuplicatePackets += o.DuplicatePackets
	w.DuplicateBytes += o.DuplicateBytes
	w.AuthTagBytes += o.AuthTagBytes
}

// Wire returns the sums over the stream's messages.
func (s *Stream) Wire() WireTotals {
	w := s.wire
	if s.IsRTX() {
		w.RTXPayloadBytes, w.MediaPayloadBytes = w.MediaPayloadBytes, 0 // its tags are RTX's cost
		return w
	}
	media := s.untagged(w.MediaPayloadBytes, w.Packets)
	w.AuthTagBytes, w.MediaPayloadBytes = w.MediaPayloadBytes-media, media
	if s.auxiliary() {
		w.AuxPayloadBytes, w.MediaPayloadBytes = w.MediaPayloadBytes, 0
	}
	return w
}

// SetAuthTag says that every packet of the stream ends in an SRTP authentication tag of n
// bytes (RFC 3711 3.1; the DTLS-SRTP protection profile says how long, RFC 5764 4.1.2),
// which its payload length counts, as tshark does. Media payload, goodput and media bitrate
// leave the tags out; payload_bytes keeps them. Call it before Summary and Direction.
func (s *Stream) SetAuthTag(n int) { s.authTag = n }

// untagged is payload bytes of so many packets less their SRTP tags (SetAuthTag).
func (s *Stream) untagged(payload, packets int64) int64 {
	return max(payload-int64(s.authTag)*packets, 0)
}

// finish takes the decisions still pending at the end of the capture. It is idempotent.
func (s *Stream) finish() {
	if ev := s.seq.settle(); ev.dup || ev.filled {
		s.lateHeld(ev.dup, ev.ext) // the last packet was held on probation, and no restart followed
	}
	s.held.ok = false // settled above, or a stray: no timing
	s.decide()
	s.delay.flush()
	if s.eventsOnly() {
		// As where SDP names the type telephone-event (media): events have no timing.
		s.jit, s.delay = Jitter{}, newDelayStats(s.t.budget, s.t.span)
	}
	s.decideRTX(true)
}

// auxKind is the kind of a stream that carries no media of its own, by its payload type
// (payloadKind) or its events' shape: "event", "comfort_noise" or "fec"; "" for another.
func (s *Stream) auxKind() string {
	h, _ := s.t.hints.of(s)
	if k := payloadKind(s.pt, h.Codec); k != "" {
		return k
	}
	if s.eventsOnly() {
		return "event"
	}
	return ""
}

func (s *Stream) kind() string {
	if !s.IsMedia() {
		return "rtx"
	}
	if k := s.auxKind(); k != "" {
		return k
	}
	h, hinted := s.t.hints.of(s)
	if st, ok := static(s.pt); ok {
		if st.video {
			return "video"
		}
		return "audio"
	}
	if hinted && (h.Media == "audio" || h.Media == "video") {
		return h.Media
	}
	switch s.ownClock() {
	case 0:
		return "unknown"
	case 90000:
		return "video"
	}
	return "audio"
}

func ms(ns int64) float64 { return numfmt.Round(float64(ns)/1e6, 3) }

func ptr[T any](v T) *T { return &v }

// Summary reports every field of report.Stream except ID, Leg and Direction; t0 is the
// capture's first packet time (ns), for first_s and last_s. Times are delivery times
// (m.Delivered). Definitions beyond DESIGN.md:
//
//   - payload_bytes, header_bytes, padding_bytes and markers count every packet,
//     duplicates included, as packets does;
//   - bitrate.series_kbps is the payload (without padding) of non-duplicate packets per
//     second of its direction's 1-second grid, from the second holding the stream's first
//     packet (SeriesStart; the report starts it at its direction's series, alignSeries);
//     mean_kbps is the same bytes over last − first arrival, null when RateSpan
//     says the packets span too little time;
//   - an RTX stream has no jitter_ms, delay_ms or late (null): it carries its originals'
//     timestamps, sent long before (RFC 4588, 4); its rtx object counts repairs and
//     probes (rtxmatcher.go);
//   - a stream of RFC 4733 events only, known by their shape (eventsOnly), is of kind
//     event and, as where SDP names its type telephone-event, has no jitter_ms, delay_ms
//     or late: its packets repeat each event's start timestamp;
//   - jitter_ms and delay_ms are null without a clock rate (a dynamic payload type over too
//     short a time to infer one) and no abs-send-time;
//   - delay samples every packet with abs-send-time, or on RTP timestamps the first packet
//     of each frame (delayStats.frameStart), which speaks for the frame's packets:
//     delay_ms counts samples, late.packets packets, and late.pct is of the stream's packets;
//   - expected follows RFC 3550 A.1's extended numbers (highest − lowest + 1), each number
//     placed nearest to the highest so far, and its resync: a jump of 3000 or more forward,
//     or 100 or more back, confirmed by the next packet is a restart (restarts), and
//     expected is summed over the segments between restarts; an unconfirmed jump counts
//     one packet late as a duplicate or reordered if it stepped back within the numbers
//     received, else nowhere (a stray, no jitter or delay sample either); the first packet
//     after a restart does not update jitter, and the delay takes the transit before the
//     restart as the new segment's;
//   - the clock rate of a dynamic payload type is inferred once, over the first 256
//     packets or the first second, whichever comes first (or, when those came in a burst,
//     over a later steady second), and the same rate is used for jitter and delay;
//   - a payload type that SDP named for the stream's destination (Tracker.Hint) takes the
//     signalled codec name, clock rate (not inferred) and, when dynamic, kind from the
//     SDP media type; a hint that came after the clock was inferred gives the codec name
//     and kind only, and the inferred clock stays.
func (s *Stream) Summary(t0 int64) report.Stream {
	s.finish()
	out := report.Stream{
		Src:               s.path.Src.String(),
		Dst:               s.path.Dst.String(),
		SSRC:              fmt.Sprintf("0x%08x", s.ssrc),
		PayloadType:       int(s.pt),
		Kind:              s.kind(),
		ClockRateInferred: s.clockInferred,
		FirstS:            numfmt.Round(float64(s.firstAt-t0)/1e9, 6),
		LastS:             numfmt.Round(float64(s.lastAt-t0)/1e9, 6),
		Packets:           s.packets,
		PayloadBytes:      s.payloadBytes,
		HeaderBytes:       s.headerBytes,
		PaddedPackets:     s.paddedPackets,
		Markers:           s.markers,
		Expected:          s.seq.expected(),
		Duplicates:        s.seq.dups,
		Reordered:         s.seq.reordered,
		Restarts:          s.seq.restarts,
	}
	if !s.padUnread && !s.padCut {
		out.PaddingBytes, out.PaddingPackets = ptr(s.paddingBytes), ptr(s.paddingPackets)
	}
	clock := s.ownClock()
	h, hinted := s.t.hints.of(s)
	if clock == 0 && hinted && h.ClockRate > 0 {
		// Too few packets, or too bursty, to infer a clock: the signalled one is still the
		// stream's clock rate, though jitter and delay have none.
		clock, out.ClockRateInferred = h.ClockRate, false
	}
	if m := s.rtx.of; m != nil && m.clock > 0 && (clock == 0 || out.ClockRateInferred) {
		// RFC 4588: an RTX stream runs on its original's clock and carries its timestamps;
		// its own bursts of repairs and probes say nothing of the rate.
		clock, out.ClockRateInferred = m.clock, m.clockInferred
	}
	out.RTCP = s.t.rtcp.summary(s, clock)
	if hinted && h.Codec != "" {
		out.Codec = ptr(h.Codec)
	} else if st, ok := static(s.pt); ok {
		out.Codec = ptr(st.codec)
	}
	if clock > 0 {
		out.ClockRate = ptr(clock)
	}
	if s.rtx.of != nil {
		out.RTXOf = ptr(fmt.Sprintf("0x%08x", s.rtx.of.ssrc))
		by := report.RTXByOSN
		switch {
		case s.rtx.signalled:
			by = report.RTXBySDP
		case s.rtx.byTS:
			by = report.RTXByTimestamp
		}
		out.RTX = &report.RTX{MediaSSRC: *out.RTXOf, MatchedBy: by, Repairs: s.rtx.repairs,
			Probes: max(0, s.packets-s.seq.dups-s.rtx.repairs)}
	} else if s.IsMedia() {
		lost := s.seq.lost()
		out.Lost = ptr(lost)
		if e := s.seq.expected(); e > 0 {
			out.LossPct = ptr(numfmt.Round(100*float64(lost)/float64(e), 3))
		}
	}
	if s.rtx.hasRTX {
		out.RecoveredByRTX = ptr(s.seq.recovered)
	}
	// Capture times that cannot measure a rate (one time for every packet, as a pcapng of
	// Simple Packet Blocks has, or times stripped to a burst) measure no timing either: the
	// jitter of equal arrivals is the timestamps' own steps.
	timed, _ := s.RateSpan()
	if mean, mx, last, ok := s.jit.MS(); ok && s.IsMedia() && timed {
		out.JitterMS = &report.Jitter{Mean: numfmt.Round(mean, 3), Max: numfmt.Round(mx, 3), Last: numfmt.Round(last, 3)}
	}
	if s.packets >= 2 && timed {
		out.MaxGapMS = ptr(ms(s.steps.gap))
	}
	out.Extensions = s.ext.summary()
	if s.IsMedia() && timed {
		out.DelayMS, out.Late = s.delay.summary(s.packets)
	}
	out.Bitrate = s.bitrate()
	return out
}

func (s *Stream) bitrate() report.Bitrate {
	secs := s.series.secs
	b := report.Bitrate{SeriesKbps: make([]float64, len(secs))}
	for i := range secs {
		b.SeriesKbps[i] = numfmt.Round(float64(s.untagged(secs[i].payload, secs[i].packets))*8/1000, 3)
	}
	b.MeanKbps = Kbps(s.untagged(s.wire.MediaPayloadBytes, s.wire.Packets), s.packets, s.lastAt-s.firstAt)
	return b
}

// RateSpan says whether the stream's packets span enough time to measure its mean bitrate
// (the package's RateSpan) and, when not, why.
func (s *Stream) RateSpan() (ok bool, why string) { return RateSpan(s.packets, s.lastAt-s.firstAt) }
