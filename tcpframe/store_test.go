package tcpframe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// storeOp is one step of a store test, in the manner of gopacket reassembly's TestReorder
// and TestOverlap: a segment inserted at an offset at a time (or a skip to an offset), then
// what the store says: how many of the segment's bytes it had already, where the in-order
// frontier is and which bytes are in order.
type storeOp struct {
	at     int64  // stream offset of the segment's first byte
	data   string // its payload
	t      int64  // capture time
	late   bool   // it fills a hole late (a retransmission whose original was not seen)
	borrow bool   // the store may keep it in its packet
	skipTo int64  // instead of a segment: give up the hole at the frontier up to here

	seen      int64  // bytes of the segment present already
	skipped   int64  // bytes given up by skipTo
	delivered int64  // the in-order frontier afterwards
	inOrder   string // the bytes [framed, delivered)
}

func runStore(t *testing.T, st *store, ops []storeOp) {
	t.Helper()
	for i, op := range ops {
		var seen, skipped int64
		if op.skipTo > 0 {
			skipped = st.skipTo(op.skipTo)
		} else {
			g := &dataSeg{start: op.at, size: int64(len(op.data)), hdr: 40, payload: []byte(op.data), t: op.t}
			lo := max(g.start, st.framed)
			if lo < g.end() {
				st.reserve(st.framed, g.end(), false)
				seen = st.insert(g, lo, g.end(), op.late, op.borrow)
			}
			st.deliver(op.t, false)
		}
		got := storeOp{seen: seen, skipped: skipped, delivered: st.delivered, inOrder: string(st.inOrder())}
		want := storeOp{seen: op.seen, skipped: op.skipped, delivered: op.delivered, inOrder: op.inOrder}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(storeOp{})); diff != "" {
			t.Fatalf("op %d (%+v): (-want +got)\n%s", i, op, diff)
		}
	}
}

