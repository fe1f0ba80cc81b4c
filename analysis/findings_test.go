package analysis

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/rtcp"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/report"
)

// An audio-only Opus call over UDP, 20 ms packets of 80 bytes each way for 15 s: on the wire
// 80 of every 134 bytes are payload (14 Ethernet, 20 IPv4, 8 UDP, 12 RTP), 59.7%, as on any
// path. Nothing of it is avoidable, so there is no overhead finding (before: low_efficiency,
// "only 60% of the … bytes on the wire were media payload").
func TestOpusAudioHasNoOverheadFinding(t *testing.T) {
	out := callgen.Stream{Src: alice, Dst: bob, SSRC: 0x0a0a0a0a, PT: 111, ClockRate: 48000,
		Interval: 20 * time.Millisecond, PayloadSize: 80, Count: 750, StartSeq: 100, StartTS: 960}
	in := out
	in.Src, in.Dst, in.SSRC, in.Start = bob, alice, 0x0b0b0b0b, 3*time.Millisecond
	c := analyze(t, pcapOf(t, append(out.Packets(), in.Packets()...)), Options{})
	if len(c.Directions) != 2 {
		t.Fatalf("directions %d, want 2", len(c.Directions))
	}
	for _, d := range c.Directions {
		if d.WireBytes != 750*134 || d.MediaPayloadBytes != 750*80 || d.Efficiency == nil || round3(*d.Efficiency) != 0.597 {
			t.Errorf("%s: wire %d media %d efficiency %v; want %d, %d, 0.597", d.ID, d.WireBytes, d.MediaPayloadBytes,
				d.Efficiency, 750*134, 750*80)
		}
	}
	checkFindingList(t, c.Findings, []report.Finding{})
}

// A clean TURN/TCP call (tcpStreams, nothing lost): one finding, the cause, info, and no
// retransmission figure or sentence (before: media_over_tcp warn "0% of the bytes on that
// connection were retransmissions", and media_over_turn info). Its avoidable overhead is
// TCP's: the other side's pure ACKs (the server's 302, for the client's 2 STUN and 300
// media segments; the client's 302 and its handshake ACK), 54 bytes each, and 300
// ChannelData headers of 4 bytes each way.
func TestTURNTCPWithoutRetransmissions(t *testing.T) {
	call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000}}
	c := analyze(t, pcapOf(t, call.Packets(turnTCPWrites(nil))), Options{})
	var wire int64
	for i, d := range c.Directions {
		wire += d.WireBytes
		if o := d.OverheadBytes; o.ACKs != int64(302+i)*54 || o.Framing != 300*4 || o.TCPRetransmissions != 0 {
			t.Errorf("%s: overhead %+v, want %d ACKs, 300 ChannelData headers, no retransmission", d.ID, o, 302+i)
		}
	}
	checkFindingList(t, c.Findings, []report.Finding{cleanTCPFinding(tcpClient, bob, []string{"l1"}, []string{"d1", "d2"}, wire)})
}

// cleanTCPFinding is the one finding of a clean TURN/TCP call of tcpStreams between client
// and peer, whose directions' wire bytes sum to wire.
func cleanTCPFinding(client, peer netip.AddrPort, legs, dirs []string, wire int64) report.Finding {
	return report.Finding{Code: "media_over_tcp", Severity: "info",
		Text: "Media between " + client.String() + " and " + peer.String() + " was relayed over TCP through TURN 203.0.113.7:443: " +
			"nothing was retransmitted or late in this capture, but on that path every loss turns into delay; " +
			"TCP's ACKs and framing took 7.7% of the wire bytes.",
		Legs: legs, Directions: dirs,
		Figures: map[string]float64{"avoidable_overhead_pct": round3(100 * float64(2*300*4+(302+303)*54) / float64(wire))}}
}

