package rtpflow

import (
	"cmp"
	"slices"
)

// RTX detection (RFC 4588): the payload of a retransmission packet starts with the
// original sequence number (OSN). A stream is the RTX stream of another stream of the same
// sender (same leg and Path.Src) when, of its first rtxVotes payload-bearing packets, at
// least three quarters carry an OSN within [highest−rtxBehind, highest+rtxAhead] of that
// stream's sequence numbers at the time (the original may have been lost, so "received"
// cannot be required), at least half of those OSNs are distinct, and the payload types
// differ. A stream that ends with fewer votes is decided on what it has if it has at least
// 4. Padding-only packets (RTX probes) have no OSN and do not vote, nor do duplicates, nor
// padded packets (the P bit): with SRTP the padding count is encrypted, so a padded packet
// may be padding only, and libwebrtc pads only its probes.
//
// Where the OSNs cannot vote (SRTP: the payload, OSN included, is encrypted, and WebRTC's
// SDP mostly travels over HTTPS or WSS, not in the capture), the timestamps do. An RTX packet carries its
// original's RTP timestamp (RFC 4588, 4), so each vote also names the one stream of the
// sender, of another payload type and not itself RTX, that sent the packet's timestamp
// among its last 64 frames (tsRing), or whose frames around it miss numbers (a frame lost
// whole). The OSN election comes first, so clear payloads decide as they always did; when
// it elects nobody, three quarters of the timestamp votes elect (matched_by timestamp),
// on as few as one at the end of the capture: libwebrtc's RTX streams are mostly padding,
// and a 32-bit timestamp equals one of 64 by chance once in 2^26. A packet whose timestamp
// is in no stream's recent frames but runs behind one stream's last (within tsNear)
// resends an older frame, from before the capture began or from seconds ago (pion resends
// for seconds): such votes count with the others, on at least rtxMinVotes, where a
// quarter of the packets skipped numbers of the stream's own (at least rtxSkip) or went
// back in time while their own numbers went on, which a media stream whose clock merely
// runs behind another's (two clocks started at 0) does not. Network reordering does
// neither: a packet that overtakes others shows a gap of a few numbers, and each one
// overtaken, which goes back in time, fills it (two testers' audio, jittered by up to
// 80 ms with clocks started at 0, was elected RTX of the video: its loss and jitter went
// null). Streams that share one timestamp clock (simulcast layers of some senders) cannot be
// told apart by timestamps: a timestamp near another such stream's votes for none.
//
// The RTX stream's own sequence numbers play no part: pion numbers an RTX packet when it
// buffers the original, so they jump by hundreds between sparse repairs, and an elected
// RTX stream is a stream whatever its continuity (Stream.qualifies).
//
// Signalling comes first: a stream whose SSRC an SDP ssrc-group:FID pair names as the RTX
// side (HintFID), or whose payload type SDP gives an apt= (Hint), is an RTX stream from its
// first payload-bearing packet on, or from the end of the capture if it has none, without a
// vote: the sender said so. It retransmits the stream of the same sender with the FID's
// media SSRC, or else the one stream on its own path whose payload type is the apt (several,
// as in simulcast, name none: the OSNs choose). Until that stream is seen, and while
// signalling says nothing, the OSNs vote as above. A signalled stream's OSNs still vote,
// for a check only: when they elect another stream, the signalling stands (an OSN match is
// an inference, the SDP the sender's declaration, and a stream repairing numbers of another
// stream is more likely a coincidence of numbers than a sender mislabelling its own SSRCs)
// and Stream.RTXDisputed names the stream the OSNs pointed to, for a warning. Signalling
// that comes after the vote decided is not applied. A stream linked by signalling while its
// payload is known to be SRTP (Packet.Encrypted: its flow carried DTLS) has unreadable
// OSNs: its repairs are told by timestamps, as below.
//
// Each RTX packet is a repair or a probe (report.RTX). A repair carries an OSN that the
// media stream wanted when the RTX packet arrived: within its window of numbers (at most
// 65,536 below its highest, not below its lowest, not above its highest) and not received,
// or NACKed by RTCP before (the capture may sit before the loss). Every other RTX packet,
// duplicates aside, is a probe: padding-only, or resending a packet the media stream had,
// as libwebrtc probes bandwidth; probes = packets − duplicates − repairs.
//
// Matched by timestamps, the OSN is unreadable and the frame stands for the packet
// (Stream.repairTS): a payload-bearing, unpadded RTX packet is a repair when its frame in
// the media stream misses a number no RTX packet repaired yet (then recovered, as an OSN
// would have said; a capture after the loss), else when it answers a NACK about its path
// (nackLedger: a capture before the loss); every other packet is a probe. A repair is
// thus exact where each lost packet is resent once and the NACKs are readable; NACKs
// inside compound SRTCP are hidden (only the first packet's header is clear), which makes
// the repairs at a capture before the loss a lower bound.
const (
	// rtxVotes is how many payload-bearing packets decide whether a stream is RTX.
	rtxVotes = 16
	// rtxMinVotes is the fewest votes a stream that ends early is decided on.
	rtxMinVotes = 4
	// rtxMinTSVotes is the fewest timestamp votes, all but a quarter matching, a stream
	// that ends early is elected on: an unrelated stream's 32-bit timestamp equals one of
	// the tsRingLen a stream just sent with a chance of 64 in 2^32, and libwebrtc's RTX
	// streams carry mostly padding (which does not vote): in a short call, one resent
	// packet among a dozen padded probes is all they show.
	rtxMinTSVotes = 1
	// rtxBehind and rtxAhead delimit the original sequence numbers, relative to the media
	// stream's highest, that an RTX packet may carry.
	rtxBehind = 2048
	rtxAhead  = 16
	// rtxAheadHeld is how many OSNs ahead of the media stream's highest number an RTX
	// stream holds for judgement: more than a burst of losses resent at once.
	rtxAheadHeld = 16
)

