package rtpflow

// eventShape tells whether a stream's packets of its first payload type are RFC 4733
// telephone events where no SDP says so: a stream that carries only DTMF (a gateway that
// sends its events on an SSRC of their own). Each event's packets repeat its start
// timestamp while their duration grows (RFC 4733 2.3.1), so RFC 3550 jitter over them
// reads the event's length as network jitter: 48 ms on a path that had none, and a
// high_jitter finding. The shape: every packet a dynamic type carrying one 4-byte event in
// plain RTP with the R bit clear, as Stream.eventShaped asks of an event beside audio, and
// at least half of them repeating the timestamp of the packet before, which no audio
// codec's packets do.
type eventShape struct {
	other      bool // some packet had another shape: not events
	n, repeats int64
	lastTS     uint32
}

func (e *eventShape) add(pk *Packet) {
	if e.other {
		return
	}
	if pk.PT < 96 || pk.PayloadLen != 4 || !pk.HasOSN || pk.Encrypted || pk.OSN&0x40 != 0 {
		e.other = true
		return
	}
	if e.n > 0 && pk.Timestamp == e.lastTS {
		e.repeats++
	}
	e.n++
	e.lastTS = pk.Timestamp
}

// events says whether the packets added were events: at least two, every one of the
// shape, and at least half repeating the timestamp before them.
func (e *eventShape) events() bool { return !e.other && e.n >= 2 && 2*e.repeats >= e.n }

// mediaAfterOpener makes the stream, which began with comfort noise or a telephone event
// (as a call does that opens in silence or with a key press), its first media type pt's
// stream: its payload type, codec, kind and clock. A tester's PCMU call that opened with
// one CN packet was reported as comfort noise; one that opened with a DTMF event had no
// clock rate, jitter or delay over its 976 PCMU packets.
func (s *Stream) mediaAfterOpener(pt uint8) {
	s.pt = pt
	s.t.hints.forget(s) // the SDP hint taken for the first type's clock names CN or the events
	for i := range s.early {
		s.early[i].media = false // the packets before: no timing of their own
	}
}

// eventShaped says whether pk looks like an RFC 4733 telephone event where no SDP names
// its payload type: a dynamic type other than the stream's first, carrying one 4-byte event
// (code, E bit, R bit clear, volume, duration; RFC 4733 2.3) in plain RTP. Phones send DTMF
// on their audio's SSRC under a type only the SDP names (101 by custom, which Wireshark
// decodes as events by default); its packets repeat the event's start timestamp, which
// jitter and delay would otherwise read as the audio's own.
func (s *Stream) eventShaped(pk *Packet) bool {
	if pk.PT == s.pt || pk.PT < 96 || pk.PayloadLen != 4 || !pk.HasOSN || pk.Encrypted || pk.OSN&0x40 != 0 {
		return false
	}
	_, named := s.t.hints.lookupPT(s, pk.PT)
	return !named
}

// eventsOnly says whether the stream carries RFC 4733 events only, known by their shape
// (eventShape) where no SDP names its payload type.
func (s *Stream) eventsOnly() bool {
	if !s.shape.events() {
		return false
	}
	_, named := s.t.hints.lookupPT(s, s.pt)
	return !named
}

// media reports whether payload type pt carries media: not an RFC 4733 event nor comfort
// noise (RFC 3389), which have no timing of their own to measure delay on. It is looked up
// again only when the payload type changes.
func (s *Stream) media(pt uint8) bool {
	if !s.ptSeen || pt != s.lastPT {
		s.lastPT, s.ptSeen = pt, true
		h, _ := s.t.hints.lookupPT(s, pt)
		s.lastMedia = payloadKind(pt, h.Codec) == ""
	}
	return s.lastMedia
}
