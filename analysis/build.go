package analysis

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sort"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/demux"
	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/rtpflow"
	"github.com/callpcap/callpcap/tcpframe"
	"github.com/callpcap/callpcap/transport"
)

// build turns the analyzer's state into the report of the capture.
func (a *analyzer) build(name string, rd *capture.Reader) report.Capture {
	c := report.Capture{
		File:               name,
		Format:             rd.Format(),
		Compression:        rd.Compression(),
		LinkTypes:          []string{},
		Packets:            a.packets,
		WireBytes:          a.wire,
		SnappedPackets:     a.snapped,
		UndecodablePackets: a.undecodable,
		CaptureDuplicates:  a.dups,
		ClockJumps:         a.clockJumps + a.jumps,
		Truncated:          a.truncated,
		Interrupted:        a.interrupted,
		Warnings:           a.warnings,
		Flows:              []report.Flow{},
		Legs:               []report.Leg{},
		Streams:            []report.Stream{},
		Directions:         []report.Direction{},
		Findings:           []report.Finding{},
	}
	for _, l := range rd.LinkTypes() {
		c.LinkTypes = append(c.LinkTypes, l.String())
	}
	if n, ok := rd.InterfaceDrops(); ok {
		c.InterfaceDrops = &n
	}
	if a.packets > 0 && rd.Timed() { // else no time stamp says when the capture was
		// Times in the report count from the capture's earliest packet, which need not be
		// its first record: a file merged from two interfaces' captures, or one whose
		// first record was written late, gave a stream a first_s of -0.22.
		a.first = a.lo
		s := time.Unix(0, a.first).UTC().Format("2006-01-02T15:04:05.000000Z")
		c.Start = &s
		// The time the capture covers: its span, or with steps in its clock the sum of the
		// spans between them.
		c.DurationS = new(numfmt.Round(float64(a.hi-a.lo)/1e9, 6))
	}
	all := a.rtp().Streams() // attributes encrypted feedback too, which unanalysed reports on
	for _, s := range all {
		s.SetAuthTag(a.authTagOf(s))
	}
	a.unreported = a.rtp().Unreported()
	a.linkRTCPFlows(all)
	a.unanalysed(rd)

	notMedia, streams := a.notMedia(all)
	legOf := a.buildLegs(&c, streams, notMedia)
	a.buildFlows(&c, legOf, notMedia)
	a.iceTCPHosts(&c)
	a.marks = a.captureMarks(all)
	a.markICE(a.marks)
	a.buildStreamsAndDirections(&c, streams, legOf)
	c.ICE = a.turn.ICE()
	c.TURN = a.turn.TURN()
	c.Warnings = a.listedWarnings()
	c.Findings = Findings(&c)
	return c
}

func (a *analyzer) secs(t int64) float64 { return numfmt.Round(float64(t-a.first)/1e9, 6) }

// interesting says whether a flow is worth listing: it carried real-time traffic, TURN or SIP.
func (f *flow) interesting() bool {
	for _, c := range []demux.Class{demux.ClassSTUN, demux.ClassRTP, demux.ClassRTCP, demux.ClassChannelData,
		demux.ClassDTLS, demux.ClassZRTP} {
		if f.has(c) {
			return true
		}
	}
	return f.turn || f.sip || (f.conn != nil && f.conn.Framing() != tcpframe.FramingUnknown && f.conn.Framing() != tcpframe.FramingNone)
}

