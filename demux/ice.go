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
// round trip and, for a USE-CANDIDATE request, the nominated pair.
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
		at := m.Delivered
		if at == 0 {
			at = m.FirstSeen
		}
		if d := at - e.at; d >= 0 {
			t.rtt.Record(float64(d) / 1e6)
		}
	}
	if success && e.useCandidate {
		t.nominate(e)
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

// ICE returns the ICE figures of the capture. Ufrags and Nominated are sorted and never nil.
func (t *Tracker) ICE() report.ICE {
	r := report.ICE{
		Checks:    t.checks,
		Successes: t.successes,
		Failures:  t.failures,
		RTTMS:     t.rtt.Summary(),
		Ufrags:    make([]string, 0, len(t.ufrags)),
		Nominated: make([]string, 0, len(t.nominated)),
	}
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
