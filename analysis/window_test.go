package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
)

// windowCall is the TURN/TCP call of tcp_test.go without loss, whose TURN server's receive
// window fills twice: its buffer is 32,768 bytes (window scale 2 on both SYNs: it
// advertises 8,192) and its application stops reading at 1.0 s and at 2.2 s for 710 ms.
//
// By construction, the first stall: the client's writes from tick 0.98 s on reach the
// server after 1.0 s and stay unread, so the right edge stays at what was read + 32,768.
// 25 ticks of 1,292 bytes (32,300) fit; after tick 1.46 s the usable window is 468 bytes,
// less than a segment: the stall begins at 1.46 s. The server reads at 1.71 s; its window
// update reaches the capture (and the client) at 1.74 s: a stall of 280 ms. The 13 ticks
// written at 1.48 … 1.72 s go out at 1.74 s with the one written then (the window opens
// to 32,768, more than their 18,088 bytes). The second stall is the same 1.2 s later. No
// byte is retransmitted.
func windowCall() callgen.TCPCall {
	return callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000},
		RcvWindow: 32768, WScale: 2, Stalls: []callgen.TCPStall{
			{At: time.Second, For: 710 * time.Millisecond}, {At: 2200 * time.Millisecond, For: 710 * time.Millisecond}}}
}

// TestWindowStallsAreNotRetransmissions: late packets of a call whose receiver's window
// filled are blamed on the window, none on a retransmission, and the stalls are a finding.
func TestWindowStallsAreNotRetransmissions(t *testing.T) {
	c := analyze(t, pcapOf(t, windowCall().Packets(turnTCPWrites(nil))), Options{})
	if len(c.Flows) != 1 || c.Flows[0].TCP == nil || len(c.Directions) != 2 {
		t.Fatalf("flows %d directions %d; want one TCP flow, two directions", len(c.Flows), len(c.Directions))
	}
	tcp := c.Flows[0].TCP
	longest := 280.0
	if d := cmp.Diff(report.WindowStalls{Count: 2, LongestMS: &longest}, tcp.AToB.WindowStalls); d != "" {
		t.Errorf("client to server window_stalls (-want +got):\n%s", d)
	}
	if d := cmp.Diff(report.WindowStalls{}, tcp.BToA.WindowStalls); d != "" {
		t.Errorf("server to client window_stalls (-want +got):\n%s", d)
	}
	if tcp.AToB.RetransmittedSegments != 0 || tcp.AToB.HOLDelayedMessages != 0 {
		t.Errorf("retransmitted %d hol delayed %d; want 0 0", tcp.AToB.RetransmittedSegments, tcp.AToB.HOLDelayedMessages)
	}
	// Late: of the 13 ticks held per stall, those written at 1.48 … 1.58 s went out 260 …
	// 160 ms late (1.60 s: 140 ms, within the budget): 6 ticks, 2 packets each, per stall.
	// Every one waited for the window.
	want := []*report.LateCauses{{Window: 24}, nil}
	for i, d := range c.Directions {
		wantLate := int64(0)
		if want[i] != nil {
			wantLate = want[i].Window
		}
		if d.Late == nil || d.Late.Packets != wantLate || d.Late.HOLBlocked != 0 || d.DelayMS == nil {
			t.Fatalf("%s: late %+v delay %+v; want %d late, none behind a retransmission", d.ID, d.Late, d.DelayMS, wantLate)
		}
		if want[i] == nil {
			want[i] = &report.LateCauses{}
		}
		if diff := cmp.Diff(want[i], d.Late.Causes); diff != "" {
			t.Errorf("%s late causes (-want +got):\n%s", d.ID, diff)
		}
	}
	if c.Directions[0].DelayMS.Max != 260 {
		t.Errorf("delay max %v, want 260 ms (tick 1.48 s sent at 1.74 s)", c.Directions[0].DelayMS.Max)
	}
	for _, s := range c.Streams {
		n := int64(0)
		if s.Src == tcpClient.String() {
			n = 12
		}
		if s.Late == nil || s.Late.Causes == nil || *s.Late.Causes != (report.LateCauses{Window: n}) || s.Late.Packets != n {
			t.Errorf("stream %s: late %+v; want %d, all by the window", s.SSRC, s.Late, n)
		}
	}
	texts := map[report.FindingCode]string{}
	for _, f := range c.Findings {
		texts[f.Code] += f.Text
	}
	for code, want := range map[report.FindingCode]string{
		report.FindingWindowStalls: "TCP 10.0.0.1:51234 -> 203.0.113.7:443: the receiver's window filled twice and held the sender back, the longest stall 280 ms.",
		// Late packets over TCP are a figure of the one media_over_tcp finding (its cause).
		report.FindingMediaOverTCP: "24 waiting for the receiver's full TCP window",
	} {
		if !strings.Contains(texts[code], want) {
			t.Errorf("finding %s = %q, want it to say %q", code, texts[code], want)
		}
	}
	if strings.Contains(texts[report.FindingMediaOverTCP], "retransmitted") {
		t.Errorf("media_over_tcp blames a retransmission: %q", texts[report.FindingMediaOverTCP])
	}
}

// TestRetransmissionLateCauses: on the impaired call of TestTURNOverTCP (a segment lost each
// way, no window stall), every late packet is blamed on the retransmission: 16 per
// direction, 8 per stream, of which hol_blocked counts those behind it (14 and 7; the lost
// segment's own two packets waited for no earlier byte).
func TestRetransmissionLateCauses(t *testing.T) {
	c := analyze(t, pcapOf(t, impairedCall().Packets(turnTCPWrites(nil))), Options{})
	for _, f := range c.Flows {
		if f.TCP == nil || f.TCP.AToB.WindowStalls.Count != 0 || f.TCP.BToA.WindowStalls.Count != 0 {
			t.Errorf("flow %s: %+v; want no window stall", f.ID, f.TCP)
		}
	}
	for _, d := range c.Directions {
		if d.Late == nil || d.Late.HOLBlocked != 14 || d.Late.Causes == nil ||
			*d.Late.Causes != (report.LateCauses{Retransmission: 16}) {
			t.Errorf("%s: late %+v; want 16 late, all by a retransmission, 14 behind one", d.ID, d.Late)
		}
	}
	for _, s := range c.Streams {
		if s.Late == nil || s.Late.Causes == nil || *s.Late.Causes != (report.LateCauses{Retransmission: 8}) {
			t.Errorf("stream %s: late %+v; want 8 by a retransmission", s.SSRC, s.Late)
		}
	}
	for _, f := range c.Findings {
		if f.Code == report.FindingWindowStalls {
			t.Errorf("unexpected finding %q", f.Text)
		}
	}
}
