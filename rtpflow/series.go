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
	// MaxSeriesCells bounds the seconds of every stream's series together (and so their
	// delays' seconds, and the directions' series built from them), about 100 bytes each
	// while the capture is read: a tester's 2.3 MB capture of 500 streams, each with a packet
	// every 1,000 s for 20,000 s, took 6.6 GB and wrote 1.5 GB of JSON. 2^20 is 4 streams
	// for 6 hours a dozen times over, or 1,000 streams for 17 minutes; a series that would
	// pass it stops there (the totals still count its packets), with a warning.
	MaxSeriesCells = 1 << 20
)

// seriesBudget is what the tracker's streams' series may still take of MaxSeriesCells, and
// what stopped them (SeriesCounts).
type seriesBudget struct {
	left int64
	SeriesCounts
}

// SeriesCounts count the streams whose series stopped before their last packet: at the
// capture's bound on series (Cut), at maxSeriesSeconds (Capped), at a jump of more than
// seriesBreakSeconds (Broken).
type SeriesCounts struct {
	Cut, Capped, Broken int64
}

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
	budget  *seriesBudget
	started bool
	broken  bool
	stopped bool  // it stopped short (broken, or at a bound): counted once
	gaps    []gap // the latest, at most maxGaps, oldest first
}

// gap is the numbers lo to hi (extended) that a packet showed missing, counted lost in
// second sec; left of them not yet filled.
type gap struct {
	lo, hi    int64
	sec, left int32
}

// start anchors the series: origin is the direction's grid, at the stream's first packet
// in it; its seconds are taken from budget.
func (sr *series) start(origin, at int64, budget *seriesBudget) {
	sr.origin, sr.started, sr.budget = origin, true, budget
	sr.base = floorDiv(at-origin, 1e9)
}

// stop counts the series as stopped short by what *n counts, once.
func (sr *series) stop(n *int64) int {
	if !sr.stopped {
		sr.stopped = true
		*n++
	}
	return -1
}

// index returns the index of the second holding arrival time at, extending the series, or
// -1 when at is outside it: beyond maxSeriesSeconds or the budget, or after a break (a jump
// of more than seriesBreakSeconds past the last second, as in files merged from captures
// taken far apart). A time before the stream's first second (unsorted input) is put in its
// first second. Asking again for a time asked before changes nothing.
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
		return sr.stop(&sr.budget.Broken)
	}
	if i >= maxSeriesSeconds {
		return sr.stop(&sr.budget.Capped)
	}
	n := len(sr.secs)
	grow := i + 1 - int64(n)
	if grow > sr.budget.left {
		sr.broken = true // it stops here, not at the seconds another series leaves
		return sr.stop(&sr.budget.Cut)
	}
	sr.budget.left -= grow
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
