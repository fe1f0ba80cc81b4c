package capture_test

import (
	"bytes"
	"io"
	"net/netip"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/google/go-cmp/cmp"
)

// TestHold reads a capture of several chunks (UDP datagrams with distinct bytes, datagrams
// reassembled from fragments, an undecodable frame, snapped frames) while holding the
// buffers, in batches released four batches late as a pipeline does (further behind than a chunk), and checks that every
// packet still equals a copy taken when it was read at the moment its batch is released.
func TestHold(t *testing.T) {
	var frames []timedFrame
	for i := range 3000 {
		at := t0 + int64(i)*1e6
		switch {
		case i == 7:
			frames = append(frames, timedFrame{at, []byte{1, 2, 3}}) // shorter than an Ethernet header
		case i%100 == 50:
			payload := make([]byte, 1500)
			for k := range payload {
				payload[k] = byte(i + k*11)
			}
			for _, ip := range pcapgen.IPv4Fragments(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, uint16(i), pcapgen.UDP(a4, b4, payload), 800) {
				frames = append(frames, timedFrame{at, pcapgen.Ether(ip, pcapgen.EtherTypeIPv4)})
			}
		default:
			payload := make([]byte, 1000+i%200)
			for k := range payload {
				payload[k] = byte(i*7 + k)
			}
			frames = append(frames, timedFrame{at, pcapgen.EtherUDP(a4, b4, payload)})
		}
	}
	data := fragFile(t, 1100, frames) // snap length 1100: the longer frames are cut
	if len(data) < 3<<20 {
		t.Fatalf("capture of %d bytes: want several chunks", len(data))
	}
	_, want, err := readAllBytes(t, data)
	must(t, err)

	r, err := capture.Open(struct{ io.Reader }{bytes.NewReader(data)}) // no Len: full-size chunks
	must(t, err)
	r.Hold()
	type batch struct {
		pkts []capture.Packet
		held capture.Held
	}
	var queue []*batch
	n, reassembled := 0, 0
	check := func(b *batch) {
		t.Helper()
		for _, p := range b.pkts {
			if diff := cmp.Diff(want[n], p, cmp.Comparer(bytes.Equal),
				cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
				t.Fatalf("packet %d changed before its batch was released (-want +got):\n%s", n, diff)
			}
			if p.Reassembled {
				reassembled++
			}
			n++
		}
		r.Release(&b.held)
	}
	for done := false; !done; {
		b := &batch{}
		for len(b.pkts) < 300 { // four batches span more than a chunk
			var p capture.Packet
			if err := r.Next(&p); err == io.EOF {
				done = true
				break
			} else {
				must(t, err)
			}
			b.pkts = append(b.pkts, p)
		}
		r.TakeHeld(&b.held)
		if queue = append(queue, b); len(queue) > 4 {
			check(queue[0])
			queue = queue[1:]
		}
	}
	for _, b := range queue {
		check(b)
	}
	if n != len(want) || reassembled != 30 {
		t.Fatalf("%d packets, %d reassembled; want %d, 30", n, reassembled, len(want))
	}
}
