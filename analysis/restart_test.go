package analysis

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
	"github.com/google/go-cmp/cmp"
)

// restartCall is a 20 s PCMU stream at 50 packets/s whose sender restarts its sequence
// numbers and timestamps twice under the same SSRC (as SIP gateways do), with a known loss
// pattern in each segment and a 1 ms delay on every tenth packet:
//
//	segment  packets  seq from  ts from      lost
//	A        350      1000      5000         i%50 == 7: 7
//	B        300      48000     3000000000   i == 2 (right after the restart), i%40 == 20: 8
//	C        350      1200      123456       i == 3, 4, i%60 == 30: 8
//
// C restarts onto numbers A already used, the shape that read as duplicates. No segment
// loses its first two packets (A.1 resyncs on them) or its last (a loss there is not seen).
func restartCall() []callgen.Packet {
	seg := func(count int, seq uint16, ts uint32, start time.Duration, lose func(int) bool) callgen.Stream {
		s := audio()
		s.Count, s.StartSeq, s.StartTS, s.Start, s.Lose = count, seq, ts, start, lose
		s.Delay = func(i int) time.Duration {
			if i%10 == 5 {
				return time.Millisecond
			}
			return 0
		}
		return s
	}
	a := seg(350, 1000, 5000, 0, func(i int) bool { return i%50 == 7 })
	b := seg(300, 48000, 3000000000, 7*time.Second, func(i int) bool { return i == 2 || i%40 == 20 })
	c := seg(350, 1200, 123456, 13*time.Second, func(i int) bool { return i == 3 || i == 4 || i%60 == 30 })
	return append(append(a.Packets(), b.Packets()...), c.Packets()...)
}

// TestSequenceRestarts: two restarts are two restarts, not duplicates nor loss; loss is
// exact across them; jitter and delay re-base instead of jumping by the timestamp jump.
func TestSequenceRestarts(t *testing.T) {
	c := analyze(t, pcapOf(t, restartCall()), Options{})
	st := onlyStream(t, c)
	type figures struct {
		Packets, Expected, Lost, Duplicates, Reordered, Restarts int64
	}
	got := figures{st.Packets, st.Expected, deref(st.Lost), st.Duplicates, st.Reordered, st.Restarts}
	want := figures{Packets: 977, Expected: 1000, Lost: 23, Restarts: 2}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stream figures (-want +got):\n%s", d)
	}
	if d := c.Directions[0].Loss; d.Expected != 1000 || d.Lost != 23 {
		t.Errorf("direction loss = %+v, want expected 1000 lost 23", d)
	}
	// Every transit is the base or 1 ms above it, also at the restarts (the packets on
	// either side of each have no delay): |D| ≤ 1 ms, so J ≤ 1 ms; the delay above baseline
	// is exactly 0 or 1 ms, on every received packet.
	if j := st.JitterMS; j == nil || j.Max > 1 || j.Max <= 0 {
		t.Errorf("jitter = %+v, want a max in (0, 1] ms", j)
	}
	if dl := st.DelayMS; dl == nil || dl.Samples != 977 || dl.P50 != 0 || dl.Max != 1 {
		t.Errorf("delay = %+v, want 977 samples, p50 0, max 1 ms", dl)
	}
	if l := st.Late; l == nil || l.Packets != 0 {
		t.Errorf("late = %+v, want 0", l)
	}
	for _, f := range c.Findings {
		if f.Code == report.FindingRTPLoss && f.Severity == report.SeverityBad {
			t.Errorf("finding %q: 2.3%% loss is not bad", f.Text)
		}
	}
}

// TestTsharkOnRestarts: tshark counts the same packets, but it has no A.1 resync: its
// expected runs from the first number to the last (1000 … 1549: 550, the excursion to
// 48000 … 48299 in between not wrapping), so its "lost" is 550 − 977 = −427, where ours is
// 1000 expected, 23 lost and 2 restarts.
func TestTsharkOnRestarts(t *testing.T) {
	data := pcapOf(t, restartCall())
	path := filepath.Join(t.TempDir(), "restarts.pcap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rows := tsharkStreams(t, path)
	st := onlyStream(t, analyze(t, data, Options{}))
	if len(rows) != 1 || rows[0].ssrc != st.SSRC || rows[0].packets != st.Packets {
		t.Fatalf("tshark streams %+v; want one of %d packets, as ours", rows, st.Packets)
	}
	if rows[0].lost != 550-977 {
		t.Logf("tshark's lost is %d, not −427 as tshark 4.0 counts a restart", rows[0].lost)
	}
}