// holdAhead holds p, placed among the numbers of the media stream m, for judgement when it
// lies at most rtxAhead above m's highest number (and there is room), and reports whether
// it did.
func (r *rtxMatcher) holdAhead(p osnPlace, m *seqStats) bool {
	if m.win == nil || int64(p.seg) != m.restarts || p.ext <= m.highest || p.ext > m.highest+rtxAhead || r.aheadN == rtxAheadHeld {
		return false
	}
	r.ahead[r.aheadN] = p
	r.aheadN++
	return true
}

// rtxMatcher is one stream's side of RTX matching. As a candidate RTX stream it collects
// the votes of its first payload-bearing packets (the sender's stream each OSN fell
// among, found by sender.match) and elects the stream it retransmits; as a media stream it
// records that an RTX stream was matched to it (its recovered packets are counted by its
// seqStats, whose window holds the marks).
type rtxMatcher struct {
	of        *Stream // the media stream this one retransmits, once elected or signalled
	hasRTX    bool    // an RTX stream was matched to this stream
	decided   bool
	signalled bool // of was named by signalling, not elected
	// named: signalling names this an RTX stream (apt=, FID) but no media stream could be
	// told for it (several with the apt payload type, as simulcast layers are): no media
	// stream, its media unknown.
	named     bool
	byTS      bool    // of was elected by timestamps, or signalled while encrypted: the OSNs are unreadable
	encrypted bool    // its payload is known to be encrypted (Packet.Encrypted)
	disputed  *Stream // a signalled RTX stream's OSNs elected this other stream
	n         int
	votes     [rtxVotes]*Stream
	osn       [rtxVotes]uint16
	place     [rtxVotes]osnPlace // where the OSN fell among the numbers of the vote's stream
	wanted    [rtxVotes]bool     // the vote's stream wanted its OSN then: a repair if elected
	tsVotes   [rtxVotes]*Stream  // the one stream that sent the packet's timestamp shortly before
	behind    [rtxVotes]*Stream  // else the one stream whose timestamps run just ahead of it (matchBehind)
	unlike    int                // votes unlike a media stream's packets: numbers skipped before it, or its timestamp went back
	lastTS    uint32             // the last vote's timestamp
	hole      [rtxVotes]int64    // the number of tsVotes' stream the packet repaired (Stream.repairOf), or -1
	credit    [rtxVotes]bool     // the packet took a NACK credit instead
	repairs   int64              // as an RTX stream: packets that were repairs (see above)
	// ahead holds the OSNs of packets that came ahead of the media stream's highest
	// number, judged once it passes them (Stream.settleAhead); aheadN are in use.
	ahead  [rtxAheadHeld]osnPlace
	aheadN int
	nl     *nackLedger // as an RTX stream: the NACK credits of its path, once any
	recent tsRing      // as a media stream: its recent frames
	// sharesTS: its timestamps are another stream's, and its payloads no RTX packet's
	// (osnsVary): FEC, whose timestamps say nothing of which stream sent them first.
	sharesTS bool
}

// pending reports whether the stream is still voting and its OSNs or its timestamps so
// far mostly (three quarters) fall among another stream's: a likely RTX stream, which
// eviction spares however sparse it is.
func (r *rtxMatcher) pending() bool {
	return r.likely(&r.votes) || r.likely(&r.tsVotes)
}

