package rtpflow

import (
	"slices"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

const (
	// medianBuf bounds the transits kept for a second's median; beyond it every other one is
	// kept (the median of a regular subsample).
	medianBuf = 512
)

// delayStats is a stream's delay and lateness (DESIGN, "Delay"). Each sample's transit is
// arrival − send, send being its abs-send-time or its RTP timestamp over the clock rate
// (the reference, set by the stream's timing decision), relative to the first one (rel).
// Its delay is its transit above the baseline that follows the stream (baseline.go); the
// delays go in a distribution (whose minimum is 0) and per second of the stream's series:
// count, maximum, median and late count; late packets are counted as the samples are
// judged, by cause over TCP (a retransmission, a full receive window, the rest).
//
// Samples: with abs-send-time, every packet that carries it (the sender's own send time,
// unwrapped across its 64 s wrap). On RTP timestamps, which are a frame's capture or
// presentation time and not a packet's send time, one sample per frame (frameOf), which
// speaks for the frame's packets: they are late when it is; but a packet that TCP held
// longer than its frame's first one (or when that one was not held) is a sample of its own.
type delayStats struct {
	budget int64 // ns above the baseline beyond which a packet is late

	clock int  // send time from the RTP timestamp at this rate, when > 0 and not ast
	ast   bool // send time from abs-send-time
	astUn Unwrapper

	sampled    bool
	at0, send0 int64 // the first sample's arrival and send time: transits are relative to it
	off        int64 // added to rel since the last rebase
	rebased    bool  // the next sample starts a new reference (rebase, restep)

	// Frames, on RTP timestamps (frameOf).
	seqSet, tsSet  bool
	hiSeq          uint16 // the highest sequence number so far
	maxTS, lastTS  int64  // the highest frame timestamp in sequence order; the last packet's
	nonMonotonic   int64  // frames whose timestamp went back in sequence order (B-frames)
	skippedPayload int64  // RFC 4733 event and comfort noise packets, left out

	base      baseline
	frameIdx  int64          // the index (in base) of the newest frame's sample
	frameHeld bool           // TCP held that sample's packet
	frameAt   int64          // and when it arrived
	reordered reorderedFrame // the last frame whose first packet came out of sequence order
	all       delayDist      // the samples' delays above their baseline
	tcp       bool           // the packets came over TCP: the late ones have causes

	// Packets judged and late among them (each sample counting the packets of its frame),
	// late behind a TCP retransmission (HOL), by the retransmission of their own bytes
	// (own) or by a full receive window (win), and late beyond each of lateThresholds.
	judgedPk, latePk, lateHOL, lateOwn, lateWin int64
	over                                        [len(lateThresholds)]int64

	secs        []delaySecond // by series index
	open        int           // the second whose median is being gathered; -1 none
	buf         []int64       // its transits (every stride-th)
	stride, cnt int
}

// delaySecond is one second's delays (rel ns).
type delaySecond struct {
	n      int64 // samples
	late   int64 // packets late
	max    int64
	med    int64
	medSet bool // med was computed (else the second only had out-of-order samples)
}

func newDelayStats(budget, span int64) delayStats {
	return delayStats{budget: budget, astUn: Unwrapper{Bits: 24}, open: -1,
		all: newDelayDist(span)}
}

// reference sets what a packet's send time is read from: abs-send-time when ast, else the
// RTP timestamp at clock Hz (none when 0).
func (d *delayStats) reference(clock int, ast bool) { d.clock, d.ast = clock, ast }

// rebase says that the next sample's RTP timestamp is on another base (a sender restarted
// its timestamps): its transit is taken to be the smallest of the recent samples' (the
// baseline's floor), and the samples after it are placed relative to it. Not the last
// sample's: when that one was late, every sample after it would be as late (a 200 ms late
// packet before a step of the capture's clock made the 45 after it late). Taken as on
// time, the first sample of the new reference can only read early, which makes no packet
// late. abs-send-time, the sender's clock, does not restart.
func (d *delayStats) rebase() {
	d.rebased = d.sampled && !d.ast
	d.seqSet, d.tsSet = false, false
}

// restep makes the next sample a new reference for the transit, as rebase does, after a
// step of the capture's clock: its arrival is on another base, whatever its send time.
func (d *delayStats) restep() { d.rebased = d.sampled }

// frameRole is what a packet is to the samples on RTP timestamps (frameOf).
type frameRole uint8

const (
	frameSkip          frameRole = iota // no sample, and no part of one
	frameStart                          // a sample: the first packet of a frame, in sequence order
	frameOwn                            // a sample of its own: a packet out of sequence order
	frameRest                           // a later packet of the newest frame: late when its frame is
	frameReorderedRest                  // a later packet of the reordered frame (reorderedFrame): late when it is
)

// maxFramePackets bounds how far apart in sequence two packets of one frame lie: a key
// frame's hundreds of packets are seldom reordered among themselves by more.
const maxFramePackets = 256

// reorderedFrame is the frame whose first packet came last out of sequence order, a sample of
// its own (frameOwn): its timestamp, the sequence number of that first packet, and
// its sample's index (in base), whether TCP held that packet, and when it arrived. fresh
// says frameOf has just named it, and sample is to fill in the rest.
type reorderedFrame struct {
	ts         int64
	seq        uint16
	set, fresh bool
	idx        int64
	held       bool
	at         int64
}

// frameOf says what a packet is to the samples on RTP timestamps. ts is its unwrapped
// timestamp, seq its sequence number, media false for an RFC 4733 event or a comfort noise
// payload: those are left out (an event's packets all keep its start timestamp, RFC 4733
// 2.3.1; comfort noise is sent when the sender has nothing to say). Of the packets in
// sequence order, the sample is the first of a frame whose timestamp is above every
// earlier frame's: the rest of a frame were paced out after it, so their transit would
// count the sender's pacing as delay; they are the frame's (frameRest), late when it is. A
// frame whose timestamp goes back (B-frames, whose timestamps are presentation times; a
// timestamp stepping back) was sent after a frame presented later, so its timestamp says
// nothing of when it left: left out. A packet that arrives out of sequence order
// (reordered, late) is a sample of its own, unless it belongs to the newest frame, whose
// sample was taken, or to the frame whose first packet to come came so, whatever their
// order: a frame held back whole (a late frame of three packets) is one sample, as a frame
// in order is, not one per packet with the sender's pacing in all but the first (h152: 108
// samples for 100 frames, p95 122 ms where 4 frames of 100 came 120 ms late; h157: its
// packets reordered among themselves too). A duplicate is none (Stream.duplicateTiming).
func (d *delayStats) frameOf(ts int64, seq uint16, media bool) frameRole {
	if !media {
		d.skippedPayload++
		return frameSkip
	}
	if d.seqSet && int16(seq-d.hiSeq) <= 0 {
		l := &d.reordered
		switch {
		case ts == d.maxTS:
			return frameRest
		case l.set && ts == l.ts && int16(seq-l.seq) < maxFramePackets && int16(l.seq-seq) < maxFramePackets:
			return frameReorderedRest
		}
		l.ts, l.seq, l.set, l.fresh = ts, seq, true, true
		return frameOwn
	}
	d.hiSeq, d.seqSet = seq, true
	role := frameStart
	switch {
	case !d.tsSet || ts > d.maxTS:
		d.maxTS, d.tsSet = ts, true
	case ts == d.maxTS:
		role = frameRest
	default:
		role = frameSkip
		if ts != d.lastTS {
			d.nonMonotonic++
		}
	}
	d.lastTS = ts
	return role
}

// sample adds one packet, in arrival order: at its arrival, ts its unwrapped RTP timestamp,
// seq its sequence number, media false for an event or comfort noise payload, astV its
// abs-send-time when astOK, hd what TCP held it up with (hold), sec its second in the
// series (-1: outside). A packet with no send time (no reference, or abs-send-time missing
// on it) is no sample, nor is one that frameStart leaves out.
func (d *delayStats) sample(at, ts int64, seq uint16, media bool, astV uint32, astOK bool, hd hold, sec int) {
	var send int64
	role := frameOwn
	switch {
	case d.ast:
		if !astOK {
			return
		}
		send = astToNs(d.astUn.Unwrap(astV))
	case d.clock > 0:
		switch role = d.frameOf(ts, seq, media); role {
		case frameSkip:
			return
		case frameRest, frameReorderedRest:
			idx, held, first := d.frameIdx, d.frameHeld, d.frameAt
			if role == frameReorderedRest {
				idx, held, first = d.reordered.idx, d.reordered.held, d.reordered.at
			}
			if hd > holdNone && (!held || at > first) {
				// TCP held it (a retransmission, a full window), and its frame's first
				// packet came before it, on time or released earlier, and does not speak
				// for its wait (a receiver that stopped reading held frames' last packets
				// 1.3 s; a packet repaired 40 ms after its frame's first, itself held
				// 140 ms): a sample of its own.
				role = frameOwn
				break
			}
			// Its frame's sample waits for its look-ahead (judged later): it speaks for
			// this packet too. Only a bound reached within the frame judged it already.
			if b := &d.base; idx >= b.out {
				if x := b.pending.at(int(idx - b.out)); x.n < 1<<16-1 {
					x.n++
					if hd == holdRetransmission && x.hd != holdRetransmission {
						x.behind++
					}
				}
			}
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
		d.off = d.base.floor() - rel
	}
	rel += d.off
	for d.base.due(at) {
		d.judged(d.base.judge(true))
	}
	d.tcp = d.tcp || hd != holdUDP
	idx := d.base.push(bsample{at: at, rel: rel, sec: int32(sec), hd: hd, n: 1})
	switch {
	case role == frameStart:
		d.frameIdx, d.frameHeld, d.frameAt = idx, hd > holdNone, at
	case d.reordered.fresh:
		d.reordered.idx, d.reordered.held, d.reordered.at, d.reordered.fresh = idx, hd > holdNone, at, false
	}
}

// judged records a sample's delay above its baseline. A sample on RTP timestamps speaks for
// the packets of its frame (p.n): they are late when it is, so late counts are of packets,
// and the percentiles and the samples count are of samples. Their causes are each
// packet's: those behind a retransmission of earlier bytes (p.behind) are head-of-line
// blocked though the frame's first packet waited for its own bytes (a tester's TCP call,
// each lost segment carrying one message, read 23 late by their own retransmission where
// 19 segments were resent), the others take the first packet's cause.
func (d *delayStats) judged(p bsample, delay int64) {
	w := int64(p.n)
	d.all.add(delay)
	d.judgedPk += w
	if delay > d.budget {
		d.latePk += w
		behind := int64(p.behind)
		d.lateHOL += behind
		switch p.hd {
		case holdRetransmission:
			d.lateHOL += w - behind
		case holdRetransmitted:
			d.lateOwn += w - behind
		case holdWindow:
			d.lateWin += w - behind
		}
	}
	for i := 0; i < len(lateThresholds) && delay > lateThresholds[i].ns; i++ {
		d.over[i] += w // the thresholds ascend: most samples stop at the first
	}
	if p.sec >= 0 {
		d.second(int(p.sec), delay, w, delay > d.budget)
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

// second puts a sample's delay in second i's record, with the n packets it speaks for,
// late or not.
func (d *delayStats) second(i int, rel, n int64, late bool) {
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
	c.n++
	if late {
		c.late += n
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

// lateAt returns second i's count of late packets.
func (d *delayStats) lateAt(i int) int64 {
	if c := d.at(i); c != nil {
		return c.late
	}
	return 0
}

// baseline is the smallest transit (rel), and maxAbove the largest delay above it.
func (d *delayStats) baseline() int64 { return d.all.minRel }
func (d *delayStats) maxAbove() int64 { return d.all.maxRel - d.all.minRel }

// measured says whether the samples measure a delay: two at least. One sample is its own
// baseline, 0 above it whatever happened: a PCMU stream whose timestamp never advanced,
// one frame of 50 packets, read "late 0 (0%)" where nothing was measured (a tester's).
func (d *delayStats) measured() bool { return d.all.n >= 2 }

// summary is the report's delay_ms and late, of a stream of packets packets; both nil
// unless measured.
func (d *delayStats) summary(packets int64) (*report.Delay, *report.Late) {
	if !d.measured() {
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
	return delay, d.late(packets)
}

// late counts the packets late against the budget and each of lateThresholds, pct being
// their share of the stream's packets (DESIGN's example: 212 late of 23,000 packets is
// 0.92%); nil without a sample. The packets no sample speaks for (B-frames, RFC 4733
// events, comfort noise) are counted as not late: nothing says they were. Each sample's
// delay is final when it is judged (its baseline known), so the counts are kept as the
// samples are judged.
func (d *delayStats) late(packets int64) *report.Late {
	if !d.measured() {
		return nil
	}
	l := &report.Late{
		BudgetMS:   ms(d.budget),
		Packets:    d.latePk,
		Pct:        numfmt.Round(100*float64(d.latePk)/float64(max(packets, d.judgedPk)), 3),
		HOLBlocked: d.lateHOL,
		OverMS:     make(map[string]int64, len(lateThresholds)),
	}
	for i, th := range lateThresholds {
		l.OverMS[th.key] = d.over[i]
	}
	if d.tcp {
		retx := d.lateHOL + d.lateOwn
		l.Causes = &report.LateCauses{Retransmission: retx, Window: d.lateWin, Backlog: d.latePk - retx - d.lateWin}
	}
	return l
}
