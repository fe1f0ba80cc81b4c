package rtpflow

import "math"

// Jitter is the interarrival jitter estimator of RFC 3550 A.8, fed in arrival order
// (for TCP: delivery order, at delivery time). Every packet after the first updates J:
//
//	D(i-1,i) = (R_i - R_{i-1}) - (S_i - S_{i-1})   in timestamp units
//	J += (|D(i-1,i)| - J) / 16
//
// Arrival times are converted to timestamp units with the stream's clock rate in floating
// point (the RFC's integer arithmetic is a convenience for C; the value is the same to
// within a timestamp unit's fraction). Mean is the mean of J over those updates.
type Jitter struct {
	clock       float64
	at0         int64
	prevTransit float64
	j, sum, max float64
	n           int64
	started     bool
	rebased     bool // the next packet starts a new timestamp reference (rebase)
}

// NewJitter returns an estimator for a stream with the given clock rate (Hz).
func NewJitter(clock int) Jitter { return Jitter{clock: float64(clock)} }

// Update adds a packet that arrived at (ns) with extended RTP timestamp ts.
func (j *Jitter) Update(at, ts int64) {
	if !j.started {
		j.started = true
		j.at0 = at
		j.prevTransit = -float64(ts)
		return
	}
	transit := float64(at-j.at0)*j.clock/1e9 - float64(ts)
	if j.rebased {
		j.rebased = false
		j.prevTransit = transit
		return
	}
	d := math.Abs(transit - j.prevTransit)
	j.prevTransit = transit
	j.j += (d - j.j) / 16
	j.sum += j.j
	j.n++
	if j.j > j.max {
		j.max = j.j
	}
}

// rebase makes the next packet a new reference, as the first one is: its timestamp is on
// another base (a sender restarted its timestamps), so its difference D to the packet
// before says nothing of the network. J keeps its value.
func (j *Jitter) rebase() { j.rebased = j.started }

// setClock moves the estimator to another clock rate, in which the timestamps of the
// packets after now run (a codec change on the SSRC): J and its statistics are rescaled to
// the new units, and the next packet is a new reference.
func (j *Jitter) setClock(clock int) {
	if j.clock > 0 {
		k := float64(clock) / j.clock
		j.j, j.sum, j.max = j.j*k, j.sum*k, j.max*k
	}
	j.clock = float64(clock)
	j.rebase()
}

// MS returns mean, max and last J in milliseconds; ok is false before the first update.
func (j *Jitter) MS() (mean, max, last float64, ok bool) {
	if j.n == 0 || j.clock <= 0 {
		return 0, 0, 0, false
	}
	k := 1000 / j.clock
	return j.sum / float64(j.n) * k, j.max * k, j.j * k, true
}
