package analysis

import (
	"github.com/callpcap/callpcap/demux"
	"github.com/callpcap/callpcap/rtpflow"
	"github.com/callpcap/callpcap/tcpframe"
	"github.com/callpcap/callpcap/transport"
)

// tcpMessages counts what a TCP flow's unframed messages classified as (demux), for
// tcpMedia.
type tcpMessages struct {
	all  int64 // every message the unframer cut, TLS records and SIP included
	real int64 // STUN, ChannelData, DTLS, ZRTP and RTCP that validated
	rtp  int64 // RTP by its first byte (tcpMedia counts those of streams only)
}

func (t *tcpMessages) count(c demux.Class) {
	switch c {
	case demux.ClassSTUN, demux.ClassChannelData, demux.ClassDTLS, demux.ClassZRTP, demux.ClassRTCP:
		t.real++
	case demux.ClassRTP:
		t.rtp++
	}
}

// minRealPermille: the share of a TCP flow's messages that must be real-time traffic.
const minRealPermille = 900

// tcpMedia says whether a TCP connection carried media framing, so that it may be a leg:
// its framing held across the whole connection (tcpframe.Hold.Holds: at most one break per
// 100 messages, 99% of the bytes read in valid frames), and at least 90% of its messages
// are STUN, ChannelData, DTLS, ZRTP or RTCP that validated, or RTP packets of a stream of
// this flow with at least two packets. Otherwise it is another flow: its messages were a
// framing read into bytes it does not explain (XMPP or HTTP text, a VPN's ciphertext).
//
// Why both. Detection looks at the first bytes and confirms a header by its successor;
// text and ciphertext pass that now and then. A false RFC 4571 framing breaks at most of
// its frames, and its frames, cut at random 16-bit lengths, are few and huge, so the
// framing test alone may pass over a short connection; their contents, checked by the
// demux, are rarely valid real-time messages, and an RTP header found by chance carries a
// random SSRC that no second packet repeats, hence "a stream with two packets" even under
// --min-packets 1. A real ICE-TCP or TURN/TCP connection never breaks except at capture
// gaps (not counted) and carries nothing else. TLS records are opaque: a TLS connection's
// messages are never real-time traffic here, so it is never a leg (TURN over TLS cannot be
// told from IMAP over TLS by its bytes) unless tlsMedia says it is where media would be.
//
// The decision is taken once, at the end of the capture: a connection may look like media
// for a while. Until then its messages went through the demux as any other; a connection
// that fails has its streams left out of the report (their RTP analysis is dropped), and
// its packets and bytes count among other_flows. STUN it carried stays in the ICE and
// TURN figures: a STUN message validated by its magic cookie is STUN wherever it came from.
// A framing imposed by --decode-as is the user's word, over any heuristic: it holds.
func (a *analyzer) tcpMedia(f *flow, rtpInStreams int64) bool {
	if a.opts.forcedFraming(f.a.Port(), f.b.Port()) != tcpframe.FramingNone {
		return true
	}
	switch {
	case f.conn == nil:
		return false
	case f.conn.Framing() == tcpframe.FramingTLS:
		return tlsMedia(f)
	}
	return mediaFraming(f.conn.Hold(), f.msgs, rtpInStreams)
}

// TLS where media would be (DESIGN, Unframing: "TURN over TLS on 443/5349 ... the report
// says the media is hidden"). Its records are opaque, so the connection is judged by its
// port and by the shape of its record stream. Media sends many records, tlsMinRecords or
// more at tlsMinRate a second or more on average: a TURN allocation over TLS that a browser
// gathered as a candidate, and keeps with a Refresh now and then while the media goes
// another way, does not. 5349 is TURN's own port for TLS (RFC 8656, "turns"). On 443, which
// every HTTPS connection shares, the stream must also be steady (records in tlsSteadyPct of
// the seconds of at least tlsMinSpan), of records no larger than a media packet on average
// (tlsMaxMeanRecord), each way at least tlsMinSharePct of the other's (media one way, its
// feedback the other: transport-cc reports 10-20 a second). A download sends full 16 KB
// records, or is answered by a record now and then; a WebSocket's signalling sends a few
// records a second at most.
const (
	turnTLSPort      = 5349
	httpsPort        = 443
	tlsMinRecords    = 50
	tlsMinRate       = 10
	tlsMinSpan       = int64(2e9)
	tlsSteadyPct     = 80
	tlsMaxMeanRecord = 1500
	tlsMinSharePct   = 10
)

// tlsRecords follows the times of a TLS connection's records, for tlsMedia.
type tlsRecords struct {
	n, secs     int64 // records, and the seconds of capture time that saw one
	lastSec     int64
	first, last int64
	turnALPN    bool // a client hello offered "stun.turn" (RFC 7443)
}

func (r *tlsRecords) add(t int64) {
	if r.n == 0 {
		r.first, r.lastSec = t, t/1e9-1
	}
	r.n++
	r.last = max(r.last, t)
	if sec := t / 1e9; sec > r.lastSec {
		r.secs++
		r.lastSec = sec
	}
}

// tlsMedia says whether f, a connection of TLS records that held, is TLS where media would
// be: many records, on TURN's port 5349 or offered as TURN by ALPN ("stun.turn", RFC 7443:
// coturn's clients do), or on 443 as a steady stream of media-sized ones (see above).
func tlsMedia(f *flow) bool {
	p, q := f.a.Port(), f.b.Port()
	r := &f.tls
	span := r.last - r.first
	switch {
	case !f.conn.Hold().Holds(), r.n < tlsMinRecords, r.n*1e9 < tlsMinRate*span:
		return false
	case p == turnTLSPort || q == turnTLSPort, r.turnALPN:
		return true
	case p != httpsPort && q != httpsPort, span < tlsMinSpan, r.secs*100 < tlsSteadyPct*(span/1e9):
		return false
	}
	t := f.conn.Summary()
	ab, ba := t.AToB.Messages, t.BToA.Messages
	return t.AToB.StreamBytes+t.BToA.StreamBytes <= tlsMaxMeanRecord*r.n &&
		ab*100 >= tlsMinSharePct*ba && ba*100 >= tlsMinSharePct*ab
}

// mediaFraming is tcpMedia's rule on a connection's figures.
func mediaFraming(h tcpframe.Hold, m tcpMessages, rtpInStreams int64) bool {
	return h.Holds() && m.all > 0 && (m.real+min(m.rtp, rtpInStreams))*1000 >= m.all*minRealPermille
}

// notMedia returns the TCP flows that carried no media framing (tcpMedia), by index, and
// the streams of the other flows.
func (a *analyzer) notMedia(streams []*rtpflow.Stream) (map[int]bool, []*rtpflow.Stream) {
	rtpIn := map[int]int64{}
	for _, s := range streams {
		if w := s.Wire(); w.Messages >= 2 {
			rtpIn[s.Path().Leg] += w.Messages
		}
	}
	out := map[int]bool{}
	for _, f := range a.flowList {
		if f.proto == transport.TCP && !a.tcpMedia(f, rtpIn[f.idx]) {
			out[f.idx] = true
		}
	}
	if len(out) == 0 {
		return out, streams
	}
	kept := streams[:0:0]
	for _, s := range streams {
		if !out[s.Path().Leg] {
			kept = append(kept, s)
		}
	}
	return out, kept
}