// tsPending is pending on the timestamps alone: a stream that likely resends another's
// timestamps is no media stream to vote for (sender.matchTS). Its OSNs do not say: a
// media stream's payload (zeroed, or encrypted) may read as numbers near another's.
func (r *rtxMatcher) tsPending() bool { return r.likely(&r.tsVotes) }

// likely reports whether the stream is still voting and three quarters of votes so far
// name a stream.
func (r *rtxMatcher) likely(votes *[rtxVotes]*Stream) bool {
	if !r.voting() || r.n == 0 {
		return false
	}
	k := 0
	for _, v := range votes[:r.n] {
		if v != nil {
			k++
		}
	}
	return k*4 >= r.n*3
}

// voting reports whether the matcher still takes votes.
func (r *rtxMatcher) voting() bool { return !r.decided && r.n < rtxVotes }

// vote records one payload-bearing packet's OSN and the stream it matched (nil: none),
// and the stream its timestamp matched with the hole the packet repaired in it or the
// credit it took (Stream.repairOf). It reports whether that was the last vote.
func (r *rtxMatcher) vote(osn uint16, match *Stream, place osnPlace, wanted bool, tsMatch *Stream, hole int64, credit bool, ts uint32, skipped, filled bool, behind *Stream) (full bool) {
	if skipped || !filled && r.n > 0 && int32(ts-r.lastTS) < 0 {
		r.unlike++
	}
	r.lastTS = ts
	r.behind[r.n] = behind
	r.osn[r.n] = osn
	r.place[r.n] = place
	r.votes[r.n] = match
	r.wanted[r.n] = wanted
	r.tsVotes[r.n] = tsMatch
	r.hole[r.n] = hole
	r.credit[r.n] = credit
	r.n++
	return r.n == rtxVotes
}

// rtxSkip is the fewest numbers a packet must skip for its vote to be unlike a media
// stream's: more than network reordering skips (a packet that overtakes three others), as
// pion's RTX numbers, given when it buffers the original, skip dozens.
const rtxSkip = 4

// decide elects the stream that at least three quarters of the OSN votes name, provided
// that at least half of its OSNs are distinct (a stream repeating one number is not
// resending losses) and it is still tracked; else, the OSNs being unreadable (SRTP), the
// stream that three quarters of the timestamp votes name (byTS); nil when none. The OSNs
// come first: where payloads are clear they are the sender's own statement of what it
// resends, and a timestamp is shared by every packet of a frame. It decides once: with
// every vote, or with what there is when final (the end of the capture), at least
// rtxMinVotes.
func (r *rtxMatcher) decide(final bool) (best *Stream, byTS bool) {
	if r.decided || r.n < rtxVotes && !final {
		return nil, false
	}
	r.decided = true
	n := r.n
	if n < rtxMinTSVotes {
		return nil, false
	}
	if best := r.electOSN(); best != nil && n >= rtxMinVotes {
		return best, false
	}
	if !r.osnsVary() {
		if best, k := elect(r.tsVotes[:n]); best != nil && k*4 >= n*3 {
			r.sharesTS = true
		}
		return nil, false
	}
	if best, k := elect(r.tsVotes[:n]); best != nil && k*4 >= n*3 && !best.evicted {
		return best, true
	}
	// Resends of frames older than the recent ones (a capture that began after them, or a
	// sender that resends for seconds, as pion does): timestamps just behind one stream's,
	// where a quarter of the packets skipped numbers of the stream's own or went back in
	// time, as a media stream's first packets do not (pion numbers an RTX packet when it
	// buffers the original: its resends skip dozens).
	var either [rtxVotes]*Stream
	for i := range n {
		either[i] = cmp.Or(r.tsVotes[i], r.behind[i])
	}
	if best, k := elect(either[:n]); best != nil && k*4 >= n*3 && r.unlike*4 >= n && n >= rtxMinVotes && !best.evicted {
		return best, true
	}
	return nil, false
}

// osnsVary reports whether the payloads' first two bytes, where an RTX packet has its OSN,
// differ from packet to packet (at least half distinct, over rtxMinVotes or more votes):
// an RTX stream's OSNs do, read in clear or encrypted. A stream whose payloads start alike
// carries a header of its own there: FEC (RFC 5109, RFC 8627), whose packets may carry the
// timestamps of the media they protect, is no RTX stream however its timestamps vote
// (h137: 145 of 150 FEC streams elected, their repairs credited with packets no RTX
// packet resent).
func (r *rtxMatcher) osnsVary() bool {
	n := r.n
	if n < rtxMinVotes {
		return true
	}
	distinct := 0
	for i := range n {
		if !slices.Contains(r.osn[:i], r.osn[i]) {
			distinct++
		}
	}
	return distinct*2 >= n
}

