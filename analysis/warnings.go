package analysis

import (
	"fmt"
	"strings"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/rtpflow"
)

// unanalysed warns of what the capture holds that the report leaves out or could not follow:
// packets the capturing interfaces dropped, link types not decoded, what was cut by the snap
// length, and everything each stage counted instead of keeping because it went beyond a
// bound (flows, RTP streams, IP fragments, ICE and TURN state) or did not parse. Each bound
// keeps memory flat whatever the capture holds; a count here says the bound was reached.
func (a *analyzer) unanalysed(rd *capture.Reader) {
	if n := a.clockJumps + a.jumps; n > 0 {
		var why []string
		if a.clockJumps > 0 {
			why = append(why, numfmt.Count(a.clockJumps, "packet", "packets")+" stamped more than an hour away from the packets around it, or more than a second before or after both")
		}
		if a.jumps > 0 {
			why = append(why, numfmt.Count(a.jumps, "step", "steps")+" of more than an hour forward or a second back between two packets, as in captures merged into one file or a clock set while capturing")
		}
		a.warnf("the capture's clock jumps %s (%s); durations use the call's own span",
			numfmt.Count(n, "time", "times"), strings.Join(why, ", "))
	}
	if a.clamped > 0 {
		// Stamped after 2116 or before 1824 (a pcapng of 64-bit stamps, an offset or a
		// resolution that puts them there): they all read one instant at the bound, which
		// nothing said (a tester's capture of the year 2200 read "2,000 packets at one
		// capture time").
		a.warnf("%s stamped beyond the years 1824 to 2116, the times this analysis keeps: their times were set to the nearer end, and spans and rates over them are not the capture's",
			numfmt.Count(a.clamped, "packet was", "packets were"))
	}
	if n, ok := rd.InterfaceDrops(); ok && n > 0 {
		a.warnf("the capturing interfaces dropped %d packets: they are missing from this report", n)
	}
	if a.unknownLink > 0 {
		a.warnf("%d packets on link types this tool does not decode were counted, not analysed", a.unknownLink)
	}
	if a.nonIP > 0 && a.nonIP == a.packets-a.unknownLink-a.undecodable {
		// Non-IP frames beside IP ones (ARP, LLDP) are no news; a capture of nothing else
		// is, and would otherwise be an empty report with no word of why.
		what := fmt.Sprintf("none of the %d decoded packets carried IP", a.nonIP)
		if a.nonIP == 1 {
			what = "the one decoded packet did not carry IP"
		}
		a.warnf("%s (link headers that name another protocol or address family): nothing to analyse", what)
	}
	var farSegs, farBytes, endSegs, endBytes int64
	for _, f := range a.flowList {
		if f.conn != nil {
			n, b := f.conn.Far()
			farSegs, farBytes = farSegs+n, farBytes+b
			n, b = f.conn.AfterEnd()
			endSegs, endBytes = endSegs+n, endBytes+b
		}
	}
	if farSegs > 0 {
		a.warnf("%s (%d payload bytes) lay more than a window beyond the rest of their TCP stream, too few in a row to be where it went on: taken for bogus, counted on the wire, not delivered",
			numfmt.Count(farSegs, "TCP segment", "TCP segments"), farBytes)
	}
	if endSegs > 0 {
		// A tester's 100,000 segments of RTP after a RST went into no stream, and nothing
		// said so.
		a.warnf("%s (%d payload bytes) came after their TCP direction ended (its FIN, or a RST): counted on the wire, not delivered",
			numfmt.Count(endSegs, "TCP segment", "TCP segments"), endBytes)
	}
	if a.flowsOver > 0 {
		a.warnf("%d packets of flows beyond the first %d were counted, not analysed", a.flowsOver, a.opts.maxFlows())
	}
	if a.snapped > 0 {
		if a.snapped == 1 {
			a.warnf("1 packet was cut by the snap length: its length is counted from the original frame size")
		} else {
			a.warnf("%s packets were cut by the snap length: their lengths are counted from the original frame size", numfmt.Thousands(a.snapped))
		}
		if a.snappedHeaders > 0 {
			// DESIGN: what the captured bytes did not allow is said in warnings.
			a.warnf("%s cut inside their link, IP or transport headers: counted as undecodable, in no flow", numfmt.Count(a.snappedHeaders, "packet was", "packets were"))
		}
		if len(a.snappedIn) > 1 {
			// Several interfaces (a TURN server capturing both legs): say which were cut.
			for i, n := range a.snappedIn {
				if n > 0 {
					a.warnf("interface %d: %d packets cut by its snap length", i, n)
				}
			}
		}
	}

	if fs := rd.Stats(); fs.Expired+fs.Dropped+int64(fs.Pending) > 0 {
		a.warnf("%s could not be rebuilt from IP fragments (%s): the fragments were counted, not analysed",
			numfmt.Count(fs.Expired+fs.Dropped+int64(fs.Pending), "IP datagram", "IP datagrams"), list(
				bound{fs.Expired, "incomplete 30 s after the first fragment"},
				bound{fs.Dropped, "overlapping, inconsistent or beyond the reassembly limits"},
				bound{int64(fs.Pending), "incomplete at the end of the capture"}))
	}

	if n := rd.Stats().UDPBeyond; n > 0 {
		a.warnf("%s claimed more bytes than their IP packet held: read to the packet's end",
			numfmt.Count(n, "UDP datagram", "UDP datagrams"))
	}

	if n := rd.Stats().StatsOfNone; n > 0 {
		a.warnf("%s named an interface its section did not describe: skipped, their drops counted for none",
			numfmt.Count(n, "interface statistics block", "interface statistics blocks"))
	}
	if n := rd.Stats().OrigBeyond; n > 0 {
		a.warnf("%s claimed an original length beyond 256 KiB, more than any link carries: the captured length was counted on the wire",
			numfmt.Count(n, "record", "records"))
	}

	rc := a.rtp().Counts()
	if rc.Untracked > 0 {
		a.warnf("%d RTP packets of streams beyond the RTP stream table were counted, not analysed", rc.Untracked)
	}
	if rc.Unsearched > 0 {
		a.warnf("%s beyond the %d of one sender on one leg were not matched as RTX streams, nor searched for the RTX streams of others",
			numfmt.Count(rc.Unsearched, "RTP stream", "RTP streams"), rtpflow.MaxSenderStreams)
	}
	if rc.Evicted > 0 {
		a.warnf("candidate RTP streams were dropped %s before they qualified, to make room in the RTP stream table (an SSRC that comes back is a new candidate, and may be dropped again)",
			numfmt.Count(rc.Evicted, "time", "times"))
	}
	// A series that stopped short: its later seconds are in no series (DESIGN: a jump of
	// hours is a warning and a break), its packets in every total.
	for _, c := range []struct {
		n   int64
		why string
	}{
		{rc.Series.Broken, "at a gap of more than an hour between their packets"},
		{rc.Series.Capped, "after 6 hours"},
		{rc.Series.Cut, fmt.Sprintf("where the streams' series together reached %s seconds, the most a report keeps", numfmt.Thousands(rtpflow.MaxSeriesCells))},
	} {
		if c.n > 0 {
			a.warnf("the per-second series of %s stop %s: their later packets count in every total, in no second",
				numfmt.Count(c.n, "RTP stream", "RTP streams"), c.why)
		}
	}
	if a.rtpInvalid > 0 {
		a.warnf("%d messages classified as RTP had a header that does not parse: counted as other", a.rtpInvalid)
	}
	a.warnCount(a.rtpCut, "message", "messages",
		"in RTP's range were cut by the snap length inside the RTP fixed header, before their SSRC: they count in no stream, and as lost in the stream they belonged to")
	a.warnCount(a.rtpExtLenCut, "RTP packet was", "RTP packets were",
		"cut by the snap length inside their header extension's length: their header is counted as the least it can be (12 bytes, the CSRCs and the extension's 4), the rest as payload")
	a.warnCount(a.signalTooLong, "signalling message over TCP (SIP, HTTP or WebSocket) was", "signalling messages over TCP (SIP, HTTP or WebSocket) were",
		"longer than 64 KiB: not read for SDP, so the codecs and RTX it names are unknown here")
	if rc.RTCPDamaged > 0 {
		a.warnf("%s of plain RTCP damaged part way (a length beyond the datagram, a bad padding count): read up to the damage",
			numfmt.Count(rc.RTCPDamaged, "datagram", "datagrams"))
	}
	if rc.RTCPInvalid > 0 {
		a.warnf("%d messages classified as RTCP were too short, not version 2, or damaged (neither RTCP's packets nor SRTCP's trailer): not counted", rc.RTCPInvalid)
	}
	a.warnCount(rc.RTCPSnapped, "RTCP packet was", "RTCP packets were",
		"cut by the snap length: counted, not read (what was kept cannot tell RTCP from SRTCP)")
	a.warnCount(rc.RTCPOtherReporter, "RTCP report block", "RTCP report blocks",
		"about a stream came from a receiver other than the first that reported on it: their loss and jitter were not used (the stream's are the first receiver's)")
	if rc.RTCPUntracked > 0 {
		a.warnf("%d RTCP reports about SSRCs beyond the RTCP table were counted, not followed", rc.RTCPUntracked)
	}
	a.warnCount(rc.RTCPUnattributed, "encrypted feedback message", "encrypted feedback messages",
		"(NACK, PLI, FIR) could not be given to a video stream (SRTCP hides which one they are about, and their path carried none or several): counted on no stream")

	if n, parts := byType(rc.RTCPNoStream); n > 0 {
		a.warnf("%s (%s) came from SSRCs that sent no RTP stream here; SRTCP leaves only the sender's SSRC readable: counted on no stream",
			numfmt.Count(n, "encrypted RTCP packet", "encrypted RTCP packets"), parts)
	}
	if n, parts := byType(rc.RTCPPlainNoStream); n > 0 {
		a.warnf("%s (%s) named no SSRC that sent an RTP stream here (a receive-only endpoint's own SSRC, a receiver report without report blocks, an SSRC with too few packets to be a stream): counted on no stream",
			numfmt.Count(n, "RTCP packet", "RTCP packets"), parts)
	}
	ds := a.turn.Stats()
	if ds.Malformed > 0 {
		a.warnf("%d messages classified as STUN did not decode: counted as STUN, not interpreted", ds.Malformed)
	}
	u := ds.Untracked
	if l := list(bound{u.Pending, "unanswered transactions dropped for newer ones"},
		bound{u.Ufrags, "ICE ufrag pairs"}, bound{u.Nominated, "nominated pairs"},
		bound{u.Allocations, "messages of TURN allocations"}, bound{u.Servers, "TURN servers"},
		bound{u.Channels, "channel bindings"}, bound{u.Peers, "peers"},
		bound{u.Permissions, "permissions"}, bound{u.ICEPairs, "ICE round trips of candidate pairs beyond 64"},
		bound{u.ICESamples, "ICE round trips held for a pair's vantage"}); l != "" {
		a.warnf("ICE and TURN state beyond its bounds was counted, not kept: %s", l)
	}
}

// bound counts what went beyond one of the analysis's bounds, for a warning.
type bound struct {
	n    int64
	what string
}

// warnCount warns "N things rest" when n > 0, the things singular or plural with n.
func (a *analyzer) warnCount(n int64, one, many, rest string) {
	if n > 0 {
		a.warnf("%s %s", numfmt.Count(n, one, many), rest)
	}
}

// list says the non-zero counts: "3 what, 1 other".
func list(ts ...bound) string {
	var parts []string
	for _, t := range ts {
		if t.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", t.n, t.what))
		}
	}
	return strings.Join(parts, ", ")
}

// byType sums RTCP counts by type and lists them ("2 rr, 1 sdes").
func byType(tcs []rtpflow.TypeCount) (n int64, parts string) {
	list := make([]string, 0, len(tcs))
	for _, tc := range tcs {
		n += tc.N
		list = append(list, fmt.Sprintf("%d %s", tc.N, tc.Type))
	}
	return n, strings.Join(list, ", ")
}
