package rtpflow

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seqOp is one step of a seqStats test: a packet's sequence number, or (rtx) an original
// sequence number arriving in the RTX stream.
type seqOp struct {
	seq uint16
	rtx bool
}

func pkts(seqs ...uint16) []seqOp {
	ops := make([]seqOp, len(seqs))
	for i, s := range seqs {
		ops[i] = seqOp{seq: s}
	}
	return ops
}

// seqTotals are seqStats' figures after a test's steps.
type seqTotals struct {
	Lowest, Highest int64
	Expected, Lost  int64
	Dups, Reordered int64
	Recovered       int64
}

func totalsOf(q *seqStats) seqTotals {
	return seqTotals{q.lowest, q.highest, q.expected(), q.lost(), q.dups, q.reordered, q.recovered}
}

// ev is a shorthand for the seqEvent of a packet.
type ev = seqEvent

func TestSeqStats(t *testing.T) {
	tests := []struct {
		name   string
		ops    []seqOp
		events []seqEvent // one per packet (not per RTX mark)
		want   seqTotals
	}{
		{
			name:   "in order",
			ops:    pkts(1, 2, 3),
			events: []ev{{}, {}, {}},
			want:   seqTotals{Lowest: 1, Highest: 3, Expected: 3},
		},
		{
			name:   "wrap at 65535",
			ops:    pkts(65534, 65535, 0, 1),
			events: []ev{{}, {}, {}, {}},
			want:   seqTotals{Lowest: 65534, Highest: 65537, Expected: 4},
		},
		{
			name:   "gap above the highest",
			ops:    pkts(10, 11, 14),
			events: []ev{{}, {}, {lost: 2}},
			want:   seqTotals{Lowest: 10, Highest: 14, Expected: 5, Lost: 2},
		},
		{
			name:   "duplicate",
			ops:    pkts(5, 6, 6),
			events: []ev{{}, {}, {dup: true}},
			want:   seqTotals{Lowest: 5, Highest: 6, Expected: 2, Dups: 1},
		},
		{
			name:   "duplicate of the first packet",
			ops:    pkts(5, 5),
			events: []ev{{}, {dup: true}},
			want:   seqTotals{Lowest: 5, Highest: 5, Expected: 1, Dups: 1},
		},
		{
			name:   "reordered within the window",
			ops:    pkts(1, 3, 2),
			events: []ev{{}, {lost: 1}, {filled: true}},
			want:   seqTotals{Lowest: 1, Highest: 3, Expected: 3, Reordered: 1},
		},
		{
			name:   "late packet fills a gap and takes back a loss",
			ops:    pkts(100, 101, 104, 102, 103),
			events: []ev{{}, {}, {lost: 2}, {filled: true}, {filled: true}},
			want:   seqTotals{Lowest: 100, Highest: 104, Expected: 5, Reordered: 2},
		},
		{
			name:   "late duplicate of a reordered packet",
			ops:    pkts(1, 3, 2, 2),
			events: []ev{{}, {lost: 1}, {filled: true}, {dup: true}},
			want:   seqTotals{Lowest: 1, Highest: 3, Expected: 3, Dups: 1, Reordered: 1},
		},
		{
			name:   "below the lowest: a gap under the first packet",
			ops:    pkts(10, 11, 7),
			events: []ev{{}, {}, {lost: 2}},
			want:   seqTotals{Lowest: 7, Highest: 11, Expected: 5, Lost: 2, Reordered: 1},
		},
		{
			name:   "reordered across the wrap",
			ops:    pkts(65535, 1, 0),
			events: []ev{{}, {lost: 1}, {filled: true}},
			want:   seqTotals{Lowest: 65535, Highest: 65537, Expected: 3, Reordered: 1},
		},
		{
			// A sender that restarts its numbers: a jump of half the space or more reads as
			// going backwards (RFC 3550 A.1 places each number nearest to the highest).
			name:   "restart far away reads as backwards",
			ops:    pkts(1000, 1001, 40000),
			events: []ev{{}, {}, {lost: 26535}},
			want:   seqTotals{Lowest: -25536, Highest: 1001, Expected: 26538, Lost: 26535, Reordered: 1},
		},
		{
			name:   "lost number recovered by rtx",
			ops:    []seqOp{{seq: 1}, {seq: 2}, {seq: 4}, {seq: 3, rtx: true}},
			events: []ev{{}, {}, {lost: 1}},
			want:   seqTotals{Lowest: 1, Highest: 4, Expected: 4, Lost: 1, Recovered: 1},
		},
		{
			name:   "recovered once though resent twice",
			ops:    []seqOp{{seq: 1}, {seq: 2}, {seq: 4}, {seq: 3, rtx: true}, {seq: 3, rtx: true}},
			events: []ev{{}, {}, {lost: 1}},
			want:   seqTotals{Lowest: 1, Highest: 4, Expected: 4, Lost: 1, Recovered: 1},
		},
		{
			name:   "original after its rtx copy: not recovered",
			ops:    []seqOp{{seq: 1}, {seq: 2}, {seq: 4}, {seq: 3, rtx: true}, {seq: 3}},
			events: []ev{{}, {}, {lost: 1}, {filled: true}},
			want:   seqTotals{Lowest: 1, Highest: 4, Expected: 4, Reordered: 1},
		},
		{
			name: "rtx of a received, a future, a too old number: not recovered",
			ops: []seqOp{{seq: 5}, {seq: 6}, {seq: 8},
				{seq: 6, rtx: true}, {seq: 9, rtx: true}, {seq: 4, rtx: true}},
			events: []ev{{}, {}, {lost: 1}},
			want:   seqTotals{Lowest: 5, Highest: 8, Expected: 4, Lost: 1},
		},
		{
			name:   "rtx before the stream has a window",
			ops:    []seqOp{{seq: 5}, {seq: 4, rtx: true}},
			events: []ev{{}},
			want:   seqTotals{Lowest: 5, Highest: 5, Expected: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newSeqStats()
			var events []seqEvent
			for _, op := range tt.ops {
				if op.rtx {
					q.markRTX(op.seq)
				} else {
					events = append(events, q.add(op.seq))
				}
			}
			if diff := cmp.Diff(tt.events, events, cmp.AllowUnexported(seqEvent{})); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, totalsOf(&q)); diff != "" {
				t.Errorf("totals (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSeqStatsEmpty(t *testing.T) {
	q := newSeqStats()
	if q.expected() != 0 || q.lost() != 0 {
		t.Errorf("expected %d lost %d before any packet", q.expected(), q.lost())
	}
}