// buildLegs makes a leg of every flow that carried media streams or TURN, and returns the
// leg id of each flow index; a TCP flow without media framing (notMedia) is none.
func (a *analyzer) buildLegs(c *report.Capture, streams []*rtpflow.Stream, notMedia map[int]bool) map[int]string {
	media := map[int]bool{}
	firstMedia := map[int]int64{} // by leg, its streams' first packet
	peers := map[int]map[netip.AddrPort]bool{}
	for _, s := range streams {
		p := s.Path()
		media[p.Leg] = true
		if t, ok := firstMedia[p.Leg]; !ok || s.FirstAt() < t {
			firstMedia[p.Leg] = s.FirstAt()
		}
		f := a.flowList[p.Leg]
		if f.turn {
			if peers[p.Leg] == nil {
				peers[p.Leg] = map[netip.AddrPort]bool{}
			}
			for _, ap := range []netip.AddrPort{p.Src, p.Dst} {
				if ap.IsValid() && ap != f.a && ap != f.b {
					peers[p.Leg][ap] = true
				}
			}
		}
	}
	allocs := a.turn.Allocations()
	legOf := map[int]string{}
	for _, f := range a.flowList {
		// A TLS connection that is not notMedia is where media would be (tlsMedia).
		hidden := f.conn != nil && f.conn.Framing() == tcpframe.FramingTLS
		if notMedia[f.idx] || !media[f.idx] && !a.relaysMedia(f) && !hidden {
			continue
		}
		id := fmt.Sprintf("l%d", len(c.Legs)+1)
		legOf[f.idx] = id
		leg := report.Leg{ID: id, Transport: a.legTransport(f), Client: f.a.String(), Server: f.b.String(),
			Peers: []string{}, Flows: []string{fmt.Sprintf("f%d", f.idx+1)}}
		if gs := a.rtcpFlowsOf(f); len(gs) > 0 {
			idx := []int{f.idx}
			for _, g := range gs {
				idx = append(idx, g.idx)
			}
			slices.Sort(idx)
			leg.Flows = leg.Flows[:0]
			for _, i := range idx {
				leg.Flows = append(leg.Flows, fmt.Sprintf("f%d", i+1))
			}
		}
		if rel, peer, ok := a.relay.peerLeg(f); ok {
			r := rel.String()
			leg.Client, leg.Server, leg.Relayed, leg.Peers = peer.String(), r, &r, []string{peer.String()}
		}
		if f.turn {
			client := a.clientOf(f)
			server := f.b
			if client == f.b {
				server = f.a
			}
			leg.Client, leg.Server = client.String(), server.String()
			for _, al := range allocs {
				// Its client's and server's, and begun within the flow: a TCP connection
				// that reused the addresses of an earlier one has an allocation of its own.
				// Of several (one deleted, then another on the same addresses), the one
				// the media went through: the last begun before the leg's first media
				// packet (h139: the address of one allocated after the call).
				if al.Client == client && al.Server == server && al.Relayed.IsValid() &&
					(f.proto != transport.TCP || al.FirstSeen >= f.first && al.FirstSeen <= f.last) {
					if t, ok := firstMedia[f.idx]; leg.Relayed == nil || !ok || al.FirstSeen <= t {
						r := al.Relayed.String()
						leg.Relayed = &r
					}
					for _, p := range al.Peers {
						if peers[f.idx] == nil {
							peers[f.idx] = map[netip.AddrPort]bool{}
						}
						peers[f.idx][p] = true
					}
				}
			}
			leg.Peers = sortedAddrs(peers[f.idx])
		}
		c.Legs = append(c.Legs, leg)
	}
	return legOf
}

// minRelayed is how many datagrams a flow must relay through TURN, without an allocation in
// the capture or a reportable stream, to be a leg: one ChannelData-looking message is any
// TCP payload starting with 0x40-0x4F ("HTTP/1.1" is channel 0x4854).
const minRelayed = 10

// relaysMedia says whether a flow without a reportable stream still carried media through
// TURN: datagrams relayed on a flow whose allocation the capture shows, or enough of them.
// ICE checks through the relay are not media: an allocation that carried only them is no
// leg (DESIGN: a path media took; h139: "Media relayed over UDP" above "ICE failed").
func (a *analyzer) relaysMedia(f *flow) bool {
	if f.relayed == 0 {
		return false
	}
	return f.relayed >= minRelayed || a.turn.IsTURNServer(f.a) || a.turn.IsTURNServer(f.b)
}

func (a *analyzer) legTransport(f *flow) report.Transport {
	if f.proto == transport.UDP {
		if f.turn {
			return report.TransportTURNUDP
		}
		return report.TransportUDP
	}
	switch fr := f.conn.Framing(); {
	case f.turn || fr == tcpframe.FramingTURN:
		return report.TransportTURNTCP
	case fr == tcpframe.FramingRFC4571:
		return report.TransportICETCP
	case fr == tcpframe.FramingTLS:
		// Only TLS where media would be is a leg (tlsMedia), on 5349 or 443: DESIGN's TURN
		// over TLS ("TLS (TURN over TLS on 443/5349)"). On 443 it could be a conferencing
		// service's own relay as well; its records do not say, and TURN is what a WebRTC
		// client behind a firewall that lets only 443 through uses.
		return report.TransportTURNTLS
	}
	return report.TransportTCP
}

