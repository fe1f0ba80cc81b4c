package demux

import (
	"bytes"
	"net/netip"
	"slices"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// bindingRequest counts an ICE connectivity check (or any Binding request: report.ICE.Checks
// counts them all, STUN server requests included) and keeps its ufrag pair.
func (t *Tracker) bindingRequest(e *txn) {
	t.checks++
	e.useCandidate = t.msg.Contains(stun.AttrUseCandidate)
	// RFC 8445, 7.2.2: USERNAME is "remote ufrag:local ufrag". Without the colon it is not
	// an ICE check's (a STUN server's long-term credential, or pre-RFC Google ICE).
	u, err := t.msg.Get(stun.AttrUsername)
	if err != nil || bytes.IndexByte(u, ':') < 0 {
		return
	}
	if _, ok := t.ufrags[string(u)]; ok {
		return
	}
	if len(t.ufrags) >= maxUfrags {
		t.stats.Untracked.Ufrags++
		return
	}
	t.ufrags[string(u)] = struct{}{}
}

// bindingResponse counts a success or error response; matched to its request it gives a
// round trip (placed by Tracker.sample: only this host's checks count) and, for a
// USE-CANDIDATE request, the nominated pair.
//
// The round trip runs from the request's FirstSeen to the response's Delivered: the time
// the agent waited, including any TCP head-of-line blocking on the way back.
func (t *Tracker) bindingResponse(m *transport.Message, success, matched bool, e *txn) {
	if success {
		t.successes++
	} else {
		t.failures++
	}
	if !matched {
		return
	}
	if !e.retransmitted {
		if d := arrival(m) - e.at; d >= 0 {
			t.sample(e, float64(d)/1e6, arrival(m))
		}
	}
	if success && e.useCandidate {
		t.nominate(e)
	}
}

// arrival is when a message reached the application: Delivered, or FirstSeen without it.
func arrival(m *transport.Message) int64 {
	if m.Delivered != 0 {
		return m.Delivered
	}
	return m.FirstSeen
}

// relayedCheck reports whether m, a request whose transaction ID p is pending, is p's copy
// leaving a relay (or any forwarder) the capture saw it arrive at: a Binding request on
// another flow. It is the same check, not counted again; a retransmission of it on the
// onward flow is not counted either (its copy on the first flow was). The relay's two
// addresses, where the request arrived and where it left, are this host's.
func (t *Tracker) relayedCheck(p *txn, m *transport.Message) bool {
	if p.method != stun.MethodBinding || t.msg.Type.Method != stun.MethodBinding {
		return false
	}
	if m.Src == p.src && m.Dst == p.dst && m.Proto == p.proto {
		return false // a retransmission on the same flow
	}
	if p.relayed {
		if m.Src == p.fwdSrc && m.Dst == p.fwdDst && m.Proto == p.fwdProto {
			p.retransmitted = true
		}
		return true
	}
	p.relayed = true
	p.fwdAt, p.fwdSrc, p.fwdDst, p.fwdProto, p.fwdVia = m.FirstSeen, m.Src, m.Dst, m.Proto, m.Via
	t.ice.addLocal(p.dst.Addr())
	t.ice.addLocal(m.Src.Addr())
	return true
}

// relayedResponse handles a response to a check relayed at the capture. The first copy
// counts the success or failure; when it came back on the onward flow it gives the round
// trip of that leg, from the onward request, and the check stays pending for the copy the
// relay sends back on the first flow, which is then dropped uncounted.
func (t *Tracker) relayedResponse(m *transport.Message, success bool, p *txn) {
	onward := m.Src == p.fwdDst && m.Dst == p.fwdSrc && m.Proto == p.fwdProto
	if p.answered || !onward {
		delete(t.pending, p.id)
	}
	if p.answered {
		return
	}
	p.answered = true
	if success {
		t.successes++
	} else {
		t.failures++
	}
	if onward && !p.retransmitted {
		if d := arrival(m) - p.fwdAt; d >= 0 {
			t.ice.record(relayLeg(p.via, p.fwdVia), float64(d)/1e6, arrival(m), newRTTFlow(p.fwdSrc, p.fwdDst, p.fwdProto))
		}
	}
	if success && p.useCandidate {
		t.nominate(p)
	}
}

// nominate records the candidate pair of a nominating request as "src -> dst". For a check
// relayed through TURN the relay end is the allocation's relayed address (the client's
// address when the allocation was not seen) and the other end the peer.
func (t *Tracker) nominate(e *txn) {
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
	if _, ok := t.nominated[p]; ok {
		return
	}
	if len(t.nominated) >= maxNominated {
		t.stats.Untracked.Nominated++
		return
	}
	t.nominated[p] = struct{}{}
}

// HostEndpoints returns the transport addresses the ICE checks showed to be the capture
// host's own (see iceRTT.hostEndpoints): media they sent was captured at its sender. Like
// ICE, call it once the capture is read.
func (t *Tracker) HostEndpoints() []netip.AddrPort { return t.ice.hostEndpoints() }

// ICE returns the ICE figures of the capture. Ufrags and Nominated are sorted and never nil;
// RTTLegs is in a fixed order and never nil. Round trips of pairs still undecided are placed
// at the first call (see icertt.go), so call it once the capture is read.
func (t *Tracker) ICE() report.ICE {
	r := report.ICE{
		Checks:    t.checks,
		Successes: t.successes,
		Failures:  t.failures,
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
