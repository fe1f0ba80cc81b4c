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
	// from when its gap is no longer known (maxGaps).
	lossTakeBack = 60
	// maxGaps is how many of its latest gaps a series remembers, with the second each was
	// counted in, for the late packets that fill them.
	maxGaps = 64
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
	gaps    []gap // the latest, at most maxGaps, oldest first
}

// gap is the numbers lo to hi (extended) that a packet showed missing, counted lost in
// second sec; left of them not yet filled.
type gap struct {
	lo, hi    int64
	sec, left int32
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
// it filled a gap, takes one loss back from the second that gap was counted in: losses are
// counted when a gap is seen, and a gap that a late packet fills was no loss. A gap no
// longer remembered takes it back from the latest second that has one, within the last
// lossTakeBack seconds. (It took it from there always: a packet 300 ms late whose gap was
// counted in second 0 took back second 1's loss, of a packet lost later.)
func (sr *series) loss(i int, ev seqEvent) {
	if ev.restart {
		sr.gaps = sr.gaps[:0] // new numbers
	}
	if ev.lost > 0 && i >= 0 {
		sr.secs[i].lost += ev.lost
		g := gap{lo: ev.ext - ev.lost, hi: ev.ext - 1, sec: int32(i), left: int32(min(ev.lost, 1<<30))}
		if ev.below {
			g.lo, g.hi = ev.ext+1, ev.ext+ev.lost
		}
		if len(sr.gaps) == maxGaps {
			sr.gaps = append(sr.gaps[:0], sr.gaps[1:]...)
		}
		sr.gaps = append(sr.gaps, g)
	}
	if ev.filled {
		sr.takeBack(ev.ext)
	}
}

// takeBack takes back the loss of number ext, which a late packet filled.
func (sr *series) takeBack(ext int64) {
	for k := len(sr.gaps) - 1; k >= 0; k-- {
		if g := &sr.gaps[k]; g.lo <= ext && ext <= g.hi && g.left > 0 {
			g.left--
			if c := &sr.secs[g.sec]; c.lost > 0 {
				c.lost--
				return
			}
			break
		}
	}
	for j := len(sr.secs) - 1; j >= 0 && j >= len(sr.secs)-lossTakeBack; j-- {
		if sr.secs[j].lost > 0 {
			sr.secs[j].lost--
			return
		}
	}
}