// ExampleTURNCall allocates with a 401 challenge, then succeeds: the 401 is counted in the
// report's TURN errors but is no finding (media_over_turn and rtp_loss, both info; the
// text report no longer lists it under "TURN errors"). The capture is at the client, so the
// packets it held are no late_packets finding (TestLatenessAtTheSender).
func TestTURN401ChallengeIsNoError(t *testing.T) {
	c := analyze(t, pcapOf(t, callgen.ExampleTURNCall()), Options{})
	if len(c.TURN.Errors) != 1 || c.TURN.Errors[0].Code != 401 || c.TURN.Errors[0].Count != 1 ||
		!slices.Equal(c.TURN.Errors[0].Clients, []string{callgen.ExampleClient.String()}) {
		t.Errorf("TURN errors %+v, want one 401", c.TURN.Errors)
	}
	var got []string
	for _, f := range c.Findings {
		got = append(got, fmt.Sprintf("%s %s %v %v", f.Code, f.Severity, f.Legs, f.Directions))
	}
	want := []string{"media_over_turn info [l1] []", "rtp_loss info [l1] [d1]"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// turnErrors on reports built by hand: a 403 beside routine answers is the only error
// stated; without a granted allocation the finding is bad, and with challenges only (401)
// it says that what should have followed them is not in the capture, where it blamed the
// 401s (an audit helper's capture: an authenticated Allocate left unanswered). A refusal
// whose client is known names it and its call (an oracle's TURN server of two calls, one
// refused: the finding named neither).
func TestTURNErrorFindings(t *testing.T) {
	relayed := "203.0.113.7:50012"
	for _, tc := range []struct {
		name    string
		relayed *string
		errs    []report.TURNError
		want    []report.Finding
	}{
		{"routine only", &relayed, []report.TURNError{{Code: 401, Count: 3}, {Code: 438, Count: 1}}, []report.Finding{}},
		{"a refusal", &relayed, []report.TURNError{{Code: 401, Count: 1}, {Code: 403, Count: 2}}, []report.Finding{{
			Code: "turn_errors", Severity: "warn", Text: "The TURN server refused requests: 403 Forbidden (2×).",
			Legs: []string{}, Directions: []string{}, Figures: map[string]float64{"error_403": 2}}}},
		{"never granted, challenges only", nil, []report.TURNError{{Code: 401, Count: 2}}, []report.Finding{{
			Code: "turn_errors", Severity: "bad", Text: "No TURN allocation was granted in the capture: the server answered only 401 Unauthorized (2×), which a client answers with a new request; that request, or its answer, is not in the capture.",
			Legs: []string{}, Directions: []string{}, Figures: map[string]float64{"error_401": 2}}}},
		// The one client challenged twice: its retry with credentials came, and was
		// refused (h139: the sentence said it was not in the capture).
		{"never granted, challenged again", nil, []report.TURNError{{Code: 401, Count: 2, Clients: []string{"10.0.0.1:40000"}}}, []report.Finding{{
			Code: "turn_errors", Severity: "bad", Text: "No TURN allocation was granted to 10.0.0.1:40000 in the capture: the server answered only 401 Unauthorized (2×), which a client answers with a new request carrying its credentials; challenged again, the client sent none, or the server refused them.",
			Legs: []string{"l1"}, Directions: []string{}, Figures: map[string]float64{"error_401": 2}}}},
		{"never granted, challenged once each", nil, []report.TURNError{{Code: 401, Count: 2, Clients: []string{"10.0.0.1:40000", "10.0.0.2:41000"}}}, []report.Finding{{
			Code: "turn_errors", Severity: "bad", Text: "No TURN allocation was granted to 10.0.0.1:40000, 10.0.0.2:41000 in the capture: the server answered only 401 Unauthorized (2×), which a client answers with a new request; that request, or its answer, is not in the capture.",
			Legs: []string{"l1", "l2"}, Directions: []string{}, Figures: map[string]float64{"error_401": 2}}}},
		{"never granted, refused", nil, []report.TURNError{{Code: 401, Count: 1}, {Code: 486, Count: 1}}, []report.Finding{{
			Code: "turn_errors", Severity: "bad", Text: "No TURN allocation was granted: the server answered 401 Unauthorized (1×), 486 Allocation Quota Reached (1×).",
			Legs: []string{}, Directions: []string{}, Figures: map[string]float64{"error_401": 1, "error_486": 1}}}},
		{"a refusal of one call's client", &relayed, []report.TURNError{{Code: 403, Count: 1, Clients: []string{"10.0.0.2:41000"}}},
			[]report.Finding{{Code: "turn_errors", Severity: "warn", Text: "The TURN server refused requests from 10.0.0.2:41000: 403 Forbidden (1×).",
				Legs: []string{"l2"}, Directions: []string{}, Figures: map[string]float64{"error_403": 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &report.Capture{TURN: report.TURN{Errors: tc.errs, Allocations: []report.Allocation{
				{Server: "203.0.113.7:3478", Client: "10.0.0.1:40000", Transport: "udp", Relayed: tc.relayed}}},
				Legs: []report.Leg{{ID: "l1", Transport: "turn-udp", Client: "10.0.0.1:40000", Server: "203.0.113.7:3478"},
					{ID: "l2", Transport: "turn-udp", Client: "10.0.0.2:41000", Server: "203.0.113.7:3478"}}}
			got := []report.Finding{}
			for _, f := range Findings(c) {
				if f.Code == report.FindingTURNErrors {
					got = append(got, f)
				}
			}
			checkFindingList(t, got, tc.want)
		})
	}
}

// A TCP direction's slow ramp is a figure of its media_over_tcp finding, not a slow_ramp
// finding of its own; the same ramp on a UDP direction is one (a report built by hand).
func TestSlowRampOverTCPIsAFigure(t *testing.T) {
	t90 := 28.0
	build := func(tr report.Transport) *report.Capture {
		return &report.Capture{
			Legs: []report.Leg{{ID: "l1", Transport: tr, Client: "10.0.0.1:51234", Server: "198.51.100.9:9", Flows: []string{}}},
			Directions: []report.Direction{{ID: "d1", From: "10.0.0.1:51234", To: "198.51.100.9:9", Legs: []string{"l1"},
				Transport: tr, MediaPackets: 3000, WireBytes: 1000, ActiveS: 60,
				Ramp: &report.Ramp{TargetKbps: 2400, PlateauKbps: 2400, T90S: &t90}}},
		}
	}
	checkFindingList(t, Findings(build(report.TransportICETCP)), []report.Finding{{Code: "media_over_tcp", Severity: "warn",
		Text: "Media travelled over TCP (ice-tcp) between 10.0.0.1:51234 and 198.51.100.9:9: the media bitrate " +
			"10.0.0.1:51234 -> 198.51.100.9:9 took 28 s to reach 90% of 2.40 Mbps (a healthy call over UDP gets there in under 5 s).",
		Legs: []string{"l1"}, Directions: []string{"d1"}, Figures: map[string]float64{"t90_s": 28, "ramp_target_kbps": 2400}}})
	checkFindingList(t, Findings(build(report.TransportUDP)), []report.Finding{{Code: "slow_ramp", Severity: "warn",
		Text: "10.0.0.1:51234 -> 198.51.100.9:9: the media bitrate took 28 s to reach 90% of 2.40 Mbps (a healthy call over UDP gets there in under 5 s).",
		Legs: []string{"l1"}, Directions: []string{"d1"}, Figures: map[string]float64{"t90_s": 28, "ramp_target_kbps": 2400}}})
}

// TestNoRampAroundSilence: a SIP call that switched to T.38 fax sent only comfort noise
// on its RTP in the second half: a plateau of 0.056 kbps is no media rate, and neither a
// ramp towards it nor a swing around it is said; the same figures around 13 kbps are.
func TestNoRampAroundSilence(t *testing.T) {
	build := func(plateau float64) *report.Capture {
		t90, cv, stable := 0.0, 1.5728, false
		return &report.Capture{
			Legs: []report.Leg{{ID: "l1", Transport: report.TransportUDP, Client: "10.23.1.52:16756", Server: "10.35.60.100:15580", Flows: []string{}}},
			Directions: []report.Direction{{ID: "d1", From: "10.23.1.52:16756", To: "10.35.60.100:15580", Legs: []string{"l1"},
				Transport: report.TransportUDP, MediaPackets: 1171, WireBytes: 155000, ActiveS: 36,
				Ramp: &report.Ramp{TargetKbps: plateau, TargetSource: "plateau", PlateauKbps: plateau, T50S: &t90, T90S: &t90,
					Stable: &stable, CVAfterT90: &cv}}},
		}
	}
	checkFindingList(t, Findings(build(0.056)), []report.Finding{})
	checkFindingList(t, Findings(build(13)), []report.Finding{{Code: "unstable_bitrate", Severity: "warn",
		Text: "10.23.1.52:16756 -> 10.35.60.100:15580: after ramping up, the media bitrate kept swinging more than 20% around 13 kbps (coefficient of variation 1.57).",
		Legs: []string{"l1"}, Directions: []string{"d1"}, Figures: map[string]float64{"plateau_kbps": 13, "cv_after_t90": 1.5728}}})
}

// TestHoldIsNoSwing: a SIP call put on hold by re-INVITE for 6 s sends nothing, then its
// 64 kbps again; the seconds the hold began and ended in hold part of it. By DESIGN's
// definition the bitrate was not stable after t90 (the JSON says so), but the finding that
// it "kept swinging" misnamed a pause (three such calls of baresip and sipp). A bitrate
// that goes between 64 and 20 kbps with no pause still is one, and so is the same hold
// where the second after it delivered half a second's packets late (a TCP stall's backlog)
// or lost them (an outage): the path stopped, not the sender. A loss a second, as on a
// lossy path, says nothing of the pause.
func TestHoldIsNoSwing(t *testing.T) {
	counted := func(v []int64) []*int64 {
		out := make([]*int64, len(v))
		for i := range v {
			out[i] = &v[i]
		}
		return out
	}
	build := func(kbps []float64, lost, late []int64) *report.Capture {
		t90, cv, stable := 0.0, 0.67, false
		return &report.Capture{
			Legs: []report.Leg{{ID: "l1", Transport: report.TransportUDP, Client: "10.21.0.1:6000", Server: "10.21.0.2:20084", Flows: []string{}}},
			Directions: []report.Direction{{ID: "d1", From: "10.21.0.1:6000", To: "10.21.0.2:20084", Legs: []string{"l1"},
				Transport: report.TransportUDP, MediaPackets: 1000, WireBytes: 200000, ActiveS: float64(len(kbps)),
				Series: report.Series{MediaKbps: kbps, Lost: lost, Late: counted(late)},
				Ramp: &report.Ramp{TargetKbps: 64, TargetSource: "plateau", PlateauKbps: 64, T50S: &t90, T90S: &t90,
					Stable: &stable, CVAfterT90: &cv}}},
		}
	}
	hold := []float64{64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 20.5, 0, 0, 0, 0, 0, 0.04, 32, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64}
	unstable := []report.Finding{{Code: "unstable_bitrate", Severity: "warn",
		Text: "10.21.0.1:6000 -> 10.21.0.2:20084: after ramping up, the media bitrate kept swinging more than 20% around 64 kbps (coefficient of variation 0.67).",
		Legs: []string{"l1"}, Directions: []string{"d1"}, Figures: map[string]float64{"plateau_kbps": 64, "cv_after_t90": 0.67}}}
	none := make([]int64, len(hold))
	checkFindingList(t, Findings(build(hold, none, none)), []report.Finding{})
	// 1,000 packets in 28 s: 18 are half a second's.
	after := slices.Clone(none)
	after[17] = 18 // the second that ended the pause
	checkFindingList(t, Findings(build(hold, none, after)), unstable)
	checkFindingList(t, Findings(build(hold, after, none)), unstable)
	after[17] = 17
	checkFindingList(t, Findings(build(hold, none, after)), []report.Finding{})
	everySecond := slices.Repeat([]int64{1}, len(hold))
	checkFindingList(t, Findings(build(hold, everySecond, none)), []report.Finding{})
	var swing []float64
	for i := range 28 {
		swing = append(swing, []float64{64, 20}[i%2])
	}
	checkFindingList(t, Findings(build(swing, nil, nil)), unstable)
}

// TestSteadyOffTargetIsNoSwing: against --ramp-target 1 Mbps, a direction that settled at
// 2 Mbps is not stable (DESIGN: within ±20% of the target), but it held: it did not keep
// swinging, and unstable_bitrate would misname it. One that goes between 3 Mbps and 300 kbps
// every three seconds is.
func TestSteadyOffTargetIsNoSwing(t *testing.T) {
	build := func(kbps []float64, plateau float64) *report.Capture {
		t90, cv, stable := 3.0, 0.1, false
		return &report.Capture{
			Legs: []report.Leg{{ID: "l1", Transport: report.TransportUDP, Client: "10.21.0.1:6000", Server: "10.21.0.2:20084", Flows: []string{}}},
			Directions: []report.Direction{{ID: "d1", From: "10.21.0.1:6000", To: "10.21.0.2:20084", Legs: []string{"l1"},
				Transport: report.TransportUDP, MediaPackets: 5000, WireBytes: 5000000, ActiveS: float64(len(kbps)),
				Series: report.Series{MediaKbps: kbps},
				Ramp: &report.Ramp{TargetKbps: 1000, TargetSource: report.TargetFromOption, PlateauKbps: plateau, T50S: &t90, T90S: &t90,
					Stable: &stable, CVAfterT90: &cv}}},
		}
	}
	steady := slices.Concat([]float64{100, 500, 1000}, slices.Repeat([]float64{2000}, 25))
	checkFindingList(t, Findings(build(steady, 2000)), []report.Finding{})
	swing := []float64{100, 500, 1000}
	for i := range 24 {
		swing = append(swing, []float64{3000, 300}[i/3%2])
	}
	checkFindingList(t, Findings(build(swing, 1650)), []report.Finding{{Code: "unstable_bitrate", Severity: "warn",
		Text: "10.21.0.1:6000 -> 10.21.0.2:20084: after ramping up, the media bitrate kept swinging more than 20% around 1.65 Mbps (coefficient of variation 0.10).",
		Legs: []string{"l1"}, Directions: []string{"d1"}, Figures: map[string]float64{"plateau_kbps": 1650, "cv_after_t90": 0.1}}})
}

// TestLevelStepIsNoSwing: a SIP call whose re-INVITE changed G.722 (64 kbps) for Opus
// (32 kbps) at 10 s is not stable around one plateau (DESIGN), and unstable_bitrate says
// so, but as the step it was: it "kept swinging around 32 kbps" misnamed it (two testers';
// the other a video that settled at 0.56 Mbps after 20 s at 2.06).
func TestLevelStepIsNoSwing(t *testing.T) {
	kbps := slices.Concat(slices.Repeat([]float64{64}, 10), slices.Repeat([]float64{32}, 20))
	t90, cv, stable := 0.0, 0.34, false
	c := &report.Capture{
		Legs: []report.Leg{{ID: "l1", Transport: report.TransportUDP, Client: "10.21.0.1:6000", Server: "10.21.0.2:20084", Flows: []string{}}},
		Directions: []report.Direction{{ID: "d1", From: "10.21.0.1:6000", To: "10.21.0.2:20084", Legs: []string{"l1"},
			Transport: report.TransportUDP, MediaPackets: 1500, WireBytes: 300000, ActiveS: float64(len(kbps)),
			Series: report.Series{MediaKbps: kbps},
			Ramp: &report.Ramp{TargetKbps: 32, TargetSource: "plateau", PlateauKbps: 32, T50S: &t90, T90S: &t90,
				Stable: &stable, CVAfterT90: &cv}}},
	}
	checkFindingList(t, Findings(c), []report.Finding{{Code: "unstable_bitrate", Severity: "warn",
		Text: "10.21.0.1:6000 -> 10.21.0.2:20084: the media bitrate changed level once, from 64 kbps to 32 kbps at 10 s, and held there.",
		Legs: []string{"l1"}, Directions: []string{"d1"}, Figures: map[string]float64{"from_kbps": 64, "to_kbps": 32, "step_s": 10}}})
}

// TestDroppedBeforeTCPSaysWho: seen from a TURN client, the gaps of its own media were its
// own drops; those of the media coming to it may be the TURN server's or its other leg's
// loss, which only the server's capture tells apart; over ICE-TCP, the sender's.
func TestDroppedBeforeTCPSaysWho(t *testing.T) {
	const client, server, peer, other = "10.0.0.1:51234", "203.0.113.7:443", "198.51.100.9:61000", "192.0.2.1:9"
	n := int64(5)
	dir := func(id, from, to, leg string, tr report.Transport) report.Direction {
		return report.Direction{ID: id, From: from, To: to, Legs: []string{leg}, Transport: tr, MediaPackets: 750,
			Loss: report.Loss{Expected: 750, Lost: n, DroppedBeforeTCP: &n}}
	}
	c := &report.Capture{
		Legs: []report.Leg{
			{ID: "l1", Transport: report.TransportTURNTCP, Client: client, Server: server, Peers: []string{peer}, Flows: []string{}},
			{ID: "l2", Transport: report.TransportICETCP, Client: client, Server: other, Peers: []string{}, Flows: []string{}},
		},
		Directions: []report.Direction{
			dir("d1", client, peer, "l1", report.TransportTURNTCP),
			dir("d2", peer, client, "l1", report.TransportTURNTCP),
			dir("d3", other, client, "l2", report.TransportICETCP),
		},
	}
	var got []string
	for _, f := range Findings(c) {
		if f.Code == report.FindingDroppedBeforeTCP {
			got = append(got, f.Text)
		}
	}
	const gap = ": 5 RTP packets never entered the TCP connection (a gap in RTP sequence numbers where TCP lost nothing): "
	want := []string{
		client + " -> " + peer + gap + "the client dropped them when its TCP send buffer was full.",
		peer + " -> " + client + gap + "the TURN server dropped them when its TCP send buffer was full, or they were lost on the way from the peer to it.",
		other + " -> " + client + gap + "the sender dropped them when its TCP send buffer was full.",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("dropped_before_tcp (-want +got):\n%s", d)
	}
}

// TestRampTargetIsForVideo: a --ramp-target that the video direction reaches late and
// the other side's audio never reaches gives one slow_ramp, the video's: the audio's ramp
// figures stay (t90 null), but falling short of a video rate is not an audio finding.
func TestRampTargetIsForVideo(t *testing.T) {
	t90 := 28.0
	c := &report.Capture{
		Legs: []report.Leg{{ID: "l1", Transport: report.TransportUDP, Client: "10.0.0.1:51234", Server: "198.51.100.9:9", Flows: []string{}}},
		Streams: []report.Stream{{ID: "s1", Direction: "d1", Kind: "audio"}, {ID: "s2", Direction: "d2", Kind: "video"},
			{ID: "s3", Direction: "d2", Kind: "audio"}},
		Directions: []report.Direction{
			{ID: "d1", From: "198.51.100.9:9", To: "10.0.0.1:51234", Legs: []string{"l1"}, Transport: report.TransportUDP,
				MediaPackets: 3000, WireBytes: 1000, ActiveS: 60,
				Ramp: &report.Ramp{TargetKbps: 2500, TargetSource: "option", PlateauKbps: 28}},
			{ID: "d2", From: "10.0.0.1:51234", To: "198.51.100.9:9", Legs: []string{"l1"}, Transport: report.TransportUDP,
				MediaPackets: 3000, WireBytes: 1000, ActiveS: 60,
				Ramp: &report.Ramp{TargetKbps: 2500, TargetSource: "option", PlateauKbps: 2500, T90S: &t90}}},
	}
	checkFindingList(t, Findings(c), []report.Finding{{Code: "slow_ramp", Severity: "warn",
		Text: "10.0.0.1:51234 -> 198.51.100.9:9: the media bitrate took 28 s to reach 90% of 2.50 Mbps (a healthy call over UDP gets there in under 5 s).",
		Legs: []string{"l1"}, Directions: []string{"d2"}, Figures: map[string]float64{"t90_s": 28, "ramp_target_kbps": 2500}}})
}

// TestForwardedTimingSaidOnce: at a TURN server the media arriving from the client (d1)
// leaves the relayed address for the peer (d2) with the same packets, held up as they
// came: the late packets are one finding, the arriving direction's; a loss the relay adds
// on its way out is still said (d2 lost 3 that d1 did not).
func TestForwardedTimingSaidOnce(t *testing.T) {
	relayed := "203.0.113.7:50012"
	late := &report.Late{BudgetMS: 150, Packets: 30, Pct: 2}
	pct := 2.0
	c := &report.Capture{
		Legs: []report.Leg{
			{ID: "l1", Transport: report.TransportTURNUDP, Client: "10.0.0.1:51234", Server: "203.0.113.7:3478",
				Relayed: &relayed, Peers: []string{"198.51.100.9:50000"}, Flows: []string{}},
			{ID: "l2", Transport: report.TransportUDP, Client: relayed, Server: "198.51.100.9:50000", Flows: []string{}}},
		Streams: []report.Stream{{ID: "s1", Direction: "d1", SSRC: "0x00000001", Kind: "video"},
			{ID: "s2", Direction: "d2", SSRC: "0x00000001", Kind: "video"}},
		Directions: []report.Direction{
			{ID: "d1", From: "10.0.0.1:51234", To: "198.51.100.9:50000", Legs: []string{"l1"}, Transport: report.TransportTURNUDP,
				Streams: []string{"s1"}, MediaPackets: 1500, Late: late},
			{ID: "d2", From: relayed, To: "198.51.100.9:50000", Legs: []string{"l2"}, Transport: report.TransportUDP,
				Streams: []string{"s2"}, MediaPackets: 1497, Late: late,
				Loss: report.Loss{Expected: 150, Lost: 3, Pct: &pct}}},
	}
	got := Findings(c)
	var codes []string
	for _, f := range got {
		codes = append(codes, string(f.Code)+" "+strings.Join(f.Directions, ","))
	}
	want := []string{"late_packets d1", "rtp_loss d2", "media_over_turn "}
	if !slices.Equal(codes, want) {
		t.Errorf("findings %q, want %q", codes, want)
	}
}

// TestFindingsSayOne: a single late packet, lost packet and snapped packet are said in
// the singular (a report built by hand; "1 media packets" before).
func TestFindingsSayOne(t *testing.T) {
	pct := 5.0
	c := &report.Capture{
		SnappedPackets: 1,
		Legs:           []report.Leg{{ID: "l1", Transport: report.TransportUDP, Client: "10.0.0.1:51234", Server: "198.51.100.9:9", Flows: []string{}}},
		Streams:        []report.Stream{{ID: "s1", Direction: "d1", Kind: "audio"}},
		Directions: []report.Direction{{ID: "d1", From: "10.0.0.1:51234", To: "198.51.100.9:9", Legs: []string{"l1"},
			Transport: report.TransportUDP, Streams: []string{"s1"}, MediaPackets: 19, WireBytes: 1000, ActiveS: 1,
			Late: &report.Late{BudgetMS: 150, Packets: 1, Pct: 5}, Loss: report.Loss{Expected: 20, Lost: 1, Pct: &pct}}},
	}
	var texts []string
	for _, f := range Findings(c) {
		texts = append(texts, f.Text)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"1 media packet (5.0%) arrived", "1 of 20 media packets was lost", "1 packet was cut by the capture's snap length"} {
		if !strings.Contains(all, want) {
			t.Errorf("findings %q, want one saying %q", all, want)
		}
	}
}

// serverCall is call k of serverCalls: its client 10.0.0.(k+1):51234 reaches the TURN
// server 203.0.113.7:443 over TCP, relayed to its peer 198.51.100.(k+1):50000 from
// 203.0.113.7:50012+2k.
func serverCall(k int) (client, relayed, peer netip.AddrPort) {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(k + 1)}), 51234),
		netip.AddrPortFrom(tcpServer.Addr(), uint16(50012+2*k)),
		netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, 100, byte(k + 1)}), 50000)
}

