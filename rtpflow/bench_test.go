package rtpflow

import (
	"testing"

	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// videoPackets is a paced video stream with abs-send-time and transport-cc, and its RTX.
type videoGen struct {
	i    int
	buf  []byte
	m    transport.Message
	twcc uint16
}

func (g *videoGen) next() *transport.Message {
	i := g.i
	g.i++
	send := int64(i) * 2 * ms1 // 500 packets/s
	ast := uint32((send<<18)/1e9) & (1<<24 - 1)
	ext := [8]byte{0x21, byte(g.twcc >> 8), byte(g.twcc), 0x32, byte(ast >> 16), byte(ast >> 8), byte(ast), 0}
	g.twcc++
	b := g.buf[:0]
	b = append(b, 0x90, 96, byte(i>>8), byte(i), byte(i*3000>>24), byte(i*3000>>16), byte(i*3000>>8), byte(i*3000), 0, 0, 0xB0, 0x01,
		0xBE, 0xDE, 0, 2)
	b = append(b, ext[:]...)
	b = b[:len(b)+1000]
	g.buf = b
	at := T0 + send + 20*ms1 + int64(i%7)*ms1
	g.m = transport.Message{Payload: b, Proto: transport.UDP, FirstSeen: at, Complete: at, Delivered: at,
		Wire: transport.Wire{Total: int64(len(b)) + udpHeaders, Headers: udpHeaders}}
	return &g.m
}

func newVideoGen() *videoGen { return &videoGen{buf: make([]byte, 0, 1100)} }

func TestRTPAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	tr := NewTracker(Config{})
	g := newVideoGen()
	var h wire.RTP              // reused, as the demux's Classifier does
	for i := 0; i < 5000; i++ { // warm-up: stream known, timing decided, series grown
		rtpTo(tr, &h, pathA, g.next())
	}
	// Each run is one packet; 500 packets a second, so 2000 runs cross 4 seconds.
	if n := testing.AllocsPerRun(2000, func() { rtpTo(tr, &h, pathA, g.next()) }); n != 0 {
		t.Errorf("Tracker.RTP allocates %v times per packet", n)
	}
}

// BenchmarkTrackerRTP is one video packet through rtpflow, its header decoded as the demux
// decodes it (once, by wire.RTP) included.
func BenchmarkTrackerRTP(b *testing.B) {
	tr := NewTracker(Config{})
	g := newVideoGen()
	var h wire.RTP
	b.ReportAllocs()
	for b.Loop() {
		rtpTo(tr, &h, pathA, g.next())
	}
}
