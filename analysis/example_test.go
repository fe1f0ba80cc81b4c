package analysis

import (
	"bytes"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// TestExampleCall checks the UDP example capture against its construction.
func TestExampleCall(t *testing.T) {
	var b bytes.Buffer
	w := pcapgen.NewPcap(&b, capture.LinkEthernet, false, false, 0)
	callgen.Write(w, callgen.ExampleTURNCall())
	c := analyze(t, b.Bytes(), Options{})
	if len(c.Streams) != 4 || len(c.Directions) != 2 {
		t.Fatalf("%d streams, %d directions; want 4 and 2", len(c.Streams), len(c.Directions))
	}
	var video *struct{}
	for _, st := range c.Streams {
		if st.SSRC != "0x1a2b3c4d" {
			continue
		}
		video = &struct{}{}
		// The capture is at the client (its ICE check through the relay took the full round
		// trip): the twelve packets it held 300 ms (three frames, a sample each) are its own
		// queueing, not late arrivals.
		if deref(st.Lost) != 13 || st.Late != nil || st.DelayMS.Vantage != "sender" || st.DelayMS.Max != 300.001 ||
			st.Kind != "video" || derefI(st.ClockRate) != 90000 {
			t.Errorf("video lost %d late %+v delay %+v kind %s clock %d; want 13, no late, held 300.001 ms at the sender, video 90000",
				deref(st.Lost), st.Late, st.DelayMS, st.Kind, derefI(st.ClockRate))
		}
	}
	if video == nil {
		t.Fatal("no video stream")
	}
	d := c.Directions[0]
	if d.From != callgen.ExampleClient.String() || d.To != callgen.ExamplePeer.String() {
		t.Fatalf("first direction %s -> %s", d.From, d.To)
	}
	// The ramp: 200 kbps + 150 kbps/s reaches 50% of its ~1.2 Mbps plateau at 2.7 s and 90%
	// at 5.9 s of video, which starts 0.3 s into the first second: the moving averages
	// cross in seconds 4 and 7.
	if d.Ramp == nil || derefF(d.Ramp.T50S) != 4 || derefF(d.Ramp.T90S) != 7 {
		t.Errorf("ramp = %+v", d.Ramp)
	}
	if d.WireBytes != d.MediaPayloadBytes+d.OverheadBytes.Sum() {
		t.Errorf("overhead does not add up")
	}
	if c.ICE.Checks != 1 || c.ICE.RTTMS == nil || c.ICE.RTTMS.Max != 95 {
		t.Errorf("ice = %+v", c.ICE)
	}
}

// TestExampleTCPCall checks the README's main example against its construction. Each way,
// every 20 ms the sender writes video (1,116 bytes with ChannelData) then video and audio
// (1,212 bytes, two segments at MSS 1,200): 150 segments a second, one of them lost each
// second and repaired after a 300 ms timeout. Media written in the 150 ms after a loss waits
// more than 150 ms: 15 writes holding 22 packets (video every 10 ms, audio every 20 ms), so
// 440 late packets in 20 losses, all by the retransmission, the worst held 300 ms. The lost
// segment carries an audio packet and a video one whole (96 and 1,104 bytes): late by their
// own repair, they waited for no earlier byte; the other 20 a loss, 400, were held behind it
// (head-of-line blocking).
func TestExampleTCPCall(t *testing.T) {
	var b bytes.Buffer
	w := pcapgen.NewPcap(&b, capture.LinkEthernet, false, false, 0)
	callgen.Write(w, callgen.ExampleTURNTCPCall())
	c := analyze(t, b.Bytes(), Options{})
	if len(c.Legs) != 1 || c.Legs[0].Transport != "turn-tcp" || len(c.Directions) != 2 {
		t.Fatalf("legs %+v, %d directions", c.Legs, len(c.Directions))
	}
	for _, d := range c.Directions {
		if d.Late == nil || d.Late.Packets != 440 || d.Late.HOLBlocked != 400 || d.Late.Causes == nil ||
			d.Late.Causes.Retransmission != 440 || d.DelayMS.Max != 300 || d.Loss.Lost != 0 {
			t.Errorf("%s: late %+v delay %+v lost %d; want 440 late, all by a retransmission, 400 behind one, max 300 ms, none lost",
				d.From, d.Late, d.DelayMS, d.Loss.Lost)
		}
	}
	for _, s := range c.Streams {
		want := map[string]int{"audio": 48000, "video": 90000}[s.Kind]
		if derefI(s.ClockRate) != want || want == 0 {
			t.Errorf("stream %s: kind %s clock %d", s.SSRC, s.Kind, derefI(s.ClockRate))
		}
	}
}
