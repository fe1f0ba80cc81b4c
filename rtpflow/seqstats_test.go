package rtpflow

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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

// run returns n consecutive sequence numbers from first (wrapping).
func run(first uint16, n int) []uint16 {
	seqs := make([]uint16, n)
	for i := range seqs {
		seqs[i] = first + uint16(i)
	}
	return seqs
}

// seqTotals are seqStats' figures after a test's steps.
type seqTotals struct {
	Lowest, Highest int64
	Expected, Lost  int64
	Dups, Reordered int64
	Recovered       int64
	Restarts        int64
}

func totalsOf(q *seqStats) seqTotals {
	return seqTotals{q.lowest, q.highest, q.expected(), q.lost(), q.dups, q.reordered, q.recovered, q.restarts}
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
			// RFC 3550 A.1: a jump beyond MAX_DROPOUT is held, and since the next packet is
			// not the one after it, it was a stray: A.1 does not count it as received, and
			// as it never became the highest, it is neither expected nor lost.
			name:   "stray packet far away: probation fails, not counted",
			ops:    pkts(1000, 1001, 40000, 1002, 1003),
			events: []ev{{}, {}, {held: true}, {}, {}},
			want:   seqTotals{Lowest: 1000, Highest: 1003, Expected: 4},
		},
		{
			// Only the very next packet confirms a restart: the stray's neighbour coming
			// later is another stray.
			name:   "stray then its neighbour later: two strays",
			ops:    pkts(1000, 1001, 40000, 1002, 40001, 1003),
			events: []ev{{}, {}, {held: true}, {}, {held: true}, {}},
			want:   seqTotals{Lowest: 1000, Highest: 1003, Expected: 4},
		},
		{
			// A.1 holds a step back of MAX_MISORDER or more like a forward jump; when the
			// next packet shows no restart, a copy that old is still a duplicate, counted
			// with the next packet.
			name:   "copy older than MAX_MISORDER: a duplicate, one packet late",
			ops:    append(pkts(run(1000, 150)...), pkts(1010, 1150)...),
			events: append(make([]ev, 150), ev{held: true}, ev{heldDup: true}),
			want:   seqTotals{Lowest: 1000, Highest: 1150, Expected: 151, Dups: 1},
		},
		{
			// A number the segment showed missing fills its gap however far behind, at once:
			// no probation (fillsGap).
			name:   "packet later than MAX_MISORDER fills its gap",
			ops:    append(pkts(append(run(1000, 10), run(1011, 139)...)...), pkts(1010, 1150)...),
			events: append(append(make([]ev, 10), ev{lost: 1}), append(make([]ev, 138), ev{filled: true}, ev{})...),
			want:   seqTotals{Lowest: 1000, Highest: 1150, Expected: 151, Reordered: 1},
		},
		{
			// A burst held back 2.1 s: 251, then 356, then 252-355 and on. Two of them in a
			// row, 104 behind the highest, confirmed a restart (A.1): 105 lost of 1,000.
			name:   "a held burst more than MAX_MISORDER behind: late, no restart",
			ops:    pkts(slices.Concat(run(1, 251), []uint16{356}, run(252, 104), run(357, 644))...),
			events: slices.Concat(make([]ev, 251), []ev{{lost: 104}}, slices.Repeat([]ev{{filled: true}}, 104), make([]ev, 644)),
			want:   seqTotals{Lowest: 1, Highest: 1000, Expected: 1000, Reordered: 104},
		},
		{
			// Held twice in a row: the first is resolved when the second comes.
			name:   "an old copy, then a stray",
			ops:    append(pkts(run(1000, 150)...), pkts(1010, 40000, 1150)...),
			events: append(make([]ev, 150), ev{held: true}, ev{held: true, heldDup: true}, ev{}),
			want:   seqTotals{Lowest: 1000, Highest: 1150, Expected: 151, Dups: 1},
		},
		{
			// Below the lowest by more than MAX_MISORDER: a stray, as in A.1.
			name:   "far below the first packet: a stray",
			ops:    append(pkts(run(1000, 10)...), pkts(800, 1010)...),
			events: append(make([]ev, 10), ev{held: true}, ev{}),
			want:   seqTotals{Lowest: 1000, Highest: 1010, Expected: 11},
		},
		{
			name:   "restart after 10 packets, new random numbers",
			ops:    pkts(append(run(1000, 10), run(40000, 5)...)...),
			events: append(make([]ev, 10), ev{held: true}, ev{restart: true}, ev{}, ev{}, ev{}),
			want:   seqTotals{Lowest: 40000, Highest: 40004, Expected: 15, Restarts: 1},
		},
		{
			// The shape of the 470 duplicates: numbers that restart below the highest, on
			// numbers already received.
			name:   "restart onto numbers already received: no duplicates",
			ops:    pkts(append(run(1000, 600), run(1100, 5)...)...),
			events: append(make([]ev, 600), ev{held: true}, ev{restart: true}, ev{}, ev{}, ev{}),
			want:   seqTotals{Lowest: 1100, Highest: 1104, Expected: 605, Restarts: 1},
		},
		{
			name:   "restart across the wrap",
			ops:    pkts(append(run(20000, 3), run(65534, 4)...)...),
			events: []ev{{}, {}, {}, {held: true}, {restart: true}, {}, {}},
			want:   seqTotals{Lowest: 65534, Highest: 65537, Expected: 7, Restarts: 1},
		},
		{
			name:   "restart with loss right after it",
			ops:    pkts(1000, 1001, 1002, 1003, 1004, 30000, 30001, 30003, 30004),
			events: []ev{{}, {}, {}, {}, {}, {held: true, ahead: true}, {restart: true}, {lost: 1}, {}},
			want:   seqTotals{Lowest: 30000, Highest: 30004, Expected: 10, Lost: 1, Restarts: 1},
		},
		{
			// Loss between the first two packets of the new numbering: A.1 resyncs one
			// packet later, and the first packet stays uncounted (a stray).
			name:   "loss between the first two packets after a restart",
			ops:    pkts(1000, 1001, 1002, 30000, 30002, 30003, 30004),
			events: []ev{{}, {}, {}, {held: true, ahead: true}, {held: true, ahead: true}, {restart: true}, {}},
			want:   seqTotals{Lowest: 30002, Highest: 30004, Expected: 6, Restarts: 1},
		},
		{
			name:   "loss before a restart, then reordering after it",
			ops:    pkts(1000, 1002, 1003, 9000, 9001, 9003, 9002, 9004),
			events: []ev{{}, {lost: 1}, {}, {held: true, ahead: true}, {restart: true}, {lost: 1}, {filled: true}, {}},
			want:   seqTotals{Lowest: 9000, Highest: 9004, Expected: 9, Lost: 1, Reordered: 1, Restarts: 1},
		},
		{
			name: "two restarts in one stream",
			ops:  pkts(append(append(run(100, 5), run(20000, 5)...), run(50000, 5)...)...),
			events: []ev{{}, {}, {}, {}, {},
				{held: true, ahead: true}, {restart: true}, {}, {}, {},
				{held: true, ahead: true}, {restart: true}, {}, {}, {}},
			want: seqTotals{Lowest: 50000, Highest: 50004, Expected: 15, Restarts: 2},
		},
		{
			// Records out of time order (a capture merged from two): 1100-1149 first, then
			// the stream's first numbers 1000-1099, then 1150 on. The jump back is held and
			// confirmed as a restart, which 1150, beyond the first segment while the second
			// is still below it, undoes: one segment, the 100 late packets reordered.
			name:   "first packets late: the restart is undone",
			ops:    pkts(slices.Concat(run(1100, 50), run(1000, 100), run(1150, 5))...),
			events: slices.Concat(make([]ev, 50), []ev{{held: true}, {restart: true}}, make([]ev, 98), make([]ev, 5)),
			want:   seqTotals{Lowest: 1000, Highest: 1154, Expected: 155, Reordered: 100},
		},
		{
			name:   "one packet early by 200 numbers",
			ops:    pkts(slices.Concat(run(1200, 1), run(1000, 200), run(1201, 3))...),
			events: slices.Concat([]ev{{}, {held: true}, {restart: true}}, make([]ev, 198), make([]ev, 3)),
			want:   seqTotals{Lowest: 1000, Highest: 1203, Expected: 204, Reordered: 200},
		},
		{
			// 1098 and 1099 never came: lost when the segments join, in the event of the
			// packet that joins them.
			name:   "first packets late, two lost between them and the rest",
			ops:    pkts(slices.Concat(run(1100, 50), run(1000, 98), run(1150, 1))...),
			events: slices.Concat(make([]ev, 50), []ev{{held: true}, {restart: true}}, make([]ev, 96), []ev{{lost: 2}}),
			want:   seqTotals{Lowest: 1000, Highest: 1150, Expected: 151, Lost: 2, Reordered: 98},
		},
		{
			// A restart just below the lowest that runs on into numbers already used is a
			// restart: it cannot be the stream's late first packets.
			name:   "restart below the lowest onto numbers already received",
			ops:    pkts(slices.Concat(run(1100, 200), run(1090, 20))...),
			events: slices.Concat(make([]ev, 200), []ev{{held: true}, {restart: true}}, make([]ev, 18)),
			want:   seqTotals{Lowest: 1090, Highest: 1109, Expected: 220, Restarts: 1},
		},
		{
			// After a restart the duplicate window holds the new numbers only.
			name:   "duplicate after a restart",
			ops:    pkts(100, 101, 102, 20000, 20001, 20001, 101),
			events: []ev{{}, {}, {}, {held: true, ahead: true}, {restart: true}, {dup: true}, {held: true}},
			want:   seqTotals{Lowest: 20000, Highest: 20001, Expected: 5, Dups: 1, Restarts: 1},
		},
		{
			// pion's RTX numbers when repairs are rare: each jumps 3,001 ahead of the one
			// before, a stray that leaves the highest behind; the last is 33,011 past it,
			// more than half the number space, and still ahead of the packet held before.
			name:   "a run of jumps ahead, each a stray",
			ops:    pkts(507, 3508, 6509, 9510, 12511, 15512, 18513, 21514, 24515, 27516, 30517, 33518),
			events: append([]ev{{}}, slices.Repeat([]ev{{held: true, ahead: true}}, 11)...),
			want:   seqTotals{Lowest: 507, Highest: 507, Expected: 1},
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
					events = append(events, q.add(op.seq, false))
				}
			}
			if diff := cmp.Diff(tt.events, events, eventOpts...); diff != "" {
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

// A packet held on probation when the stream ends is settled as the next packet would have
// settled it had it not confirmed a restart.
func TestSeqStatsSettle(t *testing.T) {
	tests := []struct {
		name   string
		seqs   []uint16
		settle seqEvent
		want   seqTotals
	}{
		{
			name:   "nothing held",
			seqs:   run(1000, 5),
			settle: ev{},
			want:   seqTotals{Lowest: 1000, Highest: 1004, Expected: 5},
		},
		{
			name:   "a packet later than MAX_MISORDER comes last: it filled its gap, nothing held",
			seqs:   append(append(run(0, 100), run(101, 199)...), 100),
			settle: ev{},
			want:   seqTotals{Lowest: 0, Highest: 299, Expected: 300, Reordered: 1},
		},
		{
			name:   "a copy older than MAX_MISORDER comes last: a duplicate",
			seqs:   append(run(0, 300), 100),
			settle: ev{dup: true},
			want:   seqTotals{Lowest: 0, Highest: 299, Expected: 300, Dups: 1},
		},
		{
			name:   "a jump ahead comes last: a stray",
			seqs:   append(run(0, 50), 5000),
			settle: ev{},
			want:   seqTotals{Lowest: 0, Highest: 49, Expected: 50},
		},
		{
			// The stream's first 200 numbers come last (records out of time order), no
			// packet after them: they end right below the segment before, which they join.
			name:   "late first packets come last",
			seqs:   slices.Concat(run(1200, 200), run(1000, 200)),
			settle: ev{},
			want:   seqTotals{Lowest: 1000, Highest: 1399, Expected: 400, Reordered: 200},
		},
		{
			// A restart 500 below the lowest, no packet after it: a restart, not late
			// packets (the numbers between would be 300 invented losses).
			name:   "a restart well below the lowest comes last",
			seqs:   slices.Concat(run(1200, 200), run(500, 200)),
			settle: ev{},
			want:   seqTotals{Lowest: 500, Highest: 699, Expected: 400, Restarts: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newSeqStats()
			for _, s := range tt.seqs {
				q.add(s, false)
			}
			if diff := cmp.Diff(tt.settle, q.settle(), eventOpts...); diff != "" {
				t.Errorf("settle (-want +got):\n%s", diff)
			}
			if got := q.settle(); got != (seqEvent{}) {
				t.Errorf("second settle = %+v, want nothing", got)
			}
			if diff := cmp.Diff(tt.want, totalsOf(&q)); diff != "" {
				t.Errorf("totals (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWantedNACKed: an RTX packet answers a number the stream did not have, or one the
// receiver NACKed, whether the NACK came after the number (lost after the capture point)
// or before it (asked for when due, ahead of the highest number received), up to
// maxNACKAhead above it.
func TestWantedNACKed(t *testing.T) {
	q := newSeqStats()
	for _, s := range run(100, 5) { // 100..104
		q.add(s, false)
	}
	q.markNACK(102)                    // had it: lost after the capture point
	q.markNACK(106)                    // ahead of 104
	q.markNACK(104 + maxNACKAhead + 1) // too far ahead: ignored
	for _, s := range run(105, 3) {    // 105..107
		q.add(s, false)
	}
	for _, tt := range []struct {
		osn  uint16
		want bool
	}{{101, false}, {102, true}, {105, false}, {106, true}, {108, false}} {
		if got := q.wanted(tt.osn); got != tt.want {
			t.Errorf("wanted(%d) = %v, want %v", tt.osn, got, tt.want)
		}
	}
	for _, s := range run(108, maxNACKAhead+10) {
		q.add(s, false)
	}
	if q.wanted(104 + maxNACKAhead + 1) {
		t.Errorf("a NACK too far ahead was remembered")
	}
}

// TestSeqStatsNoProbation: an RTX stream's numbers as pion sends them, each resent under
// its own number as often as the receiver asks: back 150 is a duplicate, not a packet held
// on probation (RFC 3550 A.1), and two numbers in a row after it no restart; ahead 5,000 is
// a step.
func TestSeqStatsNoProbation(t *testing.T) {
	q := newSeqStats()
	q.noProbation = true
	var dups, held, restarts int
	for _, s := range []uint16{100, 100, 250, 100, 250, 249, 250, 251, 100, 5251} {
		ev := q.add(s, false)
		if ev.dup {
			dups++
		}
		if ev.held {
			held++
		}
		if ev.restart {
			restarts++
		}
	}
	if dups != 5 || held != 0 || restarts != 0 || q.highest != 5251 || q.lowest != 100 {
		t.Errorf("dups %d held %d restarts %d, highest %d lowest %d; want 5, 0, 0, 5251, 100",
			dups, held, restarts, q.highest, q.lowest)
	}
}

// eventOpts compare seqEvents by what they say happened, not by where (ext, below,
// heldExt: the series' gap records, TestSeriesLossTakenBack).
var eventOpts = []cmp.Option{cmp.AllowUnexported(seqEvent{}), cmpopts.IgnoreFields(seqEvent{}, "ext", "below", "heldExt")}
