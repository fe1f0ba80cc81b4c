package analysis

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLateThresholdsAreStrict: late means delay above baseline exceeding the budget, so a
// packet held exactly 150 ms is not late at 150 ms, and one held exactly 200 ms is not over
// 200 ms; one held 150.1 ms is late.
func TestLateThresholdsAreStrict(t *testing.T) {
	s := audio()
	held := map[int]time.Duration{100: 150 * time.Millisecond, 200: 200 * time.Millisecond,
		300: 150*time.Millisecond + 100*time.Microsecond, 400: 50 * time.Millisecond}
	s.Delay = func(i int) time.Duration { return held[i] }
	st := onlyStream(t, analyze(t, pcapOf(t, s.Packets()), Options{}))
	want := map[string]int64{"50": 3, "100": 3, "200": 0, "400": 0, "1000": 0}
	if st.Late.Packets != 2 || !cmp.Equal(st.Late.OverMS, want) {
		t.Errorf("late %d over %v, want 2 (200 ms and 150.1 ms) and %v", st.Late.Packets, st.Late.OverMS, want)
	}
}
