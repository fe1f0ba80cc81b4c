package analysis

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
)

// snapRTXCall is callgen.RTXRepairCall with random payloads (SRTP-like): 15 losses of the
// video repaired by RTX and 7 padding-only probes, 22 RTX packets.
func snapRTXCall() []callgen.Packet {
	return callgen.RTXRepairCall(func(ssrc uint32) func(i int, b []byte) {
		return func(i int, b []byte) {
			r := rand.New(rand.NewPCG(uint64(ssrc), uint64(i)))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
		}
	})
}

// snapRTX is what the test asserts of the RTX stream and its video.
type snapRTX struct {
	Kind, RTXOf               string
	Packets                   int64
	MediaSSRC                 string
	Repairs, Probes           int64
	VideoLost, VideoRecovered int64
}

func snapRTXOf(c report.Capture) snapRTX {
	var f snapRTX
	if r := streamBySSRC(c, 0x1a2b3c4e); r != nil {
		f.Kind, f.RTXOf, f.Packets = r.Kind, derefS(r.RTXOf), r.Packets
		if r.RTX != nil {
			f.MediaSSRC, f.Repairs, f.Probes = r.RTX.MediaSSRC, r.RTX.Repairs, r.RTX.Probes
		}
	}
	if v := streamBySSRC(c, 0x1a2b3c4d); v != nil {
		f.VideoLost, f.VideoRecovered = deref(v.Lost), deref(v.RecoveredByRTX)
	}
	return f
}

// A capture cut at 200 bytes keeps each RTX repair's OSN (bytes 12-13 of the RTP packet,
// 54-55 of the frame) but not a padding-only probe's padding count (its last byte, at 253):
// the probe's first captured bytes after the header are padding, not an OSN. Read as OSN
// 0, they voted for alice's audio, whose numbers are nearer 0 than the video's, and the
// RTX stream, with 11 of its first 16 votes for the video (under three quarters), was not
// recognised: kind video, no rtx_of, no repairs credited. A snapped packet with the P bit
// set and fewer than 257 bytes after its header may be padding only: it carries no OSN.
// Every figure is then the one of the whole capture: 14 repairs (loss 599, the video's
// last packet, is beyond its highest and was not wanted: a probe), 8 probes.
func TestSnappedRTXProbes(t *testing.T) {
	want := snapRTX{Kind: "rtx", RTXOf: "0x1a2b3c4d", Packets: 22, MediaSSRC: "0x1a2b3c4d",
		Repairs: 14, Probes: 8, VideoLost: 14, VideoRecovered: 14}
	for _, snap := range []int{0, 200} {
		for _, minPackets := range []int{1, 0} {
			c := analyze(t, snappedPcapOf(t, snapRTXCall(), snap), Options{MinPackets: minPackets})
			if d := cmp.Diff(want, snapRTXOf(c)); d != "" {
				t.Errorf("snap %d, min packets %d (-want +got):\n%s", snap, minPackets, d)
			}
			if snap != 0 && c.SnappedPackets == 0 {
				t.Errorf("snap %d: no snapped packets", snap)
			}
		}
	}
}
