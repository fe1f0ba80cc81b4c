package rtpflow

import "slices"

// Series bounds. Series run on a 1-second grid anchored at the first media packet of their
// call direction; a stream's series starts at the grid second of its first packet.
const (
	// maxSeriesSeconds caps a series at 6 hours: later seconds are left out of the series
	// (the totals still count them).
	maxSeriesSeconds = 6 * 3600
	// seriesBreakSeconds: a jump of more than an hour past the last second is a break,
	// not an hour of empty seconds; the series stops there.
	seriesBreakSeconds = 3600
	// lossTakeBack is how many of the latest seconds a late packet may take a loss back
	// from.
	lossTakeBack = 60
)

// second is one second of a stream's series: bytes and losses. Its delays are in the
// stream's delayStats, under the same index.
type second struct {
	payload, padding int64 // of non-duplicate packets
	packets          int64 // non-duplicate packets, for the SRTP tags in payload (Stream.untagged)
	wire             int64 // m.Wire.Total
	lost             int64
}

// series is a stream's 1-second series on its direction's grid. It starts with the
// stream's first packet once the direction has its first media packet: the probes sent
// before are in no second.
type series struct {
	origin  int64 // the direction's first media packet: the grid, shared by its streams
	base    int64 // grid second of the stream's first packet in the series: secs[0]
	secs    []second
	started bool
	broken  bool
}

// start anchors the series: origin is the direction's grid, at the stream's first packet
// in it.
func (sr *series) start(origin, at int64) {
	sr.origin, sr.started = origin, true
	sr.base = floorDiv(at-origin, 1e9)
}

// index returns the index of the second holding arrival time at, extending the series, or
// -1 when at is outside it: beyond maxSeriesSeconds, or after a break (a jump of more than
// seriesBreakSeconds past the last second, as in files merged from captures taken far
// apart). A time before the stream's first second (unsorted input) is put in its first
// second. Asking again for a time asked before changes nothing.
func (sr *series) index(at int64) int {
	if sr.broken || !sr.started {
		return -1
	}
	i := floorDiv(at-sr.origin, 1e9) - sr.base
	if i < 0 {
		i = 0
	}
	if i < int64(len(sr.secs)) {
		return int(i)
	}
	if len(sr.secs) > 0 && i-int64(len(sr.secs)) > seriesBreakSeconds {
		sr.broken = true
		return -1
	}
	if i >= maxSeriesSeconds {
		return -1
	}
	n := len(sr.secs)
	sr.secs = slices.Grow(sr.secs, int(i)+1-n)[:i+1]
	clear(sr.secs[n:])
	return int(i)
}

// at returns second i, or nil for -1.
func (sr *series) at(i int) *second {
	if i < 0 {
		return nil
	}
	return &sr.secs[i]
}

// loss puts the losses a packet showed in its second i (none outside the series), and when
// it filled a gap, takes one loss back from the latest second that has one, within the
// last lossTakeBack seconds: losses are counted when a gap is seen, and a gap that a late
// packet fills was no loss.
func (sr *series) loss(i int, ev seqEvent) {
	if ev.lost > 0 && i >= 0 {
		sr.secs[i].lost += ev.lost
	}
	if !ev.filled {
		return
	}
	for j := len(sr.secs) - 1; j >= 0 && j >= len(sr.secs)-lossTakeBack; j-- {
		if sr.secs[j].lost > 0 {
			sr.secs[j].lost--
			return
		}
	}
}
