package rtpflow

import (
	"slices"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// DirectionMetrics aggregates a call direction's streams (media and RTX).
type DirectionMetrics struct {
	MediaPackets      int64 // every packet of the media (non-RTX) streams, duplicates included
	MediaPayloadBytes int64 // payload of non-duplicate packets of the media streams
	Loss              report.Loss
	Late              *report.Late
	Delay             *report.Delay
	Ramp              *report.Ramp
	Series            report.Series
	SeriesT0Ns        int64 // the start of Series' first second (Series.T0S), in capture time
	// FirstNs and LastNs are the first and last arrival of the media streams (of all when
	// none), leaving out the padding-only packets before and after their media.
	FirstNs, LastNs int64
	GoodputKbps     *float64
	Wire            WireTotals
	// Unmeasured says why FirstNs..LastNs cannot measure a rate (RateSpan), for a warning;
	// "" when it can.
	Unmeasured string
	spanned    int64 // the packets FirstNs..LastNs spans
}

// Kbps is bytes over the direction's active time (LastNs − FirstNs), or nil when that time
// cannot measure a rate (Unmeasured): the goodput, and the caller's wire rate, decided alike.
func (dm *DirectionMetrics) Kbps(bytes int64) *float64 {
	if dm.Unmeasured != "" {
		return nil
	}
	return Kbps(bytes, dm.spanned, dm.LastNs-dm.FirstNs)
}

// Direction aggregates streams (all from this tracker) into one call direction; t0 is the
// capture's first packet time. Definitions:
//
//   - loss, late and delay are over the media streams (an RTX stream's baseline is its
//     fastest retransmission, and its sequence numbers say nothing about loss); late and
//     delay count each packet against its own stream's baseline; delay percentiles come
//     from the merged stream distributions, max is exact;
//   - series run in 1-second steps from the direction's first media packet (Series.T0S,
//     the grid every stream of the direction shares), for as many seconds as the
//     longest stream's series (at most 6 hours). media_kbps is the payload of non-duplicate
//     packets of media streams; rtx_kbps the payload of RTX streams plus all padding;
//     wire_kbps the m.Wire.Total of every stream's messages (the caller adds what the
//     direction's legs carried besides, and fills retransmitted_kbps, which is TCP's and
//     held by tcpframe: zero here); lost and late are media packets; delay_p50_ms is the
//     packet-weighted median of the media streams' per-second medians (exact with one media
//     stream in that second) and delay_max_ms the exact maximum;
//   - goodput is MediaPayloadBytes over LastNs − FirstNs, null (with Unmeasured saying
//     why) when RateSpan says the packets of the media streams span too little time;
//   - the ramp is Ramp(media_kbps, Config.RampTargetKbps) over the seconds of the active
//     time, up to the one of LastNs (RTX that came after the last media packet may extend
//     the series by a second of no media), nil when goodput is.
func (t *Tracker) Direction(streams []*Stream, t0 int64) DirectionMetrics {
	var dm DirectionMetrics
	var media []*Stream
	for _, s := range streams {
		s.finish()
		dm.Wire.add(s.Wire())
		if s.IsMedia() && !s.auxiliary() {
			media = append(media, s)
		}
	}
	// The active time is the span of the streams that carried a media packet: one of
	// padding only (probes on an SSRC no signalling names RTX) neither begins nor ends it
	// (h157: 5.98 s where the video ran 3.98 s). Without any, of the media streams, else
	// of all.
	var timed []*Stream
	for _, s := range media {
		if s.mediaAt != 0 {
			timed = append(timed, s)
		}
	}
	if len(timed) == 0 {
		timed = media
	}
	if len(timed) == 0 {
		timed = streams
	}
	for i, s := range timed {
		dm.spanned += s.packets
		first, last := s.firstAt, s.lastAt
		if s.mediaAt != 0 { // after its probes, as the series, and before padding sent after it
			first, last = s.mediaAt, s.mediaLastAt
		}
		if i == 0 || first < dm.FirstNs {
			dm.FirstNs = first
		}
		if i == 0 || last > dm.LastNs {
			dm.LastNs = last
		}
	}

	var late report.Late
	// samples are the delay samples (on RTP timestamps, one a frame). Late counts are of
	// packets, so the share late is of the packets of the streams with a delay, as a
	// stream's is of its packets (delayStats.late), not of the samples.
	var samples, timedPk, lateN int64
	var maxDelay int64 = -1
	var segs []seg
	for _, s := range media {
		dm.MediaPackets += s.packets
		dm.MediaPayloadBytes += s.untagged(s.wire.MediaPayloadBytes, s.wire.Packets)
		dm.Loss.Expected += s.seq.expected()
		dm.Loss.Lost += s.seq.lost()
		if s.rtx.hasRTX {
			dm.Loss.RecoveredByRTX += s.seq.recovered
		}
		if !s.delayCounted() {
			continue
		}
		samples += s.delay.all.n
		timedPk += max(s.packets, s.delay.judgedPk)
		segs = s.delay.all.segments(segs)
		maxDelay = max(maxDelay, s.delay.maxAbove())
		l := s.delay.late(s.packets)
		lateN += l.Packets
		late.HOLBlocked += l.HOLBlocked
		if c := l.Causes; c != nil {
			if late.Causes == nil {
				late.Causes = &report.LateCauses{}
			}
			late.Causes.Retransmission += c.Retransmission
			late.Causes.Window += c.Window
			late.Causes.Backlog += c.Backlog
		}
		if late.OverMS == nil {
			late.OverMS = make(map[string]int64, len(lateThresholds))
		}
		for k, v := range l.OverMS {
			late.OverMS[k] += v
		}
	}
	if dm.Loss.Expected > 0 {
		dm.Loss.Pct = ptr(numfmt.Round(100*float64(dm.Loss.Lost)/float64(dm.Loss.Expected), 3))
	}
	if samples > 0 {
		late.BudgetMS = ms(t.budget)
		late.Packets = lateN
		late.Pct = numfmt.Round(100*float64(lateN)/float64(timedPk), 3)
		dm.Late = &late
		q := quantiles(segs, samples, 50, 95, 99)
		dm.Delay = &report.Delay{Samples: samples, Min: 0,
			P50: ms(min(int64(q[0]), maxDelay)), P95: ms(min(int64(q[1]), maxDelay)),
			P99: ms(min(int64(q[2]), maxDelay)), Max: ms(maxDelay)}
	}
	if ok, why := RateSpan(dm.spanned, dm.LastNs-dm.FirstNs); !ok {
		dm.Unmeasured = why
	}
	dm.GoodputKbps = dm.Kbps(dm.MediaPayloadBytes)
	dm.Series, dm.SeriesT0Ns = t.series(streams, timed, t0)
	if dm.Unmeasured == "" {
		// The plateau and the moving averages are rates too: over packets that span no
		// time, the series holds one meaningless second.
		last := floorDiv(dm.LastNs-dm.SeriesT0Ns, 1e9) // the second of the last media packet
		active := min(int64(len(dm.Series.MediaKbps)), last+1)
		if covered := dm.LastNs - dm.SeriesT0Ns - last*1e9; active >= 1 && active == last+1 && covered < partialSecond {
			// The media ended early in its last second: what that second holds is no
			// per-second rate (DESIGN: stability and cv_after_t90 are of the per-second
			// bitrate), and a steady stream read unstable for it. Media of less than
			// partialSecond in all has no second to ramp over: no ramp (40 ms of audio read
			// a plateau of 3.84 kbps beside a goodput of 96).
			active--
		}
		dm.Ramp = Ramp(dm.Series.MediaKbps[:max(active, 0)], t.cfg.RampTargetKbps)
	}
	return dm
}

// delayCounted says whether the stream's delay and lateness count in its direction's: it
// has a delay measured, over packets that span enough time to be a rate (RateSpan).
func (s *Stream) delayCounted() bool {
	timed, _ := s.RateSpan()
	return s.delay.measured() && timed
}

// partialSecond: a last second whose media ended before this much of it is partial, left
// out of the ramp. 0.9 s keeps a full second of packets 20 ms or 33 ms apart (its last
// packet 0.98 s or 0.967 s in).
const partialSecond = 900 * 1e6

func (t *Tracker) series(streams, timed []*Stream, t0 int64) (report.Series, int64) {
	sr := report.Series{StepS: 1}
	// A stream whose packets were all probes before the direction's first media packet has
	// no series.
	unstarted := func(s *Stream) bool { return !s.series.started }
	streams = slices.DeleteFunc(slices.Clone(streams), unstarted)
	timed = slices.DeleteFunc(slices.Clone(timed), unstarted)
	if len(timed) == 0 {
		return sr, 0
	}
	base := timed[0].series.base
	for _, s := range timed {
		base = min(base, s.series.base)
	}
	end := base
	for _, s := range streams {
		end = max(end, s.series.base+int64(len(s.series.secs)))
	}
	n := int(min(end-base, maxSeriesSeconds))
	sr.T0S = numfmt.Round(float64(timed[0].series.origin+base*1e9-t0)/1e9, 6)
	media := make([]float64, n)
	rtx := make([]float64, n)
	wire := make([]float64, n)
	retr := make([]float64, n)
	sr.Lost = make([]int64, n)
	sr.Late = make([]*int64, n)
	lateN := make([]int64, n) // what sr.Late points into, in one allocation
	sr.DelayP50MS = make([]*float64, n)
	sr.DelayMaxMS = make([]*float64, n)
	type med struct{ v, w int64 }
	meds := make([][]med, n)
	dmax := make([]int64, n)
	for _, s := range streams {
		off := s.series.base - base
		delayed := s.delayCounted()
		isMedia, aux := s.IsMedia(), s.auxiliary() // looked up once: kind asks the SDP's hints
		for i := range s.series.secs {
			j := off + int64(i)
			if j < 0 || j >= int64(n) {
				continue
			}
			c := &s.series.secs[i]
			wire[j] += float64(c.wire)
			switch {
			case !isMedia:
				rtx[j] += float64(c.payload + c.padding)
				continue
			case aux: // its payload is no media, nor RTX
				rtx[j] += float64(c.padding)
				continue
			}
			media[j] += float64(s.untagged(c.payload, c.packets))
			rtx[j] += float64(c.padding)
			sr.Lost[j] += c.lost
			d := s.delay.at(i)
			if d == nil || !delayed {
				continue
			}
			if sr.Late[j] == nil {
				sr.Late[j] = &lateN[j]
			}
			*sr.Late[j] += s.delay.lateAt(i)
			m := d.med
			if !d.medSet {
				m = d.max
			}
			meds[j] = append(meds[j], med{m - s.delay.baseline(), d.n})
			if d := d.max - s.delay.baseline(); sr.DelayMaxMS[j] == nil || d > dmax[j] {
				dmax[j] = d
				sr.DelayMaxMS[j] = ptr(ms(d))
			}
		}
	}
	for j := range meds {
		m := meds[j]
		if len(m) == 0 {
			continue
		}
		slices.SortFunc(m, func(a, b med) int { return int(min(max(a.v-b.v, -1), 1)) })
		var tot, acc int64
		for _, x := range m {
			tot += x.w
		}
		for _, x := range m {
			acc += x.w
			if 2*acc >= tot {
				sr.DelayP50MS[j] = ptr(ms(x.v))
				break
			}
		}
	}
	kbps := func(v []float64) []float64 {
		for i := range v {
			v[i] = numfmt.Round(v[i]*8/1000, 3)
		}
		return v
	}
	sr.MediaKbps, sr.RTXKbps, sr.WireKbps, sr.RetransmittedKbps = kbps(media), kbps(rtx), kbps(wire), kbps(retr)
	return sr, timed[0].series.origin + base*1e9
}
