package analysis

import (
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/demux"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/rtpflow"
)

// Where the capture was taken: which transport addresses are the capturing host's own, so
// that media it sent is known to be captured at its sender (no lateness), its receiver
// reports' round trips null, and its ICE checks round trips.

// iceTCPHosts tells the ICE state which end of each ICE-TCP connection (RFC 4571 framing)
// is the capture host, where the connection's vantage says (tcpframe: the first ACK's
// delay against the round trip). The checks on it, answered as fast both ways on a LAN
// (0.2-0.4 ms), could not say, and their round trips were left out as if the capture sat
// between the agents.
func (a *analyzer) iceTCPHosts(c *report.Capture) {
	for _, fl := range c.Flows {
		if fl.TCP == nil || fl.Framing == nil || *fl.Framing != report.FramingRFC4571 {
			continue
		}
		for _, d := range []struct {
			from, to string
			v        report.Vantage
		}{{fl.A, fl.B, fl.TCP.AToB.Vantage}, {fl.B, fl.A, fl.TCP.BToA.Vantage}} {
			host := d.from
			switch d.v {
			case report.VantageSender:
			case report.VantageReceiver:
				host = d.to
			default:
				continue
			}
			if ap, err := netip.ParseAddrPort(host); err == nil {
				a.turn.HostEnd(ap)
			}
		}
	}
}

// atSender returns the transport addresses media sent from was captured at its sender: the
// capture host's own ICE endpoints (demux.Tracker.HostEndpoints), and those a Linux cooked
// capture marked as its own (captureMarks), less those it marked as another's. A capture at
// the sender dates the packets when they left: their transit above the stream's baseline
// is the sender's own queueing (pacing, an encoder's burst), and says nothing of how late
// they arrived (the accuracy issue, class 1). Over TCP the connection's vantage dates the
// deliveries instead (tcpframe).
func (a *analyzer) atSender() map[netip.AddrPort]bool {
	m := map[netip.AddrPort]bool{}
	for _, ep := range a.turn.HostEndpoints() {
		m[ep] = a.marks[ep] >= 0
	}
	for ep, v := range a.marks {
		if v > 0 {
			m[ep] = true
		}
	}
	return m
}

// reportsAtSender says whether the receiver reports about s were captured as their sender
// sent them. A report's round trip (RFC 3550 6.4.1) is the time from the sender report it
// names to the receiver report's arrival at the sender report's sender, less the delay it
// says; taken where the receiver report leaves, it is that delay again plus the host's own
// latency: no round trip, null. So it is where s's receiver is the capture host
// (atSender) on another host than its sender; or, whatever the capture says of its
// endpoints, where the reports' median round trip is under minReportRTT; or where the
// reports the other way, about a stream from s's receiver to its sender (a call with media
// both ways), take reportRatio times as long: captured at one end, the reports that end
// receives measure the path and those it sends its own latency (GStreamer's rtpbin, 0.3 to
// 0.75 ms at the receiver of a path of 80 ms). In the middle the two share the path.
func (a *analyzer) reportsAtSender(s *rtpflow.Stream, streams []*rtpflow.Stream) bool {
	p := s.Path()
	if oneHost(p.Src, p.Dst) {
		return false
	}
	if a.atSenderEP[p.Dst] {
		return true
	}
	med, ok := s.RTCPRTTMedianMS()
	if !ok {
		return false
	}
	if med < minReportRTT {
		return true
	}
	for _, o := range streams {
		if op := o.Path(); op.Src.Addr() == p.Dst.Addr() && op.Dst.Addr() == p.Src.Addr() {
			if back, ok := o.RTCPRTTMedianMS(); ok && back >= reportRatio*med {
				return true
			}
		}
	}
	return false
}

// minReportRTT (ms) is above a receiver report's own delay as the capture sees it leave
// (DLSR's 1/65536 s, and the host between the application and the capture point, both
// ways: 0.26 to 1.4 ms for GStreamer), and below the round trips worth reporting: a LAN's
// 0.1-0.5 ms is then null, where it was a figure, rather than a receiver's own latency
// read as an 80 ms path's round trip.
const minReportRTT = 1.0

