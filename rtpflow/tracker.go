package rtpflow

import (
	"cmp"
	"net/netip"
	"slices"
	"time"

	"github.com/callpcap/callpcap/report"
)

// Config sets the tracker's thresholds and bounds; the zero value means the defaults.
type Config struct {
	LateBudget     time.Duration // a packet more than this above its stream's baseline is late; 0 → report.DefaultLateBudget
	MinPackets     int           // fewest packets a stream needs to qualify; 0 → report.DefaultMinPackets
	RampTargetKbps float64       // bitrate the ramp is measured against; 0 → the plateau
	MaxStreams     int           // candidate streams tracked at once; 0 → 10000
}

const (
	defaultMaxStreams = 10000
)

// lateThresholds are the extra late counts reported beside the budget (report.Late.OverMS),
// in ascending order: delayStats.judged stops at the first a delay does not exceed.
var lateThresholds = [...]struct {
	key string
	ns  int64
}{{"50", 50e6}, {"100", 100e6}, {"200", 200e6}, {"400", 400e6}, {"1000", 1000e6}}

// Path is where a stream travelled: an opaque leg number chosen by the caller and the
// call-level endpoints (for TURN: client and peer).
type Path struct {
	Leg      int
	Src, Dst netip.AddrPort
}

type streamKey struct {
	path Path
	ssrc uint32
}

// senderKey is one sender on one leg: the scope in which an RTX stream is matched to its
// media stream.
type senderKey struct {
	leg int
	src netip.AddrPort
}

// MaxSenderStreams bounds how many streams of one sender on one leg are searched for RTX
// matching: an SFU forwards every participant's audio, video and RTX on one bundle (60
// streams for 20 participants, where 32 left 8 RTX streams unmatched and their payload
// counted as media: h158). A stream beyond it is counted (Counts.Unsearched).
const MaxSenderStreams = 512

type sender struct {
	streams []*Stream
}

// Tracker follows the RTP streams and the RTCP of one capture. It is not safe for
// concurrent use.
type Tracker struct {
	cfg     Config
	budget  int64 // ns
	span    int64 // the exact delay window, ns
	streams map[streamKey]*Stream
	order   []*Stream
	last    *Stream
	recent  [1 << recentBits]*Stream // streams found last, by a hash of SSRC and leg
	senders map[senderKey]*sender
	twcc    map[senderKey]*twccState // a sender's packets on one leg: at a TURN server each leg carries its own copy
	rtcp    rtcpTracker
	origins map[[2]netip.AddrPort]int64 // first media packet of each call direction: its series grid

	untracked int64 // packets of streams beyond MaxStreams
	// dropped sums, by path, the messages of candidates evicted without qualifying and of
	// packets beyond MaxStreams (Unreported); at most MaxStreams paths.
	dropped   map[Path]*Carried
	lastSweep int64
	sweepDebt int
	evicted   int64
	// unsearched counts the streams beyond MaxSenderStreams of their sender.
	unsearched int64

	seriesLeft seriesBudget // what the streams' series may still take (MaxSeriesCells)

	hints hintTable // what SDP said about payload types (Hint)

	nacks map[Path]*nackLedger // NACK credits by media path, for RTX matched by timestamps
}

// NewTracker returns a tracker with cfg's zero fields set to their defaults.
func NewTracker(cfg Config) *Tracker {
	if cfg.LateBudget <= 0 {
		cfg.LateBudget = report.DefaultLateBudget
	}
	if cfg.MinPackets <= 0 {
		cfg.MinPackets = report.DefaultMinPackets
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = defaultMaxStreams
	}
	if cfg.RampTargetKbps < 0 {
		cfg.RampTargetKbps = 0
	}
	t := &Tracker{
		cfg:     cfg,
		budget:  int64(cfg.LateBudget),
		streams: make(map[streamKey]*Stream),
		senders: make(map[senderKey]*sender),
		twcc:    make(map[senderKey]*twccState),
		origins: make(map[[2]netip.AddrPort]int64),
	}
	t.seriesLeft.left = MaxSeriesCells
	t.span = max(t.budget, lateThresholds[len(lateThresholds)-1].ns) + 10*binWidth
	t.rtcp.init(cfg.MaxStreams)
	return t
}

// directionOrigin returns the time of the first media packet of the call direction of p
// (DESIGN: "1-second series from the direction's first media packet"): at, if this is it
// and anchors; false while there is none and the packet at at does not anchor: a packet of
// padding only, a bandwidth probe, or of a stream signalling names RTX, is no media packet
// (libwebrtc probes on its RTX stream before its video starts). Over SRTP without the SDP
// neither is known (Packet.paddingOnly), and such a probe anchors.
func (t *Tracker) directionOrigin(p Path, at int64, anchors bool) (int64, bool) {
	k := [2]netip.AddrPort{p.Src, p.Dst}
	if o, ok := t.origins[k]; ok {
		return o, true
	}
	if !anchors {
		return 0, false
	}
	if len(t.origins) < t.cfg.MaxStreams {
		t.origins[k] = at
	}
	return at, true
}