// serverCalls is a TURN server's capture of three calls: each client's TCP connection
// (tcpStreams' media, call k starting k × 7 ms later) and each relayed address's UDP leg to
// its peer, the media the relay forwards (the audio streams, each way). Call 1's TCP
// connection is impairedCall's, and the relay drops its audio to the peer i%50 == 7 (3 of
// 150): the one call with loss.
func serverCalls() []callgen.Packet {
	var pkts []callgen.Packet
	for k := range 3 {
		client, relayed, peer := serverCall(k)
		shift := time.Duration(k) * 7 * time.Millisecond
		ss := tcpStreams(nil)
		for i := range ss {
			ss[i].Start += shift
			ss[i].SSRC += uint32(k)
			if ss[i].Src == bob {
				ss[i].Src, ss[i].Dst = peer, client
			} else {
				ss[i].Src, ss[i].Dst = client, peer
			}
		}
		dir := func(s *callgen.Stream) int {
			if s.Src == peer {
				return 1
			}
			return 0
		}
		setup := callgen.TURNTCPSetupOfCall(k, 10*time.Millisecond+shift, 60*time.Millisecond, relayed, peer, channel)
		media := callgen.MediaWrites(func(b []byte) []byte { return callgen.ChannelData(channel, b) }, dir, ss...)
		call := callgen.TCPCall{Client: client, Server: tcpServer, Start: shift, ISN: [2]uint32{uint32(1000 + k), uint32(900000 + k)}}
		if k == 1 {
			call.LoseAfter, call.Spurious, call.LoseBefore = impairedCall().LoseAfter, impairedCall().Spurious, impairedCall().LoseBefore
		}
		pkts = append(pkts, call.Packets(callgen.MergeWrites(setup, media))...)
		// The peer leg: the audio each way between the relayed address and the peer, 30 ms
		// (half the client's RTT) after the client's writes.
		toPeer, fromPeer := ss[0], ss[2]
		toPeer.Src, toPeer.Dst, toPeer.Start = relayed, peer, toPeer.Start+30*time.Millisecond
		fromPeer.Src, fromPeer.Dst = peer, relayed
		if k == 1 {
			toPeer.Lose = func(i int) bool { return i%50 == 7 }
		}
		pkts = append(pkts, toPeer.Packets()...)
		pkts = append(pkts, fromPeer.Packets()...)
	}
	return pkts
}