func sortedAddrs(set map[netip.AddrPort]bool) []string {
	var as []netip.AddrPort
	for ap := range set {
		as = append(as, ap)
	}
	sort.Slice(as, func(i, j int) bool { return as[i].Compare(as[j]) < 0 })
	out := []string{}
	for _, ap := range as {
		out = append(out, ap.String())
	}
	return out
}

// buildFlows lists the flows that carried real-time traffic, TURN or SIP, and counts the
// others (a TCP flow without media framing among them, see tcpMedia) with their bytes.
func (a *analyzer) buildFlows(c *report.Capture, legOf map[int]string, notMedia map[int]bool) {
	var other, otherBytes int64
	for _, f := range a.flowList {
		_, isLeg := legOf[f.idx]
		if !isLeg && f.has(demux.ClassRTP) {
			// RTP by its first bytes but no stream: heuristic RTP finds it in any UDP (DNS
			// transaction IDs 0x80-0xBF); without sequence continuity it is something else.
			f.content &^= 1 << demux.ClassRTP
			f.saw(demux.ClassOther)
		}
		if !isLeg && (!f.interesting() || notMedia[f.idx] && !f.sip) {
			other++
			otherBytes += f.wire
			continue
		}
		rf := report.Flow{
			ID: fmt.Sprintf("f%d", f.idx+1), Proto: f.proto.String(), A: f.a.String(), B: f.b.String(),
			FirstS: a.secs(f.first), LastS: a.secs(f.last), Packets: f.packets, WireBytes: f.wire,
			Content: f.contentNames(),
		}
		if f.conn != nil {
			fr := f.conn.Framing().Report()
			rf.Framing = &fr
			t := f.conn.Summary()
			rf.TCP = &t
		}
		c.Flows = append(c.Flows, rf)
	}
	c.OtherFlows, c.OtherFlowBytes = other, otherBytes
}

// dirKey is a call direction: the media from one endpoint to the other.
type dirKey struct{ src, dst netip.AddrPort }