// RTP accounts one RTP packet (PacketOf). It allocates nothing once the stream is known.
func (t *Tracker) RTP(pk *Packet) {
	s := t.last
	if s == nil || s.ssrc != pk.SSRC || s.path != pk.Path {
		s = t.lookup(pk.Path, pk.SSRC, pk.Delivered)
		if s == nil {
			t.untracked++
			if w := t.droppedOn(pk.Path); w != nil {
				w.addPacket(pk)
			}
			return
		}
		t.last = s
	}
	s.add(pk)
}

// lookup finds or creates the stream; nil when the candidate table is full.
func (t *Tracker) lookup(p Path, ssrc uint32, at int64) *Stream {
	// Streams interleave packet by packet (a server's capture, hundreds of them): the ones
	// found last are cached by SSRC and leg before the map, whose key (a Path and the SSRC)
	// takes longer to hash than the rest of the packet's accounting.
	slot := &t.recent[(uint64(ssrc)^uint64(p.Leg)<<32)*0x9E3779B97F4A7C15>>(64-recentBits)]
	if s := *slot; s != nil && s.ssrc == ssrc && s.path == p && !s.evicted {
		return s
	}
	k := streamKey{p, ssrc}
	if s, ok := t.streams[k]; ok {
		*slot = s
		return s
	}
	if len(t.streams) >= t.cfg.MaxStreams && !t.sweep(at) {
		return nil
	}
	sk := senderKey{p.Leg, p.Src}
	snd := t.senders[sk]
	if snd == nil {
		snd = &sender{}
		t.senders[sk] = snd
	}
	tw := t.twcc[sk]
	if tw == nil {
		tw = &twccState{}
		t.twcc[sk] = tw
	}
	s := newStream(t, p, ssrc, snd, tw)
	t.streams[k] = s
	t.order = append(t.order, s)
	if len(snd.streams) < MaxSenderStreams {
		snd.streams = append(snd.streams, s)
	} else {
		t.unsearched++
	}
	*slot = s
	return s
}

// recentBits sizes the cache of streams found last (Tracker.lookup).
const recentBits = 10

// Eviction: candidates that have not qualified are dropped when the table is full, first
// those idle for idleEvict, or that had their chance (MinPackets packets) and failed, and
// if that frees nothing, single-packet candidates (random payloads that looked like RTP).
// A likely RTX stream still voting (rtxMatcher.pending) is spared: pion's repairs come
// seconds apart, and its numbers fail the stream rule.
// A sweep walks the whole table, so it runs at most once per second of capture time unless
// a quarter of the table's size in new candidates was refused since the last one.
const idleEvict = int64(2 * time.Second)

func (t *Tracker) sweep(at int64) bool {
	t.sweepDebt++
	if at-t.lastSweep < int64(time.Second) && t.sweepDebt < t.cfg.MaxStreams/4+1 {
		return false
	}
	t.lastSweep, t.sweepDebt = at, 0
	evict := func(pred func(*Stream) bool) int {
		n := 0
		for k, s := range t.streams {
			if !s.qualifies() && !s.rtx.pending() && pred(s) {
				delete(t.streams, k)
				if w := t.droppedOn(s.path); w != nil {
					w.add(s.wire.Carried)
				}
				t.hints.forget(s)
				s.evicted = true
				n++
			}
		}
		return n
	}
	n := evict(func(s *Stream) bool {
		return at-s.lastAt > idleEvict || s.packets >= int64(t.cfg.MinPackets)
	})
	if n == 0 {
		// The newest quarter of the table's single-packet candidates, not all: when more
		// streams are in progress than the table holds, each SSRC's second packet comes
		// after many others' first, and a sweep of them all left none to get one (a
		// tester's 16,000 interleaved SSRCs gave no stream at all); nor does a sweep of the
		// oldest, whose turn comes round first. The older ones keep their place, get a
		// second packet, are spared from then on, and qualify; a single packet of junk
		// goes when idle (idleEvict) if not before.
		var singles []*Stream
		for _, s := range t.streams {
			if s.packets <= 1 {
				singles = append(singles, s)
			}
		}
		if keep := len(singles) - max(1, t.cfg.MaxStreams/4); keep > 0 {
			slices.SortFunc(singles, func(a, b *Stream) int { return cmp.Compare(a.lastAt, b.lastAt) })
			spare := make(map[*Stream]bool, keep)
			for _, s := range singles[:keep] {
				spare[s] = true
			}
			n = evict(func(s *Stream) bool { return s.packets <= 1 && !spare[s] })
		} else {
			n = evict(func(s *Stream) bool { return s.packets <= 1 })
		}
	}
	if n == 0 {
		return false
	}
	t.evicted += int64(n)
	if t.last != nil && t.last.evicted {
		t.last = nil
	}
	for i, s := range t.recent { // let the evicted streams go
		if s != nil && s.evicted {
			t.recent[i] = nil
		}
	}
	t.order = dropEvicted(t.order)
	for _, snd := range t.senders {
		snd.streams = dropEvicted(snd.streams)
	}
	return true
}

