package rtpflow

// RTX detection (RFC 4588): the payload of a retransmission packet starts with the
// original sequence number (OSN). A stream is the RTX stream of another stream of the same
// sender (same leg and Path.Src) when, of its first rtxVotes payload-bearing packets, at
// least three quarters carry an OSN within [highest−rtxBehind, highest+rtxAhead] of that
// stream's sequence numbers at the time (the original may have been lost, so "received"
// cannot be required), at least half of those OSNs are distinct, and the payload types
// differ. A stream that ends with fewer votes is decided on what it has if it has at least
// 4. Padding-only packets (RTX probes) have no OSN and do not vote.

// match returns the stream of the sender whose recent sequence numbers osn falls among,
// nearest first, or nil.
func (snd *sender) match(s *Stream, osn uint16) *Stream {
	var best *Stream
	var bestD int64
	for _, o := range snd.streams {
		if o == s || o.rtxOf != nil || o.pt == s.pt || o.packets == 0 {
			continue
		}
		ext := o.highest + int64(int16(osn-uint16(o.highest)))
		if ext > o.highest+rtxAhead || ext <= o.highest-rtxBehind {
			continue
		}
		d := o.highest - ext
		if d < 0 {
			d = -d
		}
		if best == nil || d < bestD {
			best, bestD = o, d
		}
	}
	return best
}

func (s *Stream) decideRTX(final bool) {
	if s.rtxDecided {
		return
	}
	n := s.nVotes
	if n < rtxVotes && !final {
		return
	}
	s.rtxDecided = true
	if n < 4 {
		return
	}
	var best *Stream
	bestN := 0
	for i := 0; i < n; i++ {
		c := s.votes[i]
		if c == nil {
			continue
		}
		k := 0
		for j := 0; j < n; j++ {
			if s.votes[j] == c {
				k++
			}
		}
		if k > bestN {
			best, bestN = c, k
		}
	}
	if best == nil || bestN*4 < n*3 || best.evicted {
		return
	}
	distinct := 0
	for i := 0; i < n; i++ {
		if s.votes[i] != best {
			continue
		}
		seen := false
		for j := 0; j < i; j++ {
			if s.votes[j] == best && s.voteOSN[j] == s.voteOSN[i] {
				seen = true
				break
			}
		}
		if !seen {
			distinct++
		}
	}
	if distinct*2 < bestN {
		return
	}
	s.rtxOf = best
	best.hasRTX = true
	for i := 0; i < n; i++ {
		if s.votes[i] == best {
			best.markRTX(s.voteOSN[i])
		}
	}
}

// markRTX notes that original sequence number osn arrived in this stream's RTX stream;
// when the original itself never arrived, it is a packet recovered by RTX.
func (s *Stream) markRTX(osn uint16) {
	if s.win == nil {
		return
	}
	ext := s.highest + int64(int16(osn-uint16(s.highest)))
	if ext > s.highest || ext <= s.highest-windowBits || ext < s.lowest || s.win.has(ext) {
		return
	}
	if !s.win.rtxTestSet(ext) {
		s.recovered++
	}
}