// Three calls at one TURN server: every finding names its call, by its legs (the client's
// TCP leg and the relayed address's UDP leg, joined by the relayed address), its
// directions and its sentence. Call 1 (legs l2 and l5) ranks first: its TCP finding has
// TestTURNOverTCP's figures, and its peer leg lost 3 of 150 audio packets (i = 7, 57, 107).
// Before: 11 findings, three media_over_tcp warn "Media was relayed over TCP through TURN
// 203.0.113.7:443" naming no call (two of them "0% … retransmissions"), three
// media_over_turn alike, two late_packets (bad) and two tcp_retransmissions for call 1, and
// its rtp_loss.
func TestFindingsNameTheirCall(t *testing.T) {
	c := analyze(t, pcapOf(t, serverCalls()), Options{})
	if len(c.Legs) != 6 || len(c.Directions) != 12 {
		t.Fatalf("legs %d directions %d, want 6 and 12", len(c.Legs), len(c.Directions))
	}
	wire := func(ids ...string) int64 {
		var n int64
		for _, d := range c.Directions {
			if slices.Contains(ids, d.ID) {
				n += d.WireBytes
			}
		}
		return n
	}
	c0, _, p0 := serverCall(0)
	c1, _, p1 := serverCall(1)
	c2, _, p2 := serverCall(2)
	bad := report.Finding{Code: "media_over_tcp", Severity: "bad",
		Text: "Media between " + c1.String() + " and " + p1.String() + " was relayed over TCP through TURN 203.0.113.7:443: " +
			"0.6% of the bytes on that connection were retransmissions; 32 media packets (5.3%) arrived more than 150 ms late, " +
			"28 of them held behind a retransmitted segment (head-of-line blocking), 4 whose own bytes were retransmitted; " +
			"TCP's ACKs, framing and retransmissions took 8.0% of the wire bytes.",
		Legs: []string{"l2", "l5"}, Directions: []string{"d8", "d11"},
		Figures: map[string]float64{"tcp_retransmitted_pct": 0.641, "retransmitted_bytes": 2492, "late_packets": 32,
			"late_pct": 5.333, "hol_blocked": 28, "late_retransmitted": 4, "avoidable_overhead_pct": 8.035}}
	// The relay dropped them: said once, of the call direction from its client, with both
	// legs' directions (before, of the relayed address's direction only).
	loss := report.Finding{Code: "rtp_loss", Severity: "warn", Text: c1.String() + " -> " + p1.String() +
		" through the relay: 3 of 150 media packets were lost (2.0%): 3 that reached it and never left it.",
		Legs: []string{"l2", "l5"}, Directions: []string{"d5", "d8"},
		Figures: map[string]float64{"lost": 3, "expected": 150, "loss_pct": 2, "lost_after_relay": 3}}
	checkFindingList(t, c.Findings, []report.Finding{bad, loss,
		cleanTCPFinding(c0, p0, []string{"l1", "l4"}, []string{"d7", "d10"}, wire("d7", "d10")),
		cleanTCPFinding(c2, p2, []string{"l3", "l6"}, []string{"d9", "d12"}, wire("d9", "d12"))})
}