func TestStoreInsert(t *testing.T) {
	cases := []struct {
		name string
		ops  []storeOp
	}{
		{"in order", []storeOp{
			{at: 0, data: "abc", t: 1, delivered: 3, inOrder: "abc"},
			{at: 3, data: "def", t: 2, delivered: 6, inOrder: "abcdef"},
		}},
		{"reorder: the hole is filled last", []storeOp{
			{at: 6, data: "ghi", t: 1, delivered: 0},
			{at: 3, data: "def", t: 2, delivered: 0},
			{at: 0, data: "abc", t: 3, delivered: 9, inOrder: "abcdefghi"},
		}},
		{"overlap: an exact copy", []storeOp{
			{at: 0, data: "abc", t: 1, delivered: 3, inOrder: "abc"},
			{at: 0, data: "abc", t: 2, seen: 3, delivered: 3, inOrder: "abc"},
		}},
		{"overlap: a copy straddling a hole repeats what is there and fills the rest", []storeOp{
			{at: 2, data: "cd", t: 1},
			{at: 6, data: "gh", t: 2},
			{at: 0, data: "abcdefghij", t: 3, seen: 4, delivered: 10, inOrder: "abcdefghij"},
		}},
		{"overlap: the first copy's bytes are kept", []storeOp{
			{at: 0, data: "abcd", t: 1, delivered: 4, inOrder: "abcd"},
			{at: 2, data: "XXef", t: 2, seen: 2, delivered: 6, inOrder: "abcdef"},
		}},
		{"skip to an offset: a hole the capture never filled", []storeOp{
			{at: 0, data: "ab", t: 1, delivered: 2, inOrder: "ab"},
			{at: 5, data: "fg", t: 2, delivered: 2, inOrder: "ab"},
			{skipTo: 4, skipped: 0, delivered: 2, inOrder: "ab"}, // framed is not at the frontier yet
		}},
		{"borrowed in order, then a copy of it", []storeOp{
			{at: 0, data: "abc", t: 1, borrow: true, delivered: 3, inOrder: "abc"},
			{at: 3, data: "def", t: 2, borrow: true, delivered: 6, inOrder: "abcdef"},
			{at: 1, data: "bcd", t: 3, seen: 3, delivered: 6, inOrder: "abcdef"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runStore(t, &store{window: DefaultWindow}, tc.ops)
		})
	}
}

// TestStoreSkip gives up holes: the bytes after a hole are in order once it is skipped, and a
// skip stops at the next byte present.
func TestStoreSkip(t *testing.T) {
	st := &store{window: DefaultWindow}
	runStore(t, st, []storeOp{
		{at: 3, data: "def", t: 1},
		{at: 9, data: "jk", t: 2},
	})
	st.framed = st.delivered // nothing to unframe before the hole
	runStore(t, st, []storeOp{
		{skipTo: 20, skipped: 3, delivered: 6, inOrder: "def"}, // up to the first byte present only
	})
	st.drop(6)
	runStore(t, st, []storeOp{
		{skipTo: 8, skipped: 2, delivered: 8},                  // part of the next hole (an ACK passed it)
		{skipTo: 20, skipped: 1, delivered: 11, inOrder: "jk"}, // the rest, up to "jk"
		{at: 11, data: "l", t: 3, delivered: 12, inOrder: "jkl"},
	})
}

// TestStoreTake cuts the in-order bytes into pieces: each says when its bytes were first
// seen, complete, copied again and delivered, and its exact share of the header bytes.
func TestStoreTake(t *testing.T) {
	st := &store{window: DefaultWindow}
	runStore(t, st, []storeOp{
		{at: 4, data: "efgh", t: 20, borrow: true}, // beyond a hole: kept in its packet
		{at: 0, data: "abcd", t: 30, late: true, delivered: 8, inOrder: "abcdefgh"},
		{at: 6, data: "gh", t: 40, seen: 2, delivered: 8, inOrder: "abcdefgh"},
	})
	// Each segment carried 40 header bytes: 10 per byte of "abcd" and "efgh", 20 per byte of
	// the copy "gh".
	want := []piece{
		{first: 30, complete: 30, lastCopy: 30, dlv: 30, hdr: 20, lateBytes: 2},        // "ab"
		{first: 30, complete: 30, lastCopy: 30, dlv: 30, hdr: 20, lateBytes: 2},        // "cd"
		{first: 20, complete: 20, lastCopy: 40, dlv: 30, hdr: 40, xBytes: 2, xHdr: 40}, // "efgh"
		{first: 20, complete: 20, lastCopy: 20, dlv: 30, hdr: 0},                       // nothing
	}
	var got []piece
	for _, y := range []int64{2, 4, 8} {
		var p piece
		st.take(y, &p)
		p.ext = nil
		got = append(got, p)
	}
	if diff := cmp.Diff(want[:3], got, cmp.AllowUnexported(piece{})); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if st.framed != 8 || st.cs.n() != 0 || st.bytesIn != 8 {
		t.Errorf("framed %d, %d runs, %d bytes in", st.framed, st.cs.n(), st.bytesIn)
	}
}

// TestStoreBorrowDetach: a borrowed segment is read from its packet until detach copies it;
// the copy is what the packet held, whatever the packet holds afterwards.
func TestStoreBorrowDetach(t *testing.T) {
	st := &store{window: DefaultWindow}
	pkt := []byte("abcdef")
	g := &dataSeg{start: 0, size: 6, hdr: 40, payload: pkt, t: 1, gen: 0}
	st.reserve(0, 6, false)
	st.insert(g, 0, 6, false, true)
	st.deliver(1, false)
	if in := st.inOrder(); &in[0] != &pkt[0] {
		t.Fatal("an in-order borrowed segment is not read from its packet")
	}
	st.detach(0) // the packet came with Detach call 0: kept one call more
	if in := st.inOrder(); &in[0] != &pkt[0] {
		t.Fatal("detach copied a packet given since the previous call")
	}
	st.detach(1)
	copy(pkt, "XXXXXX")
	if in := string(st.inOrder()); in != "abcdef" {
		t.Fatalf("after detach: %q", in)
	}
}

// Runs that come in reverse order each go in front of the list: past a few, the list makes
// room there once, as many as it holds, so that the next ones move nothing (each moved the
// whole list: 131 s for 300,000 one-byte segments in reverse order). The runs stay sorted.
func TestChunksInFront(t *testing.T) {
	var cs chunks
	full := 0 // inserts that left no room in front
	for k := range 100 {
		c := cs.add(0)
		c.start, c.end = int64(1000-2*k), int64(1001-2*k)
		if cs.head == 0 {
			full++
		}
	}
	if full > 32+2 { // the first 32, then once each time the room runs out (at 64)
		t.Errorf("%d of 100 runs in front left no room before them", full)
	}
	l := cs.live()
	if len(l) != 100 {
		t.Fatalf("%d runs, want 100", len(l))
	}
	for i := 1; i < len(l); i++ {
		if l[i].start <= l[i-1].start {
			t.Fatalf("run %d starts at %d after %d", i, l[i].start, l[i-1].start)
		}
	}
}
