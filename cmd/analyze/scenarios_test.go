package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/callpcap/callpcap/internal/testgen/golden"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/internal/testgen/textcheck"
	"github.com/callpcap/callpcap/report"
)

// scenario is one entry of testdata/scenarios/MANIFEST.json: a capture of a Chromium call
// recorded by tools/callsim in one of the seed comparison's four conditions.
type scenario struct {
	File     string  `json:"file"`
	Scenario int     `json:"scenario"` // 1 P2P/UDP, 2 TURN/TCP, 3 P2P/UDP + loss, 4 TURN/TCP + loss
	Vantage  string  `json:"vantage"`  // caller | turn-server
	RTTMS    int     `json:"rtt_ms"`
	LossPct  float64 `json:"loss_pct"`
	Stats    string  `json:"stats"`
	Scrubbed bool    `json:"scrubbed"`
}

// endStats is what the browsers' getStats said last (the stats file's last line per role).
type endStats struct {
	sent map[uint32]rtpStats // outbound-rtp by SSRC, of either browser
	recv map[uint32]rtpStats // inbound-rtp by SSRC
	rtt  []float64           // the caller's selected pair's currentRoundTripTime, ms, every second
}

type rtpStats struct {
	Role                     string `json:"-"`
	Kind                     string `json:"kind"`
	SSRC                     uint32 `json:"ssrc"`
	PacketsSent              int64  `json:"packetsSent"`
	RetransmittedPacketsSent int64  `json:"retransmittedPacketsSent"`
	NACKCount                int64  `json:"nackCount"`
	PacketsReceived          int64  `json:"packetsReceived"`
	PacketsLost              int64  `json:"packetsLost"`
}