// reportRatio: reports one way that take this many times as long as those the other way
// measure the path, where the others measure their sender's latency.
const reportRatio = 10

// oneHost says whether media from src to dst never left one host (loopback, or the same
// address at both ends): a capture there is at the sender and at the receiver at once,
// whichever interface it was on.
func oneHost(src, dst netip.AddrPort) bool {
	return src.Addr().IsLoopback() || src.Addr() == dst.Addr()
}

// senderVantage marks a delay measured at the media's sender as such, and its late count
// as not measured.
func senderVantage(d *report.Delay, late **report.Late) {
	if d != nil {
		d.Vantage = string(report.VantageSender)
	}
	*late = nil
}

// captureMarks returns what a Linux cooked capture (tcpdump -i any) marked of each
// transport address (capture.Packet.Outgoing): +1 where every packet from it that the
// capture marked was marked as sent by this host, -1 where some arrived from elsewhere (its
// host is another). A host that forwards (a router, a bridge) writes what it forwards as
// arrived on one interface and sent on the other, so the sender is another's; on
// loopback every packet is written both ways. A TURN server's own addresses are left out
// (0), and so is an address of this host that sends an SSRC which had arrived from
// elsewhere before (a NAT, whose rewritten copies leave from its own address; an SFU):
// what they send they relay, so media from them was not captured at its sender.
func (a *analyzer) captureMarks(streams []*rtpflow.Stream) map[netip.AddrPort]int8 {
	const sent, arrived = 1, 2
	seen := map[netip.AddrPort]uint8{}
	for _, f := range a.flowList {
		for i, ep := range [2]netip.AddrPort{f.a, f.b} {
			s := &f.sides[i]
			if s.sentHere {
				seen[ep] |= sent
			}
			if s.arrived {
				seen[ep] |= arrived
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	marks := make(map[netip.AddrPort]int8, len(seen))
	for ep, m := range seen {
		marks[ep] = -1
		if m == sent {
			marks[ep] = 1
		}
	}
	a.turn.EachRelayed(func(r, _ netip.AddrPort) { delete(marks, r) })
	// An SSRC this host starts sending right after it began to arrive from elsewhere, it
	// forwards; one it sends first and gets back (a relay's loop, an echo), or reuses in a
	// later call, is its own.
	arrivedAt := map[uint32][]int64{}
	for _, s := range streams {
		if marks[s.Path().Src] < 0 {
			arrivedAt[s.SSRC()] = append(arrivedAt[s.SSRC()], s.FirstAt())
		}
	}
	for _, s := range streams {
		if marks[s.Path().Src] <= 0 {
			continue
		}
		for _, t := range arrivedAt[s.SSRC()] {
			if d := s.FirstAt() - t; d >= 0 && d <= forwardWithin {
				delete(marks, s.Path().Src)
				break
			}
		}
	}
	for ep := range marks {
		if a.turn.IsTURNServer(ep) {
			delete(marks, ep)
		}
	}
	return marks
}

// forwardWithin bounds how long after an SSRC began to arrive a host that starts sending it
// forwards it (captureMarks): a NAT or an SFU sends each packet on within milliseconds.
const forwardWithin = int64(time.Second)

// markICE tells the ICE state what the capture marked of the ends of the flows that
// carried STUN (captureMarks). They decide the pairs before the answer times: on a LAN
// both agents answer a check within a millisecond, too close for the times to say which
// end is this host, and an agent slow to answer makes the far end look like it.
func (a *analyzer) markICE(marks map[netip.AddrPort]int8) {
	for _, f := range a.flowList {
		if !f.has(demux.ClassSTUN) {
			continue
		}
		for _, ep := range [2]netip.AddrPort{f.a, f.b} {
			if m := marks[ep]; m != 0 {
				a.turn.MarkEnd(ep, m > 0)
			}
		}
	}
}
