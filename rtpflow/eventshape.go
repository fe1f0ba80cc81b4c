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
