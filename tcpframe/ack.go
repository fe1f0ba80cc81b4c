package tcpframe

import "github.com/callpcap/callpcap/capture"

// onAck handles the peer's acknowledgment of this direction's data: its window (window.go),
// the highest cumulative ACK and when it moved (to date deliveries at a sender vantage), RTT samples (Karn's rule,
// sentRing), holes the receiver got past (capture gaps), and D-SACK (RFC 2883) reports of
// spurious retransmissions.
func (d *dir) onAck(h *capture.TCPHeader, t int64) {
	if !d.init {
		return
	}
	a := d.rel(h.Ack)
	if a-d.st.highest > d.c.window || a < d.released()-d.c.window {
		return // not plausibly an acknowledgment of this stream
	}
	d.advertised(h, a, t)
	d.ackAt = t
	if !d.ackSeen || a > d.ackHigh {
		d.ackSeen, d.ackHigh = true, a
		d.acks.push(a, t)
		if smp, ok := d.sent.ack(a, t); ok {
			d.rtt.Record(float64(smp) / 1e6)
			d.rtts.Add(t, float64(smp)/1e6)
			d.c.rttGen++
		}
	}
	// The receiver has bytes the capture never saw: a capture gap.
	if up := min(a, d.st.highest); up > d.st.delivered {
		d.skipHolesTo(up)
	}
	// D-SACK (RFC 2883 4): the first block reports a duplicate when it lies below the
	// cumulative ACK or inside the second block.
	if h.NSACK > 0 {
		l, r := d.rel(h.SACK[0].Left), d.rel(h.SACK[0].Right)
		dup := r <= a
		if h.NSACK > 1 {
			l1, r1 := d.rel(h.SACK[1].Left), d.rel(h.SACK[1].Right)
			dup = dup || l >= l1 && r <= r1
		}
		if r > l && dup {
			d.stats.spuriousBytes += d.retx.dsack(l, r)
		}
	}
}

// vantage classifies the smallest delay from a data segment to the ACK covering it against
// the connection RTT: an ACK cannot come sooner than the way from the vantage to the
// receiver and back, whereas any of them can come later (a delayed ACK, one that waits for
// data to ride on: their median, 1.55 ms of a 2.9 ms round trip, put a receiver in the
// middle). It is decided from minVantageSamples, or from one once a message has waited
// maxHold for it (emitQueued). It is recomputed as samples come, then every 16 samples,
// and after 1024 samples every 256, so that the vantage, which dates the messages,
// settles. It is asked for several times per segment: while no RTT sample came in either
// direction since the last call (rttGen), the answer is the last one.
func (d *dir) vantage() Vantage {
	if d.vc.gen == d.c.rttGen {
		return d.vc.v
	}
	return d.vantageNow()
}

func (d *dir) vantageNow() Vantage {
	d.vc.gen = d.c.rttGen
	n, r := d.rtt.N(), d.c.rtt()
	least := d.rtt.Min() * 1e6
	if h := &d.c.hs; n == 0 && d.vc.early && h.done && h.rtt > 0 {
		// No data/ACK sample after maxHold (the first messages lost, their repair not
		// yet acknowledged): the handshake is one, the SYN and the SYN/ACK answering it
		// for the client's direction, the SYN/ACK and its ACK for the server's (h163:
		// the first message lost at a sender went out undated, 37 late where 43).
		n, least = 1, float64(h.part1)
		if d.idx != h.client {
			least = float64(h.rtt - h.part1)
		}
	}
	if n == 0 || n < minVantageSamples && !d.vc.early || r <= 0 {
		return VantageUnknown
	}
	if r == d.vc.r && (n == d.vc.n || n > 32 && n-d.vc.n < 16 || n > 1024 && n-d.vc.n < 256) {
		return d.vc.v
	}
	ratio := least / float64(r)
	v := VantageMiddle
	switch {
	case ratio < 0.2:
		v = VantageReceiver
	case ratio > 0.8:
		v = VantageSender
	}
	d.vc.n, d.vc.r, d.vc.v = n, r, v
	return v
}
