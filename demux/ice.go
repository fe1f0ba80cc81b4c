package demux

import (
	"bytes"
	"net/netip"
	"slices"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// Binding transactions are matched by transaction ID alone, whatever the order their copies
// reach the Tracker. At a TURN server the same check is seen on two flows, arriving on one
// leg and leaving on the other, and the two legs do not come in capture order: a TCP leg's
// messages wait in tcpframe until their delivery can be dated (at the sender side until the
// ACK covering them, up to a second), while the UDP leg's come at once. So a relayed copy
// may come after the response on the other leg, or a response before the request copy of
// another flow. Nothing is decided on arrival: each flow's copies are recorded (bindLeg),
// and the transaction is counted and timed once (finalize), when it leaves the ring of
// transactions or when the capture has been read. The copy first seen in capture time is
// the check as sent; a copy on another flow, first seen later, is the relay's onward copy.

// bindLeg is one flow a Binding transaction was seen on: the request's copies on it and the
// first response on the reverse flow.
type bindLeg struct {
	src, dst netip.AddrPort // of the request
	proto    transport.Proto
	via      transport.Via
	peer     netip.AddrPort
	at       int64 // FirstSeen of the first request copy
	reqs     int32 // request copies (0: only the response was seen)
	answered bool
	success  bool
	answerAt int64 // arrival of the first response
	// answerSeen is when the capture saw the first response (FirstSeen): over TCP a
	// response that left this host arrives (Delivered) when its ACK says, half a round trip
	// on, and only the capture's time says it was answered here (Tracker.sample).
	answerSeen int64
}

// leg returns the leg of p whose request flow is src -> dst, adding it when there is room;
// nil for a third flow (a check seen on more than two flows: its further copies are not
// kept).
func (p *txn) leg(src, dst netip.AddrPort, proto transport.Proto, via transport.Via, peer netip.AddrPort) *bindLeg {
	for i := range p.nlegs {
		if l := &p.legs[i]; l.src == src && l.dst == dst && l.proto == proto {
			return l
		}
	}
	if int(p.nlegs) == len(p.legs) {
		return nil
	}
	l := &p.legs[p.nlegs]
	p.nlegs++
	*l = bindLeg{src: src, dst: dst, proto: proto, via: via, peer: peer}
	return l
}

// answered reports whether a response to the Binding transaction p was seen.
func (p *txn) answered() bool {
	for i := range p.nlegs {
		if p.legs[i].answered {
			return true
		}
	}
	return false
}

// bindingRequest starts a Binding transaction with its first copy m, and keeps its ufrag
// pair. Every Binding request counts in report.ICE.Checks (STUN server requests included).
func (t *Tracker) bindingRequest(e *txn, m *transport.Message) {
	e.useCandidate = t.msg.Contains(stun.AttrUseCandidate)
	t.bindingCopy(e, m)
	// RFC 8445, 7.2.2: USERNAME is "remote ufrag:local ufrag". Without the colon it is not
	// an ICE check's (a STUN server's long-term credential, or pre-RFC Google ICE).
	u, err := t.msg.Get(stun.AttrUsername)
	if err != nil || bytes.IndexByte(u, ':') < 0 {
		return
	}
	e.ice = true
	if _, ok := t.ufrags[string(u)]; ok {
		return
	}
	if len(t.ufrags) >= maxUfrags {
		t.stats.Untracked.Ufrags++
		return
	}
	t.ufrags[string(u)] = struct{}{}
}

// bindingCopy records a copy of a Binding request: the first on its flow, or a
// retransmission. A copy on a third flow, or after the transaction was counted, is dropped.
func (t *Tracker) bindingCopy(p *txn, m *transport.Message) {
	if p.done {
		return
	}
	l := p.leg(m.Src, m.Dst, m.Proto, m.Via, m.Peer)
	if l == nil {
		return
	}
	if l.reqs == 0 || m.FirstSeen < l.at {
		l.at = m.FirstSeen
	}
	l.reqs++
}

// bindingResponse records a Binding success or error response on the leg whose request flow
// it answers. A response whose request was not seen (before the capture, or lost on the way
// to it) is one success or failure on its own: it takes no room among the transactions
// awaiting an answer.
func (t *Tracker) bindingResponse(m *transport.Message, success bool) {
	seq, ok := t.pending[t.msg.TransactionID]
	var p *txn
	if ok {
		p = &t.txns[seq%maxPending]
	}
	if p == nil || p.method != stun.MethodBinding || p.done {
		if success {
			t.successes++
			if t.msg.Contains(stun.AttrMessageIntegrity) {
				t.iceSuccesses++ // a check's answer is signed with its password; a lookup's is not
			}
		} else {
			t.failures++
		}
		return
	}
	l := p.leg(m.Dst, m.Src, m.Proto, m.Via, m.Peer)
	if l == nil || l.answered {
		return // a retransmitted response: its transaction has its answer
	}
	l.answered, l.success, l.answerAt, l.answerSeen = true, success, arrival(m), m.FirstSeen
}

// finalize counts a Binding transaction once: its requests, its answer, its round trip.
//
//   - Seen on one flow: a check, with each retransmission counted (report.ICE.Checks counts
//     requests); answered, one success or failure, and unless retransmitted (Karn's rule) a
//     round trip from the request's FirstSeen to the response's arrival (Delivered: the time
//     the agent waited, including any TCP head-of-line blocking on the way back), placed by
//     Tracker.sample.
//   - Seen on two flows: relayed (or forwarded) at the capture: one check, its copies on the
//     flow first seen counted, those of the onward flow not (they are the same requests
//     again). One success or failure, the onward flow's answer (the responder's) or else
//     the relay's. The relay's two addresses, where the request arrived and where it left,
//     are this host's. The round trip runs from the onward copy to the response that came
//     back on that leg and covers that leg only (relayLeg); none if either flow carried a
//     retransmission.
//
// A success of a USE-CANDIDATE request nominates its pair, as the check was sent.
func (t *Tracker) finalize(p *txn) {
	if p.done || p.method != stun.MethodBinding {
		return
	}
	p.done = true
	var in, out *bindLeg
	for i := range p.nlegs {
		l := &p.legs[i]
		if l.reqs == 0 {
			continue
		}
		switch {
		case in == nil:
			in = l
		case l.at < in.at:
			in, out = l, in
		default:
			out = l
		}
	}
	answer := in
	if out != nil && out.answered || answer == nil || !answer.answered {
		answer = out
	}
	if answer == nil || !answer.answered {
		for i := range p.nlegs { // a response on a flow no request of it was seen on
			if p.legs[i].answered {
				answer = &p.legs[i]
			}
		}
	}
	if in != nil {
		t.checks += int64(in.reqs)
		if p.ice {
			t.iceChecks += int64(in.reqs)
		}
	}
	if answer == nil || !answer.answered {
		return
	}
	if answer.success {
		t.successes++
		if p.ice {
			t.iceSuccesses++
		}
	} else {
		t.failures++
	}
	switch {
	case in == nil:
		return
	case out != nil:
		t.ice.addLocal(in.dst.Addr())
		t.ice.addLocal(out.src.Addr())
		if out.answered && in.reqs == 1 && out.reqs == 1 {
			if d := out.answerAt - out.at; d >= 0 {
				t.ice.record(relayLeg(in.via, out.via), float64(d)/1e6, out.answerAt, newRTTFlow(out.src, out.dst, out.proto))
			}
		}
	case in.answered && in.reqs == 1:
		if d := in.answerAt - in.at; d >= 0 {
			t.sample(in, float64(d)/1e6, float64(in.answerSeen-in.at)/1e6, in.answerAt)
		}
	}
	if answer.success && p.useCandidate {
		t.nominate(in)
	}
}

// finalizeAll counts the Binding transactions still in the ring, oldest first, once the
// capture has been read.
func (t *Tracker) finalizeAll() {
	if t.finalized == t.next {
		return
	}
	t.finalized = t.next
	first := uint64(0)
	if t.next > maxPending {
		first = t.next - maxPending
	}
	for seq := first; seq < t.next; seq++ {
		t.finalize(&t.txns[seq%maxPending])
	}
}

// arrival is when a message reached the application: Delivered, or FirstSeen without it.
func arrival(m *transport.Message) int64 {
	if m.Delivered != 0 {
		return m.Delivered
	}
	return m.FirstSeen
}

// nominate records the candidate pair of a nominating request as "src -> dst". For a check
// relayed through TURN the relay end is the allocation's relayed address (the client's
// address when the allocation was not seen) and the other end the peer.
func (t *Tracker) nominate(e *bindLeg) {
	p := [2]netip.AddrPort{e.src, e.dst}
	if e.via != transport.Direct {
		local := e.src
		fromClient := true
		if a := t.lookup(e.src, e.dst, e.proto); a != nil {
			fromClient = a.key.client == e.src
			local = a.key.client
			if a.relayed.IsValid() {
				local = a.relayed
			}
		}
		p = [2]netip.AddrPort{local, e.peer}
		if !fromClient {
			p = [2]netip.AddrPort{e.peer, local}
		}
	}
	if !p[0].IsValid() || !p[1].IsValid() {
		// Relayed on a channel whose binding the capture missed (it began mid-call): the
		// peer, one end of the pair, is not known, and the pair cannot be named.
		return
	}
	if _, ok := t.nominated[p]; ok {
		return
	}
	if len(t.nominated) >= maxNominated {
		t.stats.Untracked.Nominated++
		return
	}
	t.nominated[p] = struct{}{}
}

// HostEnd tells the ICE round trips that ap is a transport address of the capture host,
// as something other than the checks showed it (an ICE-TCP connection's vantage): a pair
// of ap that the answer times cannot decide (a LAN, where both ends answer as fast) is then
// decided by it. It decides that pair only: the host's other addresses, which decide other
// pairs, stay what the checks showed (a file merged from several captures has several
// hosts). Call it before HostEndpoints and ICE.
func (t *Tracker) HostEnd(ap netip.AddrPort) {
	if !slices.Contains(t.ice.ends, ap) && len(t.ice.ends) < maxLocal {
		t.ice.ends = append(t.ice.ends, ap)
	}
}

// MarkEnd tells the ICE round trips what the capture marked of ap (a Linux cooked
// capture's packet types): host, every packet from it was sent by the capture host; else
// some arrived from elsewhere. A pair with a marked end at either side is decided by the
// marks (iceRTT.byMarks), before the answer times. Call it before HostEndpoints and ICE;
// pairs decided earlier (after maxHeld round trips one way) keep what their times said.
func (t *Tracker) MarkEnd(ap netip.AddrPort, host bool) {
	r := &t.ice
	if r.marked == nil {
		r.marked = map[netip.AddrPort]int8{}
	}
	if len(r.marked) >= maxMarked {
		return
	}
	r.marked[ap] = -1
	if host {
		r.marked[ap] = 1
	}
}

// HostEndpoints returns the transport addresses the ICE checks showed to be the capture
// host's own (see iceRTT.hostEndpoints): media they sent was captured at its sender. Like
// ICE, call it once the capture is read.
func (t *Tracker) HostEndpoints() []netip.AddrPort {
	t.finalizeAll()
	return t.ice.hostEndpoints()
}

// ICE returns the ICE figures of the capture. Ufrags and Nominated are sorted and never nil;
// RTTLegs is in a fixed order and never nil. Round trips of pairs still undecided are placed
// at the first call (see icertt.go), so call it once the capture is read.
func (t *Tracker) ICE() report.ICE {
	t.finalizeAll()
	r := report.ICE{
		Checks:    t.checks,
		Successes: t.successes,
		Failures:  t.failures,
		// Of connectivity checks only: for findings, not in the JSON.
		ConnectivityChecks: t.iceChecks, ConnectivitySuccesses: t.iceSuccesses,
		Ufrags:    make([]string, 0, len(t.ufrags)),
		Nominated: make([]string, 0, len(t.nominated)),
	}
	r.RTTMS, r.RTTLegs = t.ice.summary()
	for u := range t.ufrags {
		r.Ufrags = append(r.Ufrags, u)
	}
	slices.Sort(r.Ufrags)
	pairs := make([][2]netip.AddrPort, 0, len(t.nominated))
	for p := range t.nominated {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b [2]netip.AddrPort) int {
		if c := a[0].Compare(b[0]); c != 0 {
			return c
		}
		return a[1].Compare(b[1])
	})
	for _, p := range pairs {
		r.Nominated = append(r.Nominated, p[0].String()+" -> "+p[1].String())
	}
	return r
}
