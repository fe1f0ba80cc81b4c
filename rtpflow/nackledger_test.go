package rtpflow

import "testing"

// TestNACKLedger: credits are taken oldest first, each NACK's as many as it asked for,
// within nackCreditLife after it and never before it.
func TestNACKLedger(t *testing.T) {
	const s = nackCreditLife
	type step struct {
		add  bool
		at   int64
		k    int32 // add: credits
		want bool  // take: a credit was found
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"none", []step{{at: 0, want: false}}},
		{"one credit, one repair", []step{{add: true, at: 0, k: 1}, {at: 10, want: true}, {at: 20, want: false}}},
		{"two FCI entries, two repairs", []step{{add: true, at: 0, k: 2}, {at: 10, want: true}, {at: 11, want: true}, {at: 12, want: false}}},
		{"expired", []step{{add: true, at: 0, k: 1}, {at: s + 1, want: false}}},
		{"at the end of its life", []step{{add: true, at: 0, k: 1}, {at: s, want: true}}},
		{"not before the NACK", []step{{add: true, at: 100, k: 1}, {at: 50, want: false}, {at: 150, want: true}}},
		{"an expired one gives way to a live one", []step{{add: true, at: 0, k: 1}, {add: true, at: s, k: 1},
			{at: s + 10, want: true}, {at: s + 20, want: false}}},
		{"no credit from an empty NACK", []step{{add: true, at: 0, k: 0}, {at: 1, want: false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l nackLedger
			for i, st := range tt.steps {
				if st.add {
					l.add(st.at, st.k)
					continue
				}
				if got := l.take(st.at); got != st.want {
					t.Errorf("step %d: take(%d) = %v, want %v", i, st.at, got, st.want)
				}
			}
		})
	}
	// Full: the oldest entries give way.
	var l nackLedger
	for i := 0; i < nackLedgerLen+2; i++ {
		l.add(int64(i), 1)
	}
	n := 0
	for l.take(nackLedgerLen + 2) {
		n++
	}
	if n != nackLedgerLen {
		t.Errorf("full ledger gave %d credits, want %d", n, nackLedgerLen)
	}
}