// dropEvicted removes the evicted streams from ss in place, clearing the freed tail so the
// streams can be collected.
func dropEvicted(ss []*Stream) []*Stream {
	live := ss[:0]
	for _, s := range ss {
		if !s.evicted {
			live = append(live, s)
		}
	}
	clear(ss[len(live):])
	return live
}

// droppedOn returns the sums of path p's dropped messages, nil beyond MaxStreams paths.
func (t *Tracker) droppedOn(p Path) *Carried {
	if w, ok := t.dropped[p]; ok {
		return w
	}
	if t.dropped == nil {
		t.dropped = map[Path]*Carried{}
	}
	if len(t.dropped) >= t.cfg.MaxStreams {
		return nil
	}
	w := &Carried{}
	t.dropped[p] = w
	return w
}

// Unreported returns, by path, the sums over the RTP messages that are in no stream of
// Streams: those of SSRCs with too few packets or no continuity to be a stream, evicted or
// not, and those beyond MaxStreams. They carried their path all the same: the caller counts
// their bytes in its wire accounting. Call it after Streams.
func (t *Tracker) Unreported() map[Path]Carried {
	out := make(map[Path]Carried, len(t.dropped))
	for p, w := range t.dropped {
		out[p] = *w
	}
	for _, s := range t.order {
		if !s.evicted && !s.qualifies() {
			w := out[s.path]
			w.add(s.wire.Carried)
			out[s.path] = w
		}
	}
	return out
}

// Counts says what the tracker could not follow, for the caller's warnings.
type Counts struct {
	Untracked int64 // RTP packets of new streams refused because MaxStreams candidates were tracked
	Evicted   int64 // candidate streams dropped without qualifying: evictions, one SSRC perhaps several times
	Series    SeriesCounts
	// Unsearched counts streams beyond MaxSenderStreams of one sender on one leg: not
	// matched as RTX, nor searched for the RTX of others.
	Unsearched int64

	RTCPPackets   int64 // RTCP compound packets counted (readable or encrypted)
	RTCPEncrypted int64 // of which were not plain RTCP (compound): counted from their clear header
	RTCPInvalid   int64 // messages too short, not version 2, or neither RTCP nor SRTCP: not counted
	RTCPDamaged   int64 // plain RTCP damaged part way, on a leg of plain RTCP: read up to the damage
	RTCPSnapped   int64 // of RTCPPackets, cut by the snap length: not read
	// RTCPOtherReporter counts report blocks about a stream from a receiver other than the
	// first that reported on it: not used for its reported loss and jitter.
	RTCPOtherReporter int64
	RTCPUntracked     int64 // reports about (leg, SSRC) pairs beyond MaxStreams
	// RTCPUnattributed counts encrypted NACKs, PLIs and FIRs whose media stream could not
	// be told: their path carried no video stream, or several.
	RTCPUnattributed int64
	// RTCPNoStream counts by type the SRTCP packets whose sender SSRC sent no stream:
	// what they are about is encrypted. Set once Streams has run.
	RTCPNoStream []TypeCount
	// RTCPPlainNoStream counts by type the plain RTCP packets about no stream: naming no
	// SSRC, or SSRCs that sent none. Set once Streams has run.
	RTCPPlainNoStream []TypeCount
}

// Counts returns the tracker's bound counters.
func (t *Tracker) Counts() Counts {
	return Counts{Untracked: t.untracked, Evicted: t.evicted, Series: t.seriesLeft.SeriesCounts, Unsearched: t.unsearched,
		RTCPPackets: t.rtcp.packets, RTCPEncrypted: t.rtcp.encrypted, RTCPInvalid: t.rtcp.invalid, RTCPDamaged: t.rtcp.damaged,
		RTCPSnapped: t.rtcp.snapped, RTCPOtherReporter: t.rtcp.otherReporter,
		RTCPUntracked: t.rtcp.untracked, RTCPUnattributed: t.rtcp.unattributed,
		RTCPNoStream: typeCounts(&t.rtcp.noStream), RTCPPlainNoStream: typeCounts(&t.rtcp.plainNoStream)}
}

// Streams returns the streams that qualify (see Stream.qualifies), in first-seen order,
// with their end-of-capture decisions (clock rate, abs-send-time, RTX) made.
func (t *Tracker) Streams() []*Stream {
	// RTX decisions first, for every candidate: an RTX stream qualifies by its election,
	// not by the stream rule. Recovered counts are kept live, so order does not matter.
	for _, s := range t.order {
		if !s.evicted {
			s.decideRTX(true)
		}
	}
	for _, s := range t.order {
		s.unlinkWeakRTX()
	}
	var out []*Stream
	for _, s := range t.order {
		if s.qualifies() {
			out = append(out, s)
		}
	}
	for _, s := range out {
		s.finish()
	}
	for _, s := range out {
		s.settleAhead() // once its media stream, finished too, has taken its last numbers
	}
	t.attributeFeedback(out)
	t.rtcp.lend(out)
	return out
}
