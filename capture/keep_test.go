package capture_test

import (
	"bytes"
	"io"
	"net/netip"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/pcapgen"
	"github.com/google/go-cmp/cmp"
)

// TestKeep reads packets of every shape (UDP, TCP, reassembled datagrams, fragments held,
// an undecodable frame, a snapped one), keeps each with Packet.Keep into one small buffer
// that has to grow, and checks that the kept packets still equal copies taken at the time
// once the reader has gone on.
func TestKeep(t *testing.T) {
	frags, _ := v4frags(1, 3000, 1000)
	// A second datagram with other bytes reuses the first one's reassembly buffer.
	other := make([]byte, 2000)
	for i := range other {
		other[i] = byte(i*11 + 1)
	}
	var frags2 []timedFrame
	for i, ip := range pcapgen.IPv4Fragments(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, 2, pcapgen.UDP(a4, b4, other), 800) {
		frags2 = append(frags2, timedFrame{t0 + 10e6 + int64(i)*1e6, pcapgen.Ether(ip, pcapgen.EtherTypeIPv4)})
	}
	frames := []timedFrame{
		{t0, pcapgen.EtherUDP(a4, b4, []byte{0x80, 0, 0, 1})},
		{t0 + 1e6, pcapgen.EtherTCP(a6, b6, 1, 2, capture.FlagACK, 100, []byte("hello"))},
		{t0 + 2e6, []byte{1, 2, 3}}, // shorter than an Ethernet header
		{t0 + 3e6, pcapgen.EtherUDP(a4, b4, make([]byte, 600))},
	}
	frames = append(frames, frags...)
	frames = append(frames, frags2...)
	data := fragFile(t, 300, frames) // snap length 300: the last UDP frame and the fragments are cut
	want := func() []capture.Packet {
		_, ps, err := readAllBytes(t, data)
		must(t, err)
		return ps
	}()
	r, err := capture.Open(bytes.NewReader(data))
	must(t, err)
	var got []capture.Packet
	buf := make([]byte, 0, 16)
	for {
		var p capture.Packet
		if err := r.Next(&p); err == io.EOF {
			break
		} else {
			must(t, err)
		}
		buf = p.Keep(buf)
		got = append(got, p)
	}
	if len(got) != len(frames) {
		t.Fatalf("%d packets, want %d", len(got), len(frames))
	}
	var reassembled bool
	for _, p := range got {
		reassembled = reassembled || p.Reassembled
	}
	if !reassembled {
		t.Fatal("no reassembled datagram: the test does not cover that case")
	}
	// Empty and nil slices are the same bytes.
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) }),
		cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
		t.Errorf("kept packets differ (-want +got):\n%s", diff)
	}
}