func readStats(t *testing.T, path string) endStats {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	last := map[string]struct {
		Outbound, Inbound []rtpStats
	}{}
	es := endStats{sent: map[uint32]rtpStats{}, recv: map[uint32]rtpStats{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Role              string
			Outbound, Inbound []rtpStats
			Pair              *struct {
				CurrentRoundTripTime *float64 `json:"currentRoundTripTime"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		last[l.Role] = struct{ Outbound, Inbound []rtpStats }{l.Outbound, l.Inbound}
		if l.Role == "caller" && l.Pair != nil && l.Pair.CurrentRoundTripTime != nil {
			es.rtt = append(es.rtt, *l.Pair.CurrentRoundTripTime*1000)
		}
	}
	for role, l := range last {
		for _, s := range l.Outbound {
			s.Role = role
			es.sent[s.SSRC] = s
		}
		for _, s := range l.Inbound {
			s.Role = role
			es.recv[s.SSRC] = s
		}
	}
	return es
}

// TestScenarios runs the command on every capture of testdata/scenarios, Chromium's
// WebRTC through coturn behind an emulated 5 Mbit/s bottleneck (testdata/scenarios/
// README.md), compares each JSON report with its golden file (-update rewrites them) and
// the contract, then checks what the physics of each scenario says the capture must show,
// and the analyzer's counts against the endpoints' own getStats. What a capture shows
// beyond that is pinned by its golden report; README.md there says what the runs vary by.
func TestScenarios(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	dir := filepath.Join("testdata", "scenarios")
	b, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json"))
	if err != nil {
		t.Fatal(err)
	}
	var scens []scenario
	if err := json.Unmarshal(b, &scens); err != nil {
		t.Fatal(err)
	}
	if len(scens) != 10 {
		t.Fatalf("%d captures in MANIFEST.json, want 10", len(scens))
	}
	reports := map[string]report.Capture{}
	for _, sc := range scens {
		base := strings.TrimSuffix(sc.File, ".pcap.gz")
		t.Run(base, func(t *testing.T) {
			path := filepath.Join(dir, sc.File)
			code, stdout, stderr := runCmd(t, "", "--format", "json", path)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			golden.Check(t, filepath.Join(dir, base+".golden.json"), []byte(stdout))
			schematest.Check(t, []byte(stdout))
			var r report.Report
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatal(err)
			}
			c := r.Captures[0]
			reports[base] = c
			checkScenario(t, sc, c, readStats(t, filepath.Join(dir, sc.Stats)))
			if code, text, _ := runCmd(t, "", path); code == 0 {
				textcheck.Width(t, text)
			} else {
				t.Errorf("text report: exit %d", code)
			}
		})
	}
	// 4 against 2 at 100 ms, from the caller's capture: the same path, loss added. TCP hides
	// the loss (no RTP lost, checked above) and pays for it in delay and bitrate.
	s2, s4 := reports["s2-turn-tcp-rtt100-caller"], reports["s4-turn-tcp-loss-rtt100-caller"]
	d2, d4 := callerSends(t, s2), callerSends(t, s4)
	if p2, p4 := d2.DelayMS.P95, d4.DelayMS.P95; p4 < 3*p2 {
		t.Errorf("delay p95 of the caller's media at 100 ms: %.1f ms with loss, %.1f ms without; want at least 3 times", p4, p2)
	}
	if g2, g4 := *d2.GoodputKbps, *d4.GoodputKbps; g4 > 0.7*g2 {
		t.Errorf("goodput at 100 ms: %.0f kbps with loss, %.0f without; want at most 70%%", g4, g2)
	}
	if d4.Late.Pct <= d2.Late.Pct {
		t.Errorf("late at 100 ms: %.2f%% with loss, %.2f%% without; want more with loss", d4.Late.Pct, d2.Late.Pct)
	}
	// At the TURN server, the receiver of the caller's TCP: the hold-ups behind
	// retransmissions reach a round trip.
	if h := holdUps(t, reports["s4-turn-tcp-loss-rtt100-turn"]); h == nil || h.Max < 100 {
		t.Errorf("hold-ups behind retransmissions at the TURN server, 100 ms: %+v; want a max of 100 ms or more", h)
	}
	// 3 against 1: loss slows the ramp.
	if r1, r3 := callerSends(t, reports["s1-p2p-udp-rtt40-caller"]).Ramp, callerSends(t, reports["s3-p2p-udp-loss-rtt40-caller"]).Ramp; *r3.T90S <= *r1.T90S {
		t.Errorf("t90 of the caller's media: %v s with loss, %v s without; want later with loss", *r3.T90S, *r1.T90S)
	}
}

// callerSends is the direction of the caller's media to the callee (the caller is
// 10.10.1.2; at a TURN server, its TCP leg).
func callerSends(t *testing.T, c report.Capture) report.Direction {
	t.Helper()
	for _, d := range c.Directions {
		if strings.HasPrefix(d.From, "10.10.1.2:") {
			return d
		}
	}
	t.Fatalf("%s: no direction from the caller", c.File)
	return report.Direction{}
}

// holdUps returns the hold-up times of the caller's TCP connection to the TURN server in
// the direction from the caller (tcpframe's hol_delay_ms).
func holdUps(t *testing.T, c report.Capture) *report.Quantiles {
	t.Helper()
	for _, f := range c.Flows {
		if f.TCP != nil && strings.HasPrefix(f.A, "10.10.1.2:") && f.TCP.AToB.Messages > 1000 {
			return f.TCP.AToB.HOLDelayMS
		}
	}
	t.Fatalf("%s: no media TCP connection from the caller", c.File)
	return nil
}

// checkScenario checks one capture against its scenario's physics and the getStats.
func checkScenario(t *testing.T, sc scenario, c report.Capture, gs endStats) {
	t.Helper()
	tcp := sc.Scenario == 2 || sc.Scenario == 4
	// The path: direct UDP, or the caller over TURN/TCP (at the TURN server, also the
	// server's UDP leg to the callee).
	for _, d := range c.Directions {
		want := report.Transport("udp")
		if tcp && (strings.HasPrefix(d.From, "10.10.1.2:") || strings.HasPrefix(d.To, "10.10.1.2:")) {
			want = "turn-tcp"
		}
		if d.Transport != want {
			t.Errorf("%s -> %s: transport %q, want %q", d.From, d.To, d.Transport, want)
		}
	}
	for _, s := range c.Streams {
		if s.Kind == "rtx" || s.Lost == nil {
			continue
		}
		sent, ok := gs.sent[ssrcOf(t, s.SSRC)]
		if !ok {
			// getStats lists RTX under its media stream. An RTX stream of padded probes only
			// (s1) gives the matcher nothing to vote on and stays of unknown kind.
			if s.Kind != "unknown" {
				t.Errorf("%s %s %s: no getStats for it", s.ID, s.Kind, s.SSRC)
			}
			continue
		}
		// Loss: over TCP none reaches RTP; over UDP the capture at the caller sees what
		// its own link lost on the way in, as the caller's receiver counts it.
		lost := *s.Lost
		switch {
		case tcp || sc.LossPct == 0 || sent.Role == "caller":
			if lost != 0 {
				t.Errorf("%s %s %s: %d lost, want 0", s.ID, s.Kind, s.SSRC, lost)
			}
		default:
			recv := gs.recv[ssrcOf(t, s.SSRC)]
			if lost < recv.PacketsLost-2 || lost > recv.PacketsLost+2 {
				t.Errorf("%s %s %s: %d lost, the caller's getStats %d (±2: its last sample may precede the capture's end)", s.ID, s.Kind, s.SSRC, lost, recv.PacketsLost)
			}
		}
		// What the caller sent is all in a capture at the caller or at the TURN server
		// (its link's loss is after the one, its TCP repairs it before the other):
		// getStats packetsSent counts the media stream's packets and its RTX packets.
		if sent.Role == "caller" {
			n := s.Packets + rtxPackets(c, s.SSRC, s.Direction)
			if d := float64(n-sent.PacketsSent) / float64(sent.PacketsSent); d < -0.01 || d > 0.01 {
				t.Errorf("%s %s %s: %d packets with its RTX, getStats packetsSent %d: %.2f%% apart, want within 1%%", s.ID, s.Kind, s.SSRC, n, sent.PacketsSent, 100*d)
			}
		}
	}
	if sc.Vantage == "caller" {
		d := callerSends(t, c)
		if tcp {
			if r := d.TCPRetransmittedPct; r == nil || (sc.LossPct > 0) != (*r > 0) {
				t.Errorf("TCP retransmitted %v%% with %.1f%% loss on the link", r, sc.LossPct)
			}
		}
		// RTX repairs of the caller's video answer the callee's NACKs, as many as getStats'
		// retransmittedPacketsSent (±10%: a NACK libwebrtc ignores leaves a probe taken
		// for a repair, rtxmatcher.go).
		for _, s := range c.Streams {
			if s.RTX == nil || !strings.HasPrefix(s.Src, "10.10.1.2:") {
				continue
			}
			sent := gs.sent[ssrcOf(t, s.RTX.MediaSSRC)]
			if r, w := s.RTX.Repairs, sent.RetransmittedPacketsSent; float64(r) < 0.9*float64(w) || float64(r) > 1.1*float64(w)+1 {
				t.Errorf("%s: %d RTX repairs, getStats retransmittedPacketsSent %d", s.ID, r, w)
			}
		}
		// The callee's NACKs about the caller's video (SRTCP: counted by type, their lists
		// encrypted), as many as the caller's getStats nackCount (±2: its last sample).
		for _, s := range c.Streams {
			if s.Kind != "video" || !strings.HasPrefix(s.Src, "10.10.1.2:") {
				continue
			}
			var n int64
			if s.RTCP != nil {
				n = s.RTCP.Types["nack"]
				if s.RTCP.Encrypted && s.RTCP.NACKedPackets != nil {
					t.Errorf("%s: nacked_packets %d from encrypted NACKs, want null", s.ID, *s.RTCP.NACKedPackets)
				}
			}
			if w := gs.sent[ssrcOf(t, s.SSRC)].NACKCount; n < w-2 || n > w+2 {
				t.Errorf("%s: %d NACKs, getStats nackCount %d", s.ID, n, w)
			}
		}
		// ICE's round trip against the browser's: the checks and the pair's RTT measure the
		// same path.
		if q := c.ICE.RTTMS; q == nil || len(gs.rtt) == 0 {
			t.Errorf("ICE RTT %+v, getStats %d samples", q, len(gs.rtt))
		} else if m := median(gs.rtt); q.P50 < 0.75*m || q.P50 > 1.25*m {
			t.Errorf("ICE RTT p50 %.1f ms, getStats currentRoundTripTime median %.1f ms", q.P50, m)
		}
	}
}

// rtxPackets is the packets of the RTX stream of ssrc in direction dir, if any.
func rtxPackets(c report.Capture, ssrc, dir string) int64 {
	for _, s := range c.Streams {
		if s.RTX != nil && s.RTX.MediaSSRC == ssrc && s.Direction == dir {
			return s.Packets
		}
	}
	return 0
}

func ssrcOf(t *testing.T, s string) uint32 {
	t.Helper()
	var v uint32
	for _, c := range strings.TrimPrefix(s, "0x") {
		i := strings.IndexRune("0123456789abcdef", c)
		if i < 0 {
			t.Fatalf("SSRC %q", s)
		}
		v = v<<4 | uint32(i)
	}
	return v
}

func median(v []float64) float64 {
	w := slices.Clone(v)
	sort.Float64s(w)
	return w[len(w)/2]
}
