package analysis

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// TestUnanalysedWarnings: what a stage counted instead of keeping reaches the report as a
// warning with its count. The capture holds, besides a clean call:
//   - 2 IPv4 datagrams of which only the first fragment came (one 40 s before the end:
//     expired; one at the end: incomplete when the capture ended);
//   - 3 RTP packets cut by the snap length inside their fixed header: RTP by their first
//     byte, but their SSRC was not captured, so they count in no stream;
//   - 2 datagrams in STUN's range with the magic cookie but attributes that overrun.
func TestUnanalysedWarnings(t *testing.T) {
	s := audio()
	s.Count = 3000 // 60 s
	pkts := s.Packets()
	frag := func(at int64, id uint16) callgen.Packet {
		udp := pcapgen.UDP(alice, bob, make([]byte, 3000))
		first := pcapgen.IPv4Fragments(alice.Addr(), bob.Addr(), pcapgen.ProtoUDP, id, udp, 1480)[0]
		return callgen.Packet{T: at, Frame: pcapgen.Ether(first, pcapgen.EtherTypeIPv4)}
	}
	t0, end := pkts[0].T, pkts[len(pkts)-1].T
	pkts = append(pkts, frag(t0+int64(10e9), 1), frag(end-1000, 2))
	other := netip.MustParseAddrPort("10.0.0.9:7000")
	for i := 0; i < 2; i++ {
		stunBad := []byte{0, 1, 0, 8, 0x21, 0x12, 0xA4, 0x42, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
			0, 6, 0, 200, 0, 0, 0, 0} // USERNAME of 200 bytes in 4
		pkts = append(pkts, callgen.Packet{T: t0 + int64(i)*1e6, Frame: pcapgen.EtherUDP(other, alice, stunBad)})
	}
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0)
	if err := callgen.Write(w, pkts); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		frame := pcapgen.EtherUDP(other, bob, make([]byte, 200))
		frame[42] = 0x80 // v=2: 12 bytes of fixed header, of which the capture kept 8
		if err := w.Write(end+int64(i+1)*1e6, 0, frame[:42+8], len(frame)); err != nil {
			t.Fatal(err)
		}
	}
	c := analyze(t, buf.Bytes(), Options{})
	want := []string{
		"2 IP datagrams could not be rebuilt from IP fragments (1 incomplete 30 s after the first fragment, 1 incomplete at the end of the capture)",
		"3 messages in RTP's range were cut by the snap length inside the RTP fixed header, before their SSRC",
		"2 messages classified as STUN did not decode",
	}
	all := strings.Join(c.Warnings, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no warning %q in:\n%s", w, all)
		}
	}
	if st := onlyStream(t, c); st.Packets != 3000 {
		t.Errorf("stream packets %d, want 3000", st.Packets)
	}
}
