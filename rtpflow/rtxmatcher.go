package rtpflow

// RTX detection (RFC 4588): the payload of a retransmission packet starts with the
// original sequence number (OSN). A stream is the RTX stream of another stream of the same
// sender (same leg and Path.Src) when, of its first rtxVotes payload-bearing packets, at
// least three quarters carry an OSN within [highest−rtxBehind, highest+rtxAhead] of that
// stream's sequence numbers at the time (the original may have been lost, so "received"
// cannot be required), at least half of those OSNs are distinct, and the payload types
// differ. A stream that ends with fewer votes is decided on what it has if it has at least
// 4. Padding-only packets (RTX probes) have no OSN and do not vote, nor do duplicates.
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
// that comes after the vote decided is not applied.
//
// Each RTX packet is a repair or a probe (report.RTX). A repair carries an OSN that the
// media stream wanted when the RTX packet arrived: within its window of numbers (at most
// 65,536 below its highest, not below its lowest, not above its highest) and not received,
// or NACKed by RTCP before (the capture may sit before the loss). Every other RTX packet,
// duplicates aside, is a probe: padding-only, or resending a packet the media stream had,
// as libwebrtc probes bandwidth; probes = packets − duplicates − repairs.
const (
	// rtxVotes is how many payload-bearing packets decide whether a stream is RTX.
	rtxVotes = 16
	// rtxMinVotes is the fewest votes a stream that ends early is decided on.
	rtxMinVotes = 4
	// rtxBehind and rtxAhead delimit the original sequence numbers, relative to the media
	// stream's highest, that an RTX packet may carry.
	rtxBehind = 2048
	rtxAhead  = 16
)

// rtxMatcher is one stream's side of RTX matching. As a candidate RTX stream it collects
// the votes of its first payload-bearing packets (the sender's stream each OSN fell
// among, found by sender.match) and elects the stream it retransmits; as a media stream it
// records that an RTX stream was matched to it (its recovered packets are counted by its
// seqStats, whose window holds the marks).
type rtxMatcher struct {
	of        *Stream // the media stream this one retransmits, once elected or signalled
	hasRTX    bool    // an RTX stream was matched to this stream
	decided   bool
	signalled bool    // of was named by signalling, not elected
	disputed  *Stream // a signalled RTX stream's OSNs elected this other stream
	n         int
	votes     [rtxVotes]*Stream
	osn       [rtxVotes]uint16
	wanted    [rtxVotes]bool // the vote's stream wanted its OSN then: a repair if elected
	repairs   int64          // as an RTX stream: packets that were repairs (see above)
}

// pending reports whether the stream is still voting and its OSNs so far mostly (three
// quarters) fall among another stream's numbers: a likely RTX stream, which eviction
// spares however sparse it is.
func (r *rtxMatcher) pending() bool {
	if !r.voting() || r.n == 0 {
		return false
	}
	k := 0
	for i := 0; i < r.n; i++ {
		if r.votes[i] != nil {
			k++
		}
	}
	return k*4 >= r.n*3
}

// voting reports whether the matcher still takes votes.
func (r *rtxMatcher) voting() bool { return !r.decided && r.n < rtxVotes }

// vote records one payload-bearing packet's OSN and the stream it matched (nil: none). It
// reports whether that was the last vote.
func (r *rtxMatcher) vote(osn uint16, match *Stream, wanted bool) (full bool) {
	r.osn[r.n] = osn
	r.votes[r.n] = match
	r.wanted[r.n] = wanted
	r.n++
	return r.n == rtxVotes
}

// decide elects the stream that at least three quarters of the votes name, provided that
// at least half of its OSNs are distinct (a stream repeating one number is not resending
// losses) and it is still tracked; nil when none. It decides once: with every vote, or
// with what there is when final (the end of the capture), at least rtxMinVotes.
func (r *rtxMatcher) decide(final bool) *Stream {
	if r.decided || r.n < rtxVotes && !final {
		return nil
	}
	r.decided = true
	n := r.n
	if n < rtxMinVotes {
		return nil
	}
	var best *Stream
	bestN := 0
	for i := 0; i < n; i++ {
		c := r.votes[i]
		if c == nil {
			continue
		}
		k := 0
		for j := 0; j < n; j++ {
			if r.votes[j] == c {
				k++
			}
		}
		if k > bestN {
			best, bestN = c, k
		}
	}
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

// votedFor calls fn with the OSN of each vote for s, in order, and whether s wanted it.
func (r *rtxMatcher) votedFor(s *Stream, fn func(osn uint16, wanted bool)) {
	for i := 0; i < r.n; i++ {
		if r.votes[i] == s {
			fn(r.osn[i], r.wanted[i])
		}
	}
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
