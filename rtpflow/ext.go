package rtpflow

// Header extension behaviour (RFC 8285 elements whose meaning is not negotiated in the
// capture): abs-send-time and transport-wide sequence numbers are recognised by what their
// values do, not by their ids.

// maxASTCandidates bounds how many 3-byte element ids are considered for abs-send-time.
const maxASTCandidates = 4

// astMaxLag is how far abs-send-time may advance differently from arrival time over the
// decision window: 10% of the window plus 50 ms of queueing.
const astMaxLag = int64(50e6)

// chooseAST returns the index of the candidate id whose values behave as abs-send-time
// (http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time: 24-bit 6.18 fixed-point
// seconds, wrapping every 64 s) over the early packets, or -1. A candidate must be present
// on at least 90% of them, be non-decreasing on at least 90% of consecutive pairs (the
// pacer sends in order), and advance like arrival time: |Δsend − Δarrival| ≤ Δarrival/10 +
// 50 ms with Δsend > 0.
func chooseAST(early []early, n int) int {
	if len(early) < 2 {
		return -1
	}
	best, bestErr := -1, int64(0)
	for j := 0; j < n; j++ {
		var u Unwrapper
		u.Bits = 24
		present, pairs, up := 0, 0, 0
		var first, last, prev int64
		var firstAt, lastAt int64
		for _, e := range early {
			if e.astMask&(1<<j) == 0 {
				continue
			}
			v := u.Unwrap(e.ast[j])
			if present == 0 {
				first, firstAt = v, e.at
			} else {
				pairs++
				if v >= prev {
					up++
				}
			}
			prev, last, lastAt = v, v, e.at
			present++
		}
		if present < 2 || present*10 < len(early)*9 || up*10 < pairs*9 {
			continue
		}
		dSend := astToNs(last) - astToNs(first)
		dArr := lastAt - firstAt
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

// twccState finds the transport-wide sequence number element of one sender: a 2-byte
// element whose value increases by one from each packet of the sender to the next, across
// all its streams (draft-holmer-rmcat-transport-wide-cc-extensions-01).
type twccState struct {
	ids [8]twccID
	n   int
}

type twccID struct {
	id        uint8
	last      uint16
	obs, hits uint32
}

func (w *twccState) observe(id uint8, v uint16) {
	for i := 0; i < w.n; i++ {
		c := &w.ids[i]
		if c.id == id {
			c.obs++
			if v == c.last+1 {
				c.hits++
			}
			c.last = v
			return
		}
	}
	if w.n < len(w.ids) {
		w.ids[w.n] = twccID{id: id, last: v}
		w.n++
	}
}

// id returns the element id that behaves as transport-cc: at least 4 successors seen and
// at least 80% of them one more than the previous value.
func (w *twccState) id() (uint8, bool) {
	var best *twccID
	for i := 0; i < w.n; i++ {
		c := &w.ids[i]
		if c.obs >= 4 && c.hits*5 >= c.obs*4 && (best == nil || c.hits > best.hits) {
			best = c
		}
	}
	if best == nil {
		return 0, false
	}
	return best.id, true
}