// TestICEFailedOnlyWithoutMedia: p2pChecks' Binding requests with no answer in the capture
// are ice_failed when no media flows; with media between the same endpoints the checks
// failed nothing (their answers are not in the capture), and there is no finding. Before,
// bad either way. One request is "1 Binding request".
func TestICEFailedOnlyWithoutMedia(t *testing.T) {
	var reqs []callgen.Packet
	for _, p := range p2pChecks.Packets(0) {
		if binary.BigEndian.Uint16(p.Frame[42:]) == 0x0001 { // a Binding request
			reqs = append(reqs, p)
		}
	}
	iceFailed := func(c report.Capture) string {
		for _, f := range c.Findings {
			if f.Code == report.FindingICEFailed {
				return f.Text
			}
		}
		return ""
	}
	if got := iceFailed(analyze(t, pcapOf(t, reqs), Options{})); !strings.Contains(got, "Binding requests, no success response, and no media") {
		t.Errorf("requests alone: ice_failed %q", got)
	}
	if got := iceFailed(analyze(t, pcapOf(t, reqs[:1]), Options{})); !strings.Contains(got, "1 Binding request,") {
		t.Errorf("one request: ice_failed %q", got)
	}
	s := audio()
	s.Src, s.Dst = p2pChecks.A, p2pChecks.B
	if got := iceFailed(analyze(t, pcapOf(t, append(reqs, s.Packets()...)), Options{})); got != "" {
		t.Errorf("with media: ice_failed %q, want none", got)
	}
}