func (a *analyzer) buildStreamsAndDirections(c *report.Capture, streams []*rtpflow.Stream, legOf map[int]string) {
	var order []dirKey
	byDir := map[dirKey][]*rtpflow.Stream{}
	for _, s := range streams {
		k := dirKey{s.Path().Src, s.Path().Dst}
		if _, ok := byDir[k]; !ok {
			order = append(order, k)
		}
		byDir[k] = append(byDir[k], s)
	}
	streamID := map[*rtpflow.Stream]string{}
	streamIndex := map[*rtpflow.Stream]int{}
	for i, s := range streams {
		streamID[s] = fmt.Sprintf("s%d", i+1)
		streamIndex[s] = i
	}
	dirID := map[dirKey]string{}
	for i, k := range order {
		dirID[k] = fmt.Sprintf("d%d", i+1)
	}
	for _, s := range streams {
		rs := s.Summary(a.first)
		rs.ID = streamID[s]
		rs.Leg = legOf[s.Path().Leg]
		rs.Direction = dirID[dirKey{s.Path().Src, s.Path().Dst}]
		// A TURN peer whose channel binding the capture does not show is not known.
		rs.Src, rs.Dst = addrString(s.Path().Src), addrString(s.Path().Dst)
		rs.DroppedBeforeTCP = a.droppedBeforeTCP(s, &rs)
		c.Streams = append(c.Streams, rs)
	}
	atSender := a.atSender()
	a.atSenderEP = atSender
	a.reportsHere = map[*rtpflow.Stream]bool{}
	for i, s := range streams {
		if r := c.Streams[i].RTCP; r != nil && a.reportsAtSender(s, streams) {
			r.RTTMS = nil
			a.reportsHere[s] = true
		}
	}
	relays := a.relay.relays(streams, a.first, a.hi)
	a.ownPeerPaths(streams)
	claims := sideClaims{taken: map[[2]int]bool{}, sends: map[[2]int]bool{}}
	for _, s := range streams {
		li := s.Path().Leg
		claims.sends[[2]int{li, a.sideOf(a.flowList[li], s.Path().Src)}] = true
	}
	for _, k := range order {
		ss := byDir[k]
		d := a.direction(dirID[k], k, ss, legOf, claims)
		rd := relays[k]
		d.Relay = rd.rel
		// At the sender the capture dates what left, and what happens after (the path)
		// is unseen: late cannot be measured. Where media never left one host (loopback,
		// the same address at both ends, or both ends the host's ICE endpoints) the
		// capture is at the receiver too, each packet dated as it arrived: late is
		// measured, as DESIGN defines it (arrival less send, above the baseline), whatever
		// held it (the sender, or a relay process on the host).
		if atSender[k.src] && !atSender[k.dst] && !oneHost(k.src, k.dst) && !d.Transport.OverTCP() {
			senderVantage(d.DelayMS, &d.Late)
			clear(d.Series.Late)
			for _, s := range ss {
				rs := &c.Streams[streamIndex[s]]
				senderVantage(rs.DelayMS, &rs.Late)
			}
		}
		var drop int64
		dropKnown := true
		for _, s := range ss {
			d.Streams = append(d.Streams, streamID[s])
			if s.IsMedia() {
				if n := c.Streams[streamIndex[s]].DroppedBeforeTCP; n != nil {
					if s.Path() == rd.egress {
						// At a TURN server, the gaps on the leg to the client that the relay
						// never received were lost before it, not dropped before TCP
						// (DESIGN: matching the two legs says where a packet vanished). Those
						// gaps, not all the ingress leg's losses: some were before the
						// egress stream's first packet (a tester's read 1 of 3).
						*n = max(*n-rd.unreached[s.SSRC()], 0)
					}
					drop += *n
				} else {
					dropKnown = false
				}
			}
			// A direction that cannot measure a rate said so for its streams too.
			if ok, why := s.RateSpan(); !ok && d.GoodputKbps != nil {
				a.warnf("stream %s (SSRC 0x%08x, %s -> %s): %s (its mean bitrate is null)",
					streamID[s], s.SSRC(), d.From, d.To, why)
			}
			// SDP linked an RTX stream to one stream, its OSNs to another: the SDP stands.
			if o := s.RTXDisputed(); o != nil && s.RTXOf() != nil {
				a.warnf("stream %s (SSRC 0x%08x, %s -> %s): SDP makes it the RTX stream of SSRC 0x%08x, its original sequence numbers follow SSRC 0x%08x; the SDP is taken",
					streamID[s], s.SSRC(), d.From, d.To, s.RTXOf().SSRC(), o.SSRC())
			}
		}
		if dropKnown {
			d.Loss.DroppedBeforeTCP = &drop
		}
		for _, s := range ss {
			alignSeries(&c.Streams[streamIndex[s]].Bitrate, s.SeriesStart()-a.first, d.Series)
		}
		c.Directions = append(c.Directions, d)
	}
}

// alignSeries starts a stream's bitrate series, whose first second starts at start (ns
// from the capture's first packet), at its direction's series' first second: DESIGN's
// series all run "from the direction's first media packet", so that the i-th second of
// each is the same second. The seconds before the stream's first are 0 kbps; none goes
// beyond the direction's series (which a cap on its length may have cut).
func alignSeries(b *report.Bitrate, start int64, d report.Series) {
	pad := int(math.Round(float64(start)/1e9 - d.T0S))
	n := len(d.MediaKbps)
	if pad <= 0 || n == 0 {
		return
	}
	if pad >= n {
		b.SeriesKbps = b.SeriesKbps[:0]
		return
	}
	s := make([]float64, pad, pad+len(b.SeriesKbps))
	b.SeriesKbps = append(s, b.SeriesKbps...)[:min(n, pad+len(b.SeriesKbps))]
}

func addrString(ap netip.AddrPort) string {
	if !ap.IsValid() {
		return "unknown"
	}
	return ap.String()
}
