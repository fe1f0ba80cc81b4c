package rtpflow

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/wire"
)

// Header extension behaviour (RFC 8285 elements whose meaning is not negotiated in the
// capture): abs-send-time and transport-wide sequence numbers are recognised by what their
// values do, not by their ids.

// maxASTCandidates bounds how many 3-byte element ids are considered for abs-send-time.
const maxASTCandidates = 4

// astMaxLag is how far abs-send-time may advance differently from arrival time over the
// decision window: 10% of the window plus 50 ms of queueing.
const astMaxLag = int64(50e6)

// extDetector follows one stream's RFC 8285 header extensions: the ids present, whether
// the two-byte form is used, the 3-byte elements that may be abs-send-time until the
// stream's timing decision chooses one (choose), and the 2-byte elements that may be the
// sender's transport-wide sequence number (twccState, shared by the sender's streams).
type extDetector struct {
	ids     [4]uint64 // bitmap of the ids seen
	twoByte bool
	// encrypted: some packet's extensions were encrypted whole (cryptex, RFC 9335, which
	// pion negotiates by default), so the ids and elements of those are not known.
	encrypted bool
	cand      [maxASTCandidates]uint8 // 3-byte element ids, in the order first seen
	nCand     int
	chosen    bool  // choose ran: from then on only astID's values are read
	astID     uint8 // 0: no abs-send-time
	tw        *twccState
}

// astValues are one packet's 3-byte element values: before the choice, the value of each
// candidate (bit j of mask: cand[j] present, in v[j]); after it, the chosen id's in v[0].
type astValues struct {
	mask uint8
	v    [maxASTCandidates]uint32
}

// observe reads one packet's extension elements, and its 3-byte values into *ast (zero).
func (e *extDetector) observe(profile uint16, body []byte, ast *astValues) {
	it, ok := wire.NewExtIter(profile, body)
	if !ok {
		e.encrypted = e.encrypted || wire.IsCryptex(profile)
		return
	}
	if it.TwoByte() {
		e.twoByte = true
	}
	for {
		id, data, ok := it.Next()
		if !ok {
			return
		}
		e.ids[id>>6] |= 1 << (id & 63)
		switch len(data) {
		case 3:
			v := uint32(data[0])<<16 | uint32(data[1])<<8 | uint32(data[2])
			if e.chosen {
				if id == e.astID && e.astID != 0 {
					ast.v[0], ast.mask = v, 1
				}
				continue
			}
			if j := e.candidate(id); j >= 0 {
				ast.mask |= 1 << j
				ast.v[j] = v
			}
		case 2:
			e.tw.observe(id, binary.BigEndian.Uint16(data))
		}
	}
}

// candidate returns the index of a 3-byte element id among the abs-send-time candidates,
// adding it if there is room.
func (e *extDetector) candidate(id uint8) int {
	for j := 0; j < e.nCand; j++ {
		if e.cand[j] == id {
			return j
		}
	}
	if e.nCand < maxASTCandidates {
		e.cand[e.nCand] = id
		e.nCand++
		return e.nCand - 1
	}
	return -1
}

// choose takes the abs-send-time decision over the packets buffered until the stream's
// timing decision (chooseAST), and returns the chosen id's index among the candidates:
// the index of each early packet's value (-1 without abs-send-time).
func (e *extDetector) choose(early []early) int {
	e.chosen = true
	if j := chooseAST(early, e.nCand); j >= 0 {
		e.astID = e.cand[j]
	}
	if e.astID == 0 {
		return -1
	}
	return slices.Index(e.cand[:e.nCand], e.astID)
}

// chooseAST returns the index of the candidate id whose values behave as abs-send-time
// (http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time: 24-bit 6.18 fixed-point
// seconds, wrapping every 64 s) over the early packets, or -1. A candidate must be present
// on at least 90% of them, be non-decreasing on at least 90% of pairs consecutive in
// sequence number (the pacer sends in order; in arrival order the network's reordering
// would count, and h137's 40 of 200 packets swapped hid it), and advance like arrival
// time: from the least delayed packet of the first half (arrival less send time) to that
// of the second half, |Δsend − Δarrival| ≤ Δarrival/10 + 50 ms with Δsend > 0. The least
// delayed, not the first and the last: a capture that begins while a queue drains (a TCP
// stall's backlog, relayed) has its first packets held hundreds of milliseconds, which
// first to last read as a clock too fast, and the stream's delays were then taken on RTP
// timestamps, with the sender's queue in them.
func chooseAST(early []early, n int) int {
	if len(early) < 2 {
		return -1
	}
	best, bestErr := -1, int64(0)
	var send, at [earlyMax]int64
	var seq [earlyMax]int64
	for j := 0; j < n; j++ {
		var u Unwrapper
		u.Bits = 24
		present := 0
		for _, e := range early {
			if e.ast.mask&(1<<j) == 0 || present == len(send) {
				continue
			}
			send[present], at[present] = astToNs(u.Unwrap(e.ast.v[j])), e.at
			seq[present] = int64(int16(e.seq - early[0].seq))
			present++
		}
		if present < 2 || present*10 < len(early)*9 || !inOrder(send[:present], seq[:present]) {
			continue
		}
		least := func(lo, hi int) int {
			k := lo
			for i := lo + 1; i < hi; i++ {
				if at[i]-send[i] < at[k]-send[k] {
					k = i
				}
			}
			return k
		}
		half := present / 2
		a, b := least(0, half), least(half, present)
		dSend, dArr := send[b]-send[a], at[b]-at[a]
		if dSend <= 0 || dArr <= 0 {
			continue
		}
		e := dSend - dArr
		if e < 0 {
			e = -e
		}
		if e > dArr/10+astMaxLag {
			continue
		}
		if best < 0 || e < bestErr {
			best, bestErr = j, e
		}
	}
	return best
}

// inOrder reports whether send, taken in the order of the packets' sequence numbers seq,
// is non-decreasing on at least 90% of the consecutive pairs.
func inOrder(send, seq []int64) bool {
	var idx [earlyMax]int
	order := idx[:len(send)]
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(seq[a], seq[b]) })
	up := 0
	for i := 1; i < len(order); i++ {
		if send[order[i]] >= send[order[i-1]] {
			up++
		}
	}
	return up*10 >= (len(order)-1)*9
}

// summary is the report of the extensions: ids seen, two-byte form, abs-send-time, and
// the sender's transport-cc id when this stream carried it.
func (e *extDetector) summary() report.Extensions {
	out := report.Extensions{IDs: []int{}, TwoByteHeaders: e.twoByte, Encrypted: e.encrypted}
	for id := 0; id < 256; id++ {
		if e.ids[id>>6]&(1<<(id&63)) != 0 {
			out.IDs = append(out.IDs, id)
		}
	}
	if e.astID != 0 {
		out.AbsSendTimeID = ptr(int(e.astID))
	}
	if id, ok := e.tw.id(); ok && e.ids[id>>6]&(1<<(id&63)) != 0 {
		out.TransportCCID = ptr(int(id))
	}
	return out
}