// TestEncryptedMediaOfItsLeg: DTLS keys the SRTP of its own flow (RFC 5764). On the media's
// flow it is encrypted_media, of that leg; on another flow it says nothing of the media, and
// there is no finding. Before, DTLS anywhere made the capture's media "SRTP keyed by DTLS".
func TestEncryptedMediaOfItsLeg(t *testing.T) {
	s := audio()
	elsewhere := netip.MustParseAddrPort("192.0.2.50:5000")
	for name, dtls := range map[string]callgen.Packet{
		"on the media's flow": callgen.DTLSRecord(-50*time.Millisecond, alice, bob),
		"on another flow":     callgen.DTLSRecord(-50*time.Millisecond, elsewhere, bob),
	} {
		c := analyze(t, pcapOf(t, append(s.Packets(), dtls)), Options{})
		var got []report.Finding
		for _, f := range c.Findings {
			if f.Code == report.FindingEncryptedMedia {
				got = append(got, f)
			}
		}
		want := 0
		if name == "on the media's flow" {
			want = 1
		}
		if len(got) != want || want == 1 && !slices.Equal(got[0].Legs, []string{c.Legs[0].ID}) {
			t.Errorf("%s: encrypted_media %+v, want %d naming the media's leg", name, got, want)
		}
	}
}

