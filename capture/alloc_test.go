package capture_test

import (
	"bytes"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// TestNextAllocs: the per-packet path allocates nothing (DESIGN, Performance).
func TestNextAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	rtp := make([]byte, 1200)
	sack := pcapgen.SACK(capture.SACKBlock{Left: 1, Right: 2})
	frag, _ := v4frags(9, 3000, 1000)
	for _, tc := range []struct {
		name   string
		frames [][]byte
	}{
		{"udp", [][]byte{pcapgen.EtherUDP(a4, b4, rtp)}},
		{"udp6-vlan", [][]byte{pcapgen.Ether(pcapgen.IPv6(a6.Addr(), b6.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a6, b6, rtp)), pcapgen.EtherTypeIPv6, 5)}},
		{"tcp", [][]byte{pcapgen.EtherTCP(a4, b4, 1, 2, capture.FlagACK, 100, rtp, sack)}},
		{"fragments", [][]byte{frag[0].frame, frag[1].frame, frag[2].frame, frag[3].frame}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0)
			for i := range 4000 {
				for _, f := range tc.frames {
					must(t, w.Write(t0+int64(i)*1e6, 0, f, 0))
				}
			}
			r, err := capture.Open(&buf)
			must(t, err)
			var p capture.Packet
			for range 100 { // warm up: buffers and tables reach their steady size
				must(t, r.Next(&p))
			}
			allocs := testing.AllocsPerRun(2000, func() {
				if err := r.Next(&p); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per packet, want 0", allocs)
			}
			if p.Kind != capture.KindUDP && p.Kind != capture.KindTCP && !p.Fragment {
				t.Errorf("decoded as %d", p.Kind)
			}
		})
	}
}
