package rtpflow

import (
	"slices"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

const (
	// topK is how many of a second's largest transits are kept, so that its late count can
	// be recomputed against the final baseline.
	topK = 8
	// medianBuf bounds the transits kept for a second's median; beyond it every other one is
	// kept (the median of a regular subsample).
	medianBuf = 512
)

// delayStats is a stream's delay and lateness (DESIGN, "Delay"). Each sample's transit is
// arrival − send, send being its abs-send-time or its RTP timestamp over the clock rate
// (the reference, set by the stream's timing decision), relative to the first one (rel).
// Its delay is its transit above the baseline that follows the stream (baseline.go); the
// delays go in three distributions (all samples, and those TCP held behind a retransmission,
// hol, or by a full receive window, win), whose minimum is 0, and per second of the
// stream's series: count, maximum, median, the largest few, and the late count.
//
// Samples: with abs-send-time, every packet that carries it (the sender's own send time,
// unwrapped across its 64 s wrap). On RTP timestamps, which are a frame's capture or
// presentation time and not a packet's send time, one sample per frame (frameStart).
type delayStats struct {
	budget int64 // ns above the baseline beyond which a packet is late

	clock int  // send time from the RTP timestamp at this rate, when > 0 and not ast
	ast   bool // send time from abs-send-time
	astUn Unwrapper

	sampled    bool
	at0, send0 int64 // the first sample's arrival and send time: transits are relative to it
	off        int64 // added to rel since the last rebase
	last       int64 // the last sample's rel
	rebased    bool  // the next sample's RTP timestamp is on a new base (rebase)

	// Frames, on RTP timestamps (frameStart).
	seqSet, tsSet  bool
	hiSeq          uint16 // the highest sequence number so far
	maxTS, lastTS  int64  // the highest frame timestamp in sequence order; the last packet's
	nonMonotonic   int64  // frames whose timestamp went back in sequence order (B-frames)
	skippedPayload int64  // RFC 4733 event and comfort noise packets, left out

	base        baseline
	all, hol    delayDist // delays above the baseline
	win         delayDist
	tcp         bool          // the packets came over TCP: the late ones have causes
	secs        []delaySecond // by series index
	open        int           // the second whose median is being gathered; -1 none
	buf         []int64       // its transits (every stride-th)
	stride, cnt int
}

// delaySecond is one second's delays (rel ns).
type delaySecond struct {
	n       int64 // samples
	lateNow int64 // late against the baseline known when the packet came
	max     int64
	med     int64
	medSet  bool // med was computed (else the second only had out-of-order samples)
	top     [topK]int64
}

func newDelayStats(budget, span int64) delayStats {
	return delayStats{budget: budget, astUn: Unwrapper{Bits: 24}, open: -1,
		all: newDelayDist(span), hol: newDelayDist(span), win: newDelayDist(span)}
}

// reference sets what a packet's send time is read from: abs-send-time when ast, else the
// RTP timestamp at clock Hz (none when 0).
func (d *delayStats) reference(clock int, ast bool) { d.clock, d.ast = clock, ast }

// rebase says that the next sample's RTP timestamp is on another base (a sender restarted
// its timestamps): its transit is taken to be the last sample's, and the samples after it
// are placed relative to it. abs-send-time, the sender's clock, does not restart.
func (d *delayStats) rebase() {
	d.rebased = d.sampled && !d.ast
	d.seqSet, d.tsSet = false, false
}

// frameStart says whether a packet is a sample on RTP timestamps. ts is its unwrapped
// timestamp, seq its sequence number, media false for an RFC 4733 event or a comfort noise
// payload: those are left out (an event's packets all keep its start timestamp, RFC 4733
// 2.3.1; comfort noise is sent when the sender has nothing to say). Of the packets in
// sequence order, the sample is the first of a frame whose timestamp is above every
// earlier frame's: the rest of a frame were paced out after it, and a frame whose
// timestamp goes back (B-frames, whose timestamps are presentation times; a timestamp
// stepping back) was sent after a frame presented later, so its timestamp says nothing of
// when it left. A packet that arrives out of sequence order (reordered, late, a duplicate)
// is a sample of its own, unless it belongs to the newest frame, whose sample was taken.
func (d *delayStats) frameStart(ts int64, seq uint16, media bool) bool {
	if !media {
		d.skippedPayload++
		return false
	}
	if d.seqSet && int16(seq-d.hiSeq) <= 0 {
		return ts != d.maxTS
	}
	d.hiSeq, d.seqSet = seq, true
	ok := !d.tsSet || ts > d.maxTS
	switch {
	case ok:
		d.maxTS, d.tsSet = ts, true
	case ts < d.maxTS && ts != d.lastTS:
		d.nonMonotonic++
	}
	d.lastTS = ts
	return ok
}

// sample adds one packet, in arrival order: at its arrival, ts its unwrapped RTP timestamp,
// seq its sequence number, media false for an event or comfort noise payload, astV its
// abs-send-time when astOK, hd what TCP held it up with (hold), sec its second in the
// series (-1: outside). A packet with no send time (no reference, or abs-send-time missing
// on it) is no sample, nor is one that frameStart leaves out.
func (d *delayStats) sample(at, ts int64, seq uint16, media bool, astV uint32, astOK bool, hd hold, sec int) {
	var send int64
	switch {
	case d.ast:
		if !astOK {
			return
		}
		send = astToNs(d.astUn.Unwrap(astV))
	case d.clock > 0:
		if !d.frameStart(ts, seq, media) {
			return
		}
		send = tsToNs(ts, d.clock)
	default:
		return
	}
	if !d.sampled {
		d.sampled, d.at0, d.send0 = true, at, send
	}
	rel := (at - d.at0) - (send - d.send0)
	if d.rebased {
		d.rebased = false
		d.off = d.last - rel
	}
	rel += d.off
	d.last = rel
	for d.base.due(at) {
		d.judged(d.base.judge(true))
	}
	d.tcp = d.tcp || hd != holdUDP
	d.base.push(bsample{at: at, rel: rel, sec: int32(sec), hd: hd})
}

// judged records a sample's delay above its baseline.
func (d *delayStats) judged(p bsample, delay int64) {
	d.all.add(delay)
	switch p.hd {
	case holdRetransmission:
		d.hol.add(delay)
	case holdWindow:
		d.win.add(delay)
	}
	if p.sec >= 0 {
		d.second(int(p.sec), delay)
	}
}

// flush judges the samples still waiting for their look-ahead, at the end of the stream,
// and closes the open second. It is idempotent.
func (d *delayStats) flush() {
	for d.base.pending.n > 0 {
		d.judged(d.base.judge(false))
	}
	d.closeSecond()
}

// second puts a transit in second i's record.
func (d *delayStats) second(i int, rel int64) {
	if n := len(d.secs); i >= n {
		d.secs = slices.Grow(d.secs, i+1-n)[:i+1]
		clear(d.secs[n:])
	}
	if i > d.open {
		d.closeSecond()
		d.open, d.stride, d.cnt = i, 1, 0
		d.buf = d.buf[:0]
	}
	c := &d.secs[i]
	if c.n == 0 || rel > c.max {
		c.max = rel
	}
	k := min(c.n, topK)
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
	c.n++
	if rel > d.all.minRel+d.budget {
		c.lateNow++
	}
	if i != d.open {
		return // an older second (unsorted arrival): no median update
	}
	if d.cnt&(d.stride-1) == 0 { // stride is a power of two: no division
		if len(d.buf) == medianBuf {
			for j := 0; j < medianBuf/2; j++ {
				d.buf[j] = d.buf[2*j]
			}
			d.buf = d.buf[:medianBuf/2]
			d.stride *= 2
		}
		if d.cnt&(d.stride-1) == 0 {
			if d.buf == nil {
				d.buf = make([]int64, 0, medianBuf)
			}
			d.buf = append(d.buf, rel)
		}
	}
	d.cnt++
}

// closeSecond computes the median of the open second. It is idempotent.
func (d *delayStats) closeSecond() {
	if d.open < 0 || d.open >= len(d.secs) || len(d.buf) == 0 {
		return
	}
	c := &d.secs[d.open]
	c.med, c.medSet = selectK(d.buf, (len(d.buf)+1)/2-1), true
	d.buf = d.buf[:0]
}

// at returns second i's record; nil when it has no sample.
func (d *delayStats) at(i int) *delaySecond {
	if i >= len(d.secs) || d.secs[i].n == 0 {
		return nil
	}
	return &d.secs[i]
}

// late is the second's late count against baseline + budget: exact when fewer than topK
// of its packets are late (they are all among the kept largest), else the larger of topK
// and the count against the baseline known at the time (exact unless the baseline fell
// after that second).
func (c *delaySecond) late(thr int64) int64 {
	k := min(c.n, topK)
	var n int64
	for _, v := range c.top[:k] {
		if v > thr {
			n++
		}
	}
	if n < k || c.n <= topK {
		return n
	}
	return max(n, c.lateNow)
}

// lateAt returns second i's late count against the final baseline.
func (d *delayStats) lateAt(i int) int64 {
	c := d.at(i)
	if c == nil || d.all.n == 0 {
		return 0
	}
	return c.late(d.all.minRel + d.budget)
}

// baseline is the smallest transit (rel), and maxAbove the largest delay above it.
func (d *delayStats) baseline() int64 { return d.all.minRel }
func (d *delayStats) maxAbove() int64 { return d.all.maxRel - d.all.minRel }

// summary is the report's delay_ms and late; both nil without a sample.
func (d *delayStats) summary() (*report.Delay, *report.Late) {
	if d.all.n == 0 {
		return nil, nil
	}
	q := quantiles(d.all.segments(nil), d.all.n, 50, 95, 99)
	mx := d.maxAbove()
	ref := "rtp_timestamp"
	if d.ast {
		ref = "abs_send_time"
	}
	delay := &report.Delay{Reference: ref, Samples: d.all.n, Min: 0,
		P50: ms(min(int64(q[0]), mx)), P95: ms(min(int64(q[1]), mx)), P99: ms(min(int64(q[2]), mx)), Max: ms(mx)}
	return delay, d.late()
}

// late counts the packets late against the budget and each of lateThresholds; nil
// without a sample.
func (d *delayStats) late() *report.Late {
	if d.all.n == 0 {
		return nil
	}
	base := d.all.minRel
	n := d.all.countAbove(base + d.budget)
	l := &report.Late{
		BudgetMS:   ms(d.budget),
		Packets:    n,
		Pct:        numfmt.Round(100*float64(n)/float64(d.all.n), 3),
		HOLBlocked: d.hol.countAbove(base + d.budget),
		OverMS:     make(map[string]int64, len(lateThresholds)),
	}
	for _, th := range lateThresholds {
		l.OverMS[th.key] = d.all.countAbove(base + th.ns)
	}
	if d.tcp {
		w := d.win.countAbove(base + d.budget)
		l.Causes = &report.LateCauses{Retransmission: l.HOLBlocked, Window: w, Backlog: n - l.HOLBlocked - w}
	}
	return l
}
