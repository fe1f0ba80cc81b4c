package analysis

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
)

// srtpPadAudio is SRTP-like Opus from alice to bob: 500 packets 20 ms apart of 80 random
// bytes after the header (the last 10 an auth tag), 100, 101 and 300 lost. Every tenth
// packet from 5 on has the P bit (50 packets), and the last byte, the tag's, read as a
// padding count is by turns (i/10 mod 3) a plausible 7, 0, and 200 (beyond the payload);
// with plausible true it is always 7. Before padded SRTP was read as RTP, the 33 packets
// of 0 (17) and 200 (16) were not RTP: 464 packets, 36 lost, 119 bytes of padding (17 × 7),
// as tshark still says; with plausible counts 497, 3 lost and 350 bytes of padding even
// after DTLS.
func srtpPadAudio(plausible bool) callgen.Stream {
	count := func(i int) byte {
		if plausible {
			return 7
		}
		return [...]byte{7, 0, 200}[(i/10)%3]
	}
	lost := map[int]bool{100: true, 101: true, 300: true}
	return callgen.Stream{Src: alice, Dst: bob, SSRC: 0x5e7b0001, PT: 111, ClockRate: 48000,
		Interval: 20 * time.Millisecond, PayloadSize: 80, Count: 500, StartSeq: 20000, StartTS: 160000,
		Lose:   func(i int) bool { return lost[i] },
		Padded: func(i int) bool { return i%10 == 5 },
		Fill: func(i int, b []byte) {
			r := rand.New(rand.NewPCG(7, uint64(i)))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			if i%10 == 5 {
				b[len(b)-1] = count(i)
			}
		}}
}

// padFigures is what a stream says of its padding.
type padFigures struct {
	Packets, Lost, Padded, PayloadBytes int64
	PaddingBytes, PaddingPackets        *int64
	MediaPayload, OverheadPadding       int64
}

func padFiguresOf(t *testing.T, c report.Capture) padFigures {
	t.Helper()
	st := onlyStream(t, c)
	f := padFigures{Packets: st.Packets, Lost: deref(st.Lost), Padded: st.PaddedPackets, PayloadBytes: st.PayloadBytes,
		PaddingBytes: st.PaddingBytes, PaddingPackets: st.PaddingPackets}
	for _, d := range c.Directions {
		if d.ID == st.Direction {
			f.MediaPayload, f.OverheadPadding = d.MediaPayloadBytes, d.OverheadBytes.Padding
		}
	}
	return f
}

// TestSRTPPaddingUnread: a padded SRTP packet is RTP whatever its last byte says (RFC 3711
// 3.1: the count is encrypted, the last byte is the tag's), so no packet is lost for it,
// and the stream's padding cannot be measured (null), its bytes counted as payload.
func TestSRTPPaddingUnread(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	all := int64(497 * 80) // every byte after the header is payload
	tests := []struct {
		name      string
		plausible bool
		dtls      bool
		want      padFigures
	}{
		// Without DTLS, the count of 0 at packet 15 shows the stream is SRTP: the 7 bytes
		// read at packet 5 go back to the payload.
		{name: "no DTLS, impossible counts", want: padFigures{Packets: 497, Lost: 3, Padded: 50, PayloadBytes: all, MediaPayload: all}},
		{name: "DTLS, impossible counts", dtls: true, want: padFigures{Packets: 497, Lost: 3, Padded: 50, PayloadBytes: all, MediaPayload: all}},
		// On a flow that carried DTLS even a plausible count is not read.
		{name: "DTLS, plausible counts", plausible: true, dtls: true, want: padFigures{Packets: 497, Lost: 3, Padded: 50, PayloadBytes: all, MediaPayload: all}},
		// Without DTLS and with every count plausible, nothing tells SRTP from clear RTP:
		// the counts are read (50 × 7 bytes).
		{name: "no DTLS, plausible counts", plausible: true, want: padFigures{Packets: 497, Lost: 3, Padded: 50,
			PayloadBytes: all - 350, PaddingBytes: n(350), PaddingPackets: n(0), MediaPayload: all - 350, OverheadPadding: 350}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := srtpPadAudio(tt.plausible)
			pkts := s.Packets()
			if tt.dtls {
				pkts = append(pkts, callgen.DTLSRecord(-100*time.Millisecond, alice, bob), callgen.DTLSRecord(-50*time.Millisecond, bob, alice))
			}
			got := padFiguresOf(t, analyze(t, pcapOf(t, pkts), Options{}))
			if got.Packets != tt.want.Packets || got.Lost != tt.want.Lost || got.Padded != tt.want.Padded ||
				got.PayloadBytes != tt.want.PayloadBytes || !eqPtr(got.PaddingBytes, tt.want.PaddingBytes) ||
				!eqPtr(got.PaddingPackets, tt.want.PaddingPackets) || got.MediaPayload != tt.want.MediaPayload ||
				got.OverheadPadding != tt.want.OverheadPadding {
				t.Errorf("got %+v (padding %v/%v), want %+v (padding %v/%v)", got, str(got.PaddingBytes), str(got.PaddingPackets),
					tt.want, str(tt.want.PaddingBytes), str(tt.want.PaddingPackets))
			}
		})
	}
}

// TestClearRTPPadding: clear RTP with real padding keeps its figures: PCMU whose every
// tenth packet from 5 on has the P bit, with 3 zeros and a count of 4, or, every fiftieth
// from 25 on, padding only (count 160: a probe); nothing lost. Captured with a snap length
// of 54 bytes (the headers only), the counts are cut: how much of those packets was padding
// is unknown, so padding_bytes and padding_packets are null and the padding counts as
// payload, as the snap length's cut bytes do.
func TestClearRTPPadding(t *testing.T) {
	s := audio()
	s.Padded = func(i int) bool { return i%10 == 5 }
	s.Fill = func(i int, b []byte) {
		for j := range b {
			b[j] = byte(i + j)
		}
		if i%10 != 5 {
			return
		}
		pad := 4
		if i%50 == 25 {
			pad = len(b)
		}
		clear(b[len(b)-pad:])
		b[len(b)-1] = byte(pad)
	}
	padding := int64(10*160 + 40*4)
	for _, tt := range []struct {
		snap int
		want padFigures
	}{
		{0, padFigures{Packets: 500, Lost: 0, Padded: 50, PayloadBytes: 500*160 - padding,
			PaddingBytes: &padding, PaddingPackets: ptrTo(int64(10)), MediaPayload: 500*160 - padding, OverheadPadding: padding}},
		{54, padFigures{Packets: 500, Lost: 0, Padded: 50, PayloadBytes: 500 * 160, MediaPayload: 500 * 160}},
	} {
		got, want := padFiguresOf(t, analyze(t, snappedPcapOf(t, s.Packets(), tt.snap), Options{})), tt.want
		if got.Packets != want.Packets || got.Lost != want.Lost || got.Padded != want.Padded || got.PayloadBytes != want.PayloadBytes ||
			!eqPtr(got.PaddingBytes, want.PaddingBytes) || !eqPtr(got.PaddingPackets, want.PaddingPackets) ||
			got.MediaPayload != want.MediaPayload || got.OverheadPadding != want.OverheadPadding {
			t.Errorf("snap %d: got %+v (padding %v/%v), want %+v (padding %v/%v)", tt.snap, got, str(got.PaddingBytes),
				str(got.PaddingPackets), want, str(want.PaddingBytes), str(want.PaddingPackets))
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

func eqPtr(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func str(p *int64) any {
	if p == nil {
		return "null"
	}
	return *p
}