// electOSN is the OSN election of decide.
func (r *rtxMatcher) electOSN() *Stream {
	n := r.n
	best, bestN := elect(r.votes[:n])
	if best == nil || bestN*4 < n*3 || best.evicted {
		return nil
	}
	distinct := 0
	for i := 0; i < n; i++ {
		if r.votes[i] != best {
			continue
		}
		seen := false
		for j := 0; j < i; j++ {
			if r.votes[j] == best && r.osn[j] == r.osn[i] {
				seen = true
				break
			}
		}
		if !seen {
			distinct++
		}
	}
	if distinct*2 < bestN {
		return nil
	}
	return best
}

// elect returns the stream most votes name and how many do; nil when none does.
func elect(votes []*Stream) (best *Stream, bestN int) {
	for _, c := range votes {
		if c == nil {
			continue
		}
		k := 0
		for _, v := range votes {
			if v == c {
				k++
			}
		}
		if k > bestN {
			best, bestN = c, k
		}
	}
	return best, bestN
}

// votedFor calls fn with where the OSN of each vote for s fell among its numbers, in
// order, and whether s wanted it then.
func (r *rtxMatcher) votedFor(s *Stream, fn func(p osnPlace, wanted bool)) {
	for i := 0; i < r.n; i++ {
		if r.votes[i] == s {
			fn(r.place[i], r.wanted[i])
		}
	}
}

// settleTS settles the repairs the timestamp votes made as they came: those for elected
// (nil: none) count as its RTX stream's repairs (returned), the holes marked in any other
// stream are unmarked. A vote is settled once.
func (r *rtxMatcher) settleTS(elected *Stream) (repairs int64) {
	for i := 0; i < r.n; i++ {
		m := r.tsVotes[i]
		r.tsVotes[i] = nil
		switch {
		case m == nil:
		case m == elected:
			if r.hole[i] >= 0 || r.credit[i] {
				repairs++
			}
		case r.hole[i] >= 0:
			m.seq.unmarkHole(r.hole[i])
		}
	}
	return repairs
}

// matchTS returns the one stream of the sender, other than s, not itself RTX nor likely
// RTX by its timestamps (tsPending) nor sharing another's (sharesTS), of another payload
// type, that sent timestamp ts among its recent ones; nil when none did, or when another
// such stream's timestamps run close to ts (within tsNear): simulcast layers that share
// their timestamps cannot be told apart by them, even where the one that sent ts lost the
// packet before the capture. Streams with their own random offsets (RFC 3550 5.1) are that
// close by chance once in 2^31/tsNear.
func (snd *sender) matchTS(s *Stream, ts uint32) *Stream {
	var found *Stream
	near := false
	for _, o := range snd.streams {
		if o == s || o.rtx.of != nil || o.pt == s.pt || o.packets == 0 || o.rtx.tsPending() || o.rtx.sharesTS {
			continue
		}
		switch {
		case o.rtx.recent.has(ts):
			if found != nil {
				return nil
			}
			found = o
		case o.rtx.recent.near(ts):
			near = true
		}
	}
	if near {
		return nil
	}
	return found
}

// matchBehind returns the one stream of the sender that matchTS would consider whose last
// timestamp runs ahead of ts by less than tsNear: ts may be that of one of its frames sent
// before its recent ones (an RTX packet resending it); nil when none or several do.
func (snd *sender) matchBehind(s *Stream, ts uint32) *Stream {
	var found *Stream
	for _, o := range snd.streams {
		if o == s || o.rtx.of != nil || o.pt == s.pt || o.packets == 0 || o.rtx.tsPending() || o.rtx.sharesTS || o.rtx.recent.n == 0 {
			continue
		}
		if d := int32(o.rtx.recent.at(0).ts - ts); d > 0 && d < tsNear {
			if found != nil {
				return nil
			}
			found = o
		}
	}
	return found
}

// match returns the stream of the sender, other than s, not itself RTX and of another
// payload type, whose recent sequence numbers osn falls among, nearest first, or nil.
func (snd *sender) match(s *Stream, osn uint16) *Stream {
	var best *Stream
	var bestD int64
	for _, o := range snd.streams {
		if o == s || o.rtx.of != nil || o.pt == s.pt || o.packets == 0 {
			continue
		}
		hi := o.seq.highest
		ext := hi + int64(int16(osn-uint16(hi)))
		if ext > hi+rtxAhead || ext <= hi-rtxBehind {
			continue
		}
		d := hi - ext
		if d < 0 {
			d = -d
		}
		if best == nil || d < bestD {
			best, bestD = o, d
		}
	}
	return best
}
