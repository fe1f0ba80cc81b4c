package rtpflow

import "slices"

// Series bounds. Series run on a 1-second grid anchored at the first media packet of their
// call direction; a stream's series starts at the grid second of its first packet.
const (
	// maxSeriesSeconds caps a series at 6 hours: later seconds are left out of the series
	// (the totals still count them).
	maxSeriesSeconds = 6 * 3600
	// seriesBreakSeconds: a jump of more than an hour past the last second is a break,
	// not an hour of empty seconds; the series stops there (Stream.SeriesBroken).
	seriesBreakSeconds = 3600
	// topK is how many of a second's largest transits are kept, so that its late count can
	// be recomputed against the final baseline.
	topK = 8
	// medianBuf bounds the transits kept for a second's median; beyond it every other one is
	// kept (the median of a regular subsample).
	medianBuf = 512
)

// second is one second of a stream's series.
type second struct {
	payload, padding int64 // of non-duplicate packets
	wire, retrans    int64 // m.Wire.Total and m.Wire.Retransmitted
	lost             int64
	dn               int64 // delay samples
	lateNow          int64 // late against the baseline known when the packet came
	dMax, dMed       int64 // transits (rel)
	medSet           bool  // dMed was computed (else the second only had out-of-order samples)
	top              [topK]int64
}

// late is the second's late count against baseline + budget: exact when fewer than topK
// of its packets are late (they are all among the kept largest), else the larger of topK
// and the count against the baseline known at the time (exact unless the baseline fell
// after that second).
func (c *second) late(thr int64) int64 {
	k := min(c.dn, topK)
	var n int64
	for _, v := range c.top[:k] {
		if v > thr {
			n++
		}
	}
	if n < k || c.dn <= topK {
		return n
	}
	return max(n, c.lateNow)
}

// decide takes the timing decisions from the buffered early packets (clock rate,
// abs-send-time) and replays them.
func (s *Stream) decide() {
	if s.decided {
		return
	}
	s.decided = true
	n := len(s.early)
	st, isStatic := static(s.pt)
	switch {
	case s.t.hints.take(s):
		// SDP signalled the clock rate of this payload type at this address.
	case isStatic:
		s.clock = st.clock
	case n >= 2:
		if c := inferEarly(s.early); c > 0 {
			s.clock, s.clockInferred = c, true
		}
	}
	if j := chooseAST(s.early, s.nCand); j >= 0 {
		s.astID = s.astCand[j]
	}
	if s.clock > 0 {
		s.jit = NewJitter(s.clock)
	}
	j := slices.Index(s.astCand[:s.nCand], s.astID)
	for _, e := range s.early {
		var v uint32
		ok := false
		if j >= 0 && s.astID != 0 {
			v, ok = e.ast[j], e.astMask&(1<<j) != 0
		}
		s.sample(e.at, e.ts, v, ok, e.hol)
	}
	if n > 0 {
		s.lateAt, s.lateTS = s.early[0].at, s.early[0].ts
	}
	s.early = nil
}

// lateInfer keeps trying to infer the clock rate after the early buffer could not (a
// stream with a dynamic payload type whose first packets came in a burst, as a TCP backlog
// does), over successive 1-second windows, accepting a rate only within 15% of the ratio;
// the packets before that moment have no jitter or delay sample.
func (s *Stream) lateInfer(at, ts int64) {
	if _, ok := static(s.pt); ok {
		return
	}
	if s.lateAt == 0 && s.lateTS == 0 {
		s.lateAt, s.lateTS = at, ts
		return
	}
	if at-s.lateAt < earlySpan {
		return
	}
	if c := inferClose(ts-s.lateTS, at-s.lateAt); c > 0 {
		s.clock, s.clockInferred = c, true
		s.jit = NewJitter(c)
		return
	}
	s.lateAt, s.lateTS = at, ts
}

// sample feeds one packet, in arrival order, to jitter and delay.
func (s *Stream) sample(at, ts int64, ast uint32, astOK, hol bool) {
	if s.clock > 0 {
		s.jit.Update(at, ts)
	}
	var send int64
	switch {
	case s.astID != 0:
		if !astOK {
			return // no send time for this packet
		}
		send = astToNs(s.astUn.Unwrap(ast))
	case s.clock > 0:
		send = tsToNs(ts, s.clock)
	default:
		return
	}
	if !s.sampled {
		s.sampled, s.at0, s.send0 = true, at, send
	}
	rel := (at - s.at0) - (send - s.send0)
	s.delay.add(rel)
	if hol {
		s.hol.add(rel)
	}
	s.delaySecond(at, rel)
}

// delaySecond puts a transit in its second's record.
func (s *Stream) delaySecond(at, rel int64) {
	i := s.secIndex(at)
	if i < 0 {
		return
	}
	if i > s.dOpen {
		s.closeDelaySecond()
		s.dOpen, s.dStride, s.dCount = i, 1, 0
		s.dbuf = s.dbuf[:0]
	}
	c := &s.secs[i]
	if c.dn == 0 || rel > c.dMax {
		c.dMax = rel
	}
	k := min(c.dn, topK)
	if k < topK || rel > c.top[topK-1] {
		p := k
		if p == topK {
			p--
		}
		for p > 0 && c.top[p-1] < rel {
			c.top[p] = c.top[p-1]
			p--
		}
		c.top[p] = rel
	}
	c.dn++
	if rel > s.delay.minRel+s.t.budget {
		c.lateNow++
	}
	if i != s.dOpen {
		return // an older second (unsorted arrival): no median update
	}
	if s.dCount&(s.dStride-1) == 0 { // dStride is a power of two: no division
		if len(s.dbuf) == medianBuf {
			for j := 0; j < medianBuf/2; j++ {
				s.dbuf[j] = s.dbuf[2*j]
			}
			s.dbuf = s.dbuf[:medianBuf/2]
			s.dStride *= 2
		}
		if s.dCount&(s.dStride-1) == 0 {
			if s.dbuf == nil {
				s.dbuf = make([]int64, 0, medianBuf)
			}
			s.dbuf = append(s.dbuf, rel)
		}
	}
	s.dCount++
}

func (s *Stream) closeDelaySecond() {
	if s.dOpen < 0 || s.dOpen >= len(s.secs) || len(s.dbuf) == 0 {
		return
	}
	c := &s.secs[s.dOpen]
	c.dMed, c.medSet = selectK(s.dbuf, (len(s.dbuf)+1)/2-1), true
	s.dbuf = s.dbuf[:0]
}

// selectK returns the k-th smallest of v (0-based), reordering v: Hoare's quickselect
// with a median-of-three pivot, linear on average.
func selectK(v []int64, k int) int64 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
