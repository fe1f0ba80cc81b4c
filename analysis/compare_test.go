package analysis

import (
	"testing"
	"time"

	"github.com/callpcap/callpcap/report"
)

// TestCompareNullStaysNull: a comparison entry carries each direction's figures as they
// are: where the capture could not measure lateness (at the sender: its ICE checks show
// the media's source is this host), late_packets is null, not 0; where it could, the count.
func TestCompareNullStaysNull(t *testing.T) {
	s := audio()
	measured := analyze(t, pcapOf(t, s.Packets()), Options{})
	s.Src, s.Dst, s.Start = p2pChecks.A, p2pChecks.B, 200*time.Millisecond
	local := analyze(t, pcapOf(t, append(p2pChecks.Packets(0), s.Packets()...)), Options{})
	if local.Directions[0].Late != nil || measured.Directions[0].Late == nil {
		t.Fatalf("late %+v and %+v: want null at the sender, measured otherwise", local.Directions[0].Late, measured.Directions[0].Late)
	}
	cmp := Compare([]report.Capture{measured, local})
	if len(cmp.Entries) != 2 {
		t.Fatalf("%d entries, want 2", len(cmp.Entries))
	}
	m, l := cmp.Entries[0], cmp.Entries[1]
	if m.LatePackets == nil || *m.LatePackets != 0 || m.LatePct == nil || l.LatePackets != nil || l.LatePct != nil {
		t.Errorf("late packets %v %v, late pct %v %v; want 0, null, 0, null", m.LatePackets, l.LatePackets, m.LatePct, l.LatePct)
	}
}