// TestMediaOverTCPNamesItsCosts: audio one way over ICE-TCP, nothing lost: TCP's cost (a
// pure ACK for each 40-byte packet) is its ACKs and framing, and the sentence names those,
// not retransmissions, which were none.
func TestMediaOverTCPNamesItsCosts(t *testing.T) {
	s := audio()
	s.PayloadSize = 40 // a low-rate codec: the ACKs are a quarter of the wire bytes
	call := callgen.TCPCall{Client: alice, Server: bob, RTT: 20 * time.Millisecond, ISN: [2]uint32{100, 900}}
	c := analyze(t, pcapOf(t, call.Packets(callgen.MediaWrites(callgen.Frame4571, func(*callgen.Stream) int { return 0 }, s))), Options{})
	var text string
	for _, f := range c.Findings {
		if f.Code == report.FindingMediaOverTCP {
			text = f.Text
		}
	}
	if !strings.Contains(text, "TCP's ACKs and framing took") || strings.Contains(text, "retransmissions") {
		t.Errorf("media_over_tcp %q: want its ACKs and framing named, no retransmissions", text)
	}
}

// TestLossReportedByTheReceiver: a capture at the sender of an audio stream (500 packets,
// none lost in the capture) holds the receiver's RTCP receiver reports at 2 s, 5 s and 9 s:
// cumulative lost 3, 10 and 28 at extended highest sequence numbers 1,090, 1,240 and
// 1,440. Between its first and last report the receiver expected 350 packets and lost 25
// of them (7.1%): the loss was after the capture point, which rtp_loss says, with the
// receiver's figures. A capture that saw loss itself says its own (the other case).
func TestLossReportedByTheReceiver(t *testing.T) {
	rr := func(lost, highest uint32) []byte {
		b, err := (&rtcp.ReceiverReport{SSRC: 0xb0b, Reports: []rtcp.ReceptionReport{{
			SSRC: 0x1a2b3c4d, TotalLost: lost, LastSequenceNumber: highest}}}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	withReports := func(s callgen.Stream) []callgen.Packet {
		pkts := s.Packets()
		pkts = append(pkts, s.RTCPAt(2*time.Second, rr(3, 1090)), s.RTCPAt(5*time.Second, rr(10, 1240)),
			s.RTCPAt(9*time.Second, rr(28, 1440)))
		sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
		return pkts
	}
	c := analyze(t, pcapOf(t, withReports(audio())), Options{})
	st := onlyStream(t, c)
	if st.RTCP == nil || deref(st.RTCP.ReportedLost) != 25 || deref(st.RTCP.ReportedExpected) != 350 {
		t.Fatalf("stream RTCP %+v, want reported lost 25 of 350", st.RTCP)
	}
	checkFindingList(t, c.Findings, []report.Finding{{Code: report.FindingRTPLoss, Severity: report.SeverityBad,
		Legs: []string{"l1"}, Directions: []string{"d1"},
		Figures: map[string]float64{"receiver_reported_lost": 25, "receiver_reported_expected": 350, "loss_pct": 7.143},
		Text:    c.Directions[0].From + " -> " + c.Directions[0].To + ": the receiver reported 25 of 350 media packets lost (7.1%) in its RTCP receiver reports; the capture saw none of them lost, so they were lost after this point."}})

	lossy := audio()
	lossy.Lose = func(i int) bool { return i == 100 }
	c = analyze(t, pcapOf(t, withReports(lossy)), Options{})
	if len(c.Findings) != 1 || c.Findings[0].Figures["lost"] != 1 {
		t.Errorf("a capture that saw a loss: findings %+v, want its own rtp_loss of 1", c.Findings)
	}
}

// TestEncryptedMediaBySRTCP: a SIP call whose SDP keyed SRTP (SDES, a=crypto) shows no
// DTLS, but its RTCP is SRTCP (the E flag and index, and a tag, after the clear header):
// its media is SRTP all the same, and encrypted_media says so of its leg (before: nothing,
// and the payload figures read as plain media's). Plain RTCP says nothing.
func TestEncryptedMediaBySRTCP(t *testing.T) {
	s := audio()
	sr := func(encrypted bool) []byte {
		b := []byte{0x80, 200, 0, 6}
		b = binary.BigEndian.AppendUint32(b, s.SSRC)
		b = append(b, make([]byte, 20)...) // sender info: NTP and RTP time, counts (encrypted or not)
		if encrypted {
			b = append(b, 0x80, 0, 0, 1)                                        // E=1, SRTCP index 1
			b = append(b, 0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 1, 2) // HMAC-SHA1-80 tag
		}
		return b
	}
	for _, encrypted := range []bool{true, false} {
		pkts := append(s.Packets(), callgen.Packet{T: callgen.Epoch + int64(5*time.Second), Frame: pcapgen.EtherUDP(alice, bob, sr(encrypted))})
		c := analyze(t, pcapOf(t, pkts), Options{})
		var got []report.Finding
		for _, f := range c.Findings {
			if f.Code == report.FindingEncryptedMedia {
				got = append(got, f)
			}
		}
		switch {
		case encrypted && (len(got) != 1 || !slices.Equal(got[0].Legs, []string{"l1"}) || !strings.Contains(got[0].Text, "SDES")):
			t.Errorf("SRTCP: encrypted_media %+v, want one naming l1", got)
		case !encrypted && len(got) != 0:
			t.Errorf("plain RTCP: encrypted_media %+v, want none", got)
		}
	}
}

// TestLossBesideInterfaceDrops: 10 packets of a call missing where the capture's interface
// statistics say it dropped 10: the rtp_loss finding says they may be among them.
func TestLossBesideInterfaceDrops(t *testing.T) {
	s := audio()
	s.Lose = func(i int) bool { return i >= 100 && i < 110 }
	var b bytes.Buffer
	w := pcapgen.NewPcapNG(&b, []pcapgen.Iface{{Link: capture.LinkEthernet}})
	for _, p := range s.Packets() {
		w.Write(p.T, 0, p.Frame, 0)
	}
	w.WriteISB(0, 10)
	c := analyze(t, b.Bytes(), Options{})
	var text string
	for _, f := range c.Findings {
		if f.Code == report.FindingRTPLoss {
			text = f.Text
		}
	}
	if want := "10 of 500 media packets were lost (2.0%); the capture's interfaces dropped 10 packets, which may be among them."; !strings.HasSuffix(text, want) {
		t.Errorf("rtp_loss %q, want it to end %q", text, want)
	}
}

// TestTURNLegWithoutMedia: an allocation through which only STUN went (ICE checks that were
// never answered; Signal's allocations while its media went direct) relayed no media, and
// media_over_turn does not say it did. One that relayed anything else (DTLS, a messenger's
// own media) did.
func TestTURNLegWithoutMedia(t *testing.T) {
	build := func(content ...string) *report.Capture {
		return &report.Capture{
			Flows: []report.Flow{{ID: "f1", Proto: "udp", A: "10.0.0.1:50000", B: "203.0.113.7:3478", Content: content}},
			Legs: []report.Leg{{ID: "l1", Transport: report.TransportTURNUDP, Client: "10.0.0.1:50000", Server: "203.0.113.7:3478",
				Peers: []string{"198.51.100.9:9000"}, Flows: []string{"f1"}}},
		}
	}
	checkFindingList(t, Findings(build("stun", "channeldata")), []report.Finding{})
	checkFindingList(t, Findings(build("other", "stun")), []report.Finding{{Code: report.FindingMediaOverTURN, Severity: report.SeverityInfo,
		Text: "Media between 10.0.0.1:50000 and 198.51.100.9:9000 was relayed over UDP through TURN 203.0.113.7:3478 instead of a direct path.",
		Legs: []string{"l1"}, Directions: []string{}, Figures: map[string]float64{}}})
}

// TestMediaOverTCPLateShareOfMeasured: of a TURN/TCP call's two directions, the one captured
// at its sender has no lateness (late null): the late share is of the other's packets, 45
// of 98 (45.9%), as its own line says. Before, of both directions' 198 (22.7%) (h141).
func TestMediaOverTCPLateShareOfMeasured(t *testing.T) {
	const client, server, peer = "10.0.0.1:51234", "203.0.113.7:443", "198.51.100.9:61000"
	c := &report.Capture{
		Legs: []report.Leg{{ID: "l1", Transport: report.TransportTURNTCP, Client: client, Server: server, Peers: []string{peer}, Flows: []string{}}},
		Directions: []report.Direction{
			{ID: "d1", From: client, To: peer, Legs: []string{"l1"}, Transport: report.TransportTURNTCP, MediaPackets: 100},
			{ID: "d2", From: peer, To: client, Legs: []string{"l1"}, Transport: report.TransportTURNTCP, MediaPackets: 98,
				Late: &report.Late{BudgetMS: 150, Packets: 45, Pct: 45.918}},
		},
	}
	for _, f := range Findings(c) {
		if f.Code == report.FindingMediaOverTCP {
			if f.Figures["late_packets"] != 45 || f.Figures["late_pct"] != 45.918 {
				t.Errorf("media_over_tcp figures %v, want 45 late, 45.918%%", f.Figures)
			}
			return
		}
	}
	t.Error("no media_over_tcp finding")
}

// TestICEFailedBesideAStunServer: three connectivity checks unanswered, no media, and the
// STUN server's answer to the address lookup (a success, but no check's): ICE failed, of
// the three checks. Before, no finding (h139).
func TestICEFailedBesideAStunServer(t *testing.T) {
	c := &report.Capture{ICE: report.ICE{Checks: 4, Successes: 1, ConnectivityChecks: 3}}
	checkFindingList(t, Findings(c), []report.Finding{{Code: report.FindingICEFailed, Severity: report.SeverityBad,
		Text: "ICE connectivity checks failed: 3 Binding requests, no success response, and no media.",
		Legs: []string{}, Directions: []string{}, Figures: map[string]float64{"checks": 3}}})
}

// TestHighJitterAtTheSender: both directions' audio leaves its sender in bursts of five
// every 100 ms (a mean jitter of about 34 ms), captured at A, whose ICE checks say it is
// A's media's sender. B's media arrived so: high_jitter. A's was only sent so, its own
// pacing, before the path it was measured for: no finding, as no late one.
func TestHighJitterAtTheSender(t *testing.T) {
	bursts := func(i int) time.Duration { return time.Duration(4-i%5) * 20 * time.Millisecond }
	out := audio()
	out.Src, out.Dst, out.Start, out.Delay = p2pChecks.A, p2pChecks.B, 200*time.Millisecond, bursts
	in := audio()
	in.Src, in.Dst, in.SSRC, in.Start, in.Delay = p2pChecks.B, p2pChecks.A, 0x5e5e, 210*time.Millisecond, bursts
	pkts := append(p2pChecks.Packets(0), out.Packets()...)
	c := analyze(t, pcapOf(t, append(pkts, in.Packets()...)), Options{})
	var got []string
	for _, f := range c.Findings {
		if f.Code == report.FindingHighJitter {
			got = append(got, f.Directions...)
		}
	}
	var want []string
	for _, d := range c.Directions {
		if d.From == p2pChecks.B.String() {
			want = append(want, d.ID)
		}
	}
	if len(want) != 1 || !slices.Equal(got, want) {
		t.Errorf("high_jitter on %v, want %v", got, want)
	}
}

// TestLatePacketsSentence: late is against the fastest of the packet's stream within the
// baseline's window, each way (5 s), so the sentence says so; "the stream's fastest" read
// as the call's, where a queue that held for 15 s was not late (h159).
func TestLatePacketsSentence(t *testing.T) {
	c := report.Capture{
		Legs: []report.Leg{{ID: "l1", Transport: report.TransportUDP, Client: "10.0.0.1:5000", Server: "10.0.0.2:6000", Flows: []string{}}},
		Directions: []report.Direction{{ID: "d1", From: "10.0.0.1:5000", To: "10.0.0.2:6000", Legs: []string{"l1"},
			Transport: report.TransportUDP, MediaPackets: 1000, Late: &report.Late{BudgetMS: 150, Packets: 30, Pct: 3}}},
	}
	for _, f := range Findings(&c) {
		if f.Code == report.FindingLatePackets {
			want := "10.0.0.1:5000 -> 10.0.0.2:6000: 30 media packets (3.0%) arrived more than 150 ms later than their stream's fastest within 5 s, too late to be played."
			if f.Text != want {
				t.Errorf("text %q\nwant %q", f.Text, want)
			}
			return
		}
	}
	t.Error("no late_packets finding")
}
