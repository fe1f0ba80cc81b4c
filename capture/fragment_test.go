package capture_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/google/go-cmp/cmp"
)

type timedFrame struct {
	t     int64
	frame []byte
}

func fragFile(t *testing.T, snap int, frames []timedFrame) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkEthernet, true, false, snap)
	for _, f := range frames {
		must(t, w.Write(f.t, 0, f.frame, 0))
	}
	return buf.Bytes()
}

// v4frags returns the Ethernet frames of one UDP datagram fragmented every fragSize bytes,
// a millisecond apart, and the UDP payload.
func v4frags(id uint16, n, fragSize int) ([]timedFrame, []byte) {
	payload := make([]byte, n)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	udp := pcapgen.UDP(a4, b4, payload)
	var out []timedFrame
	for i, ip := range pcapgen.IPv4Fragments(a4.Addr(), b4.Addr(), pcapgen.ProtoUDP, id, udp, fragSize) {
		out = append(out, timedFrame{t0 + int64(i)*1e6, pcapgen.Ether(ip, pcapgen.EtherTypeIPv4)})
	}
	return out, payload
}

func v6frags(id uint32, n, fragSize int) ([]timedFrame, []byte) {
	payload := make([]byte, n)
	for i := range payload {
		payload[i] = byte(i * 3)
	}
	// The fragmentable part starts with a Destination Options header, then UDP.
	fragmentable := append([]byte{pcapgen.ProtoUDP, 0, 1, 4, 0, 0, 0, 0}, pcapgen.UDP(a6, b6, payload)...)
	var out []timedFrame
	for i, ip := range pcapgen.IPv6Fragments(a6.Addr(), b6.Addr(), pcapgen.ProtoDestOpts, id, fragmentable, fragSize,
		pcapgen.ExtHeader{Type: pcapgen.ProtoHopByHop}) {
		out = append(out, timedFrame{t0 + int64(i)*1e6, pcapgen.Ether(ip, pcapgen.EtherTypeIPv6)})
	}
	return out, payload
}

func wireSum(fs []timedFrame) int {
	n := 0
	for _, f := range fs {
		n += len(f.frame)
	}
	return n
}

func TestReassembly(t *testing.T) {
	in4, p4 := v4frags(1, 3000, 1000) // 4 fragments
	in6, p6 := v6frags(7, 3000, 1232) // 3 fragments
	reverse := func(fs []timedFrame) []timedFrame {
		out := make([]timedFrame, len(fs))
		for i, f := range fs {
			out[len(fs)-1-i] = timedFrame{fs[len(fs)-1-i].t, f.frame}
		}
		return out
	}
	shuffled := []timedFrame{in4[2], in4[0], in4[3], in4[1]}
	withDup := []timedFrame{in4[0], in4[1], in4[1], in4[2], in4[3]}
	for _, tc := range []struct {
		name    string
		frames  []timedFrame
		payload []byte
		headers int // every fragment's link and IP headers, plus the transport header
		stats   capture.Stats
	}{
		{"ipv4-in-order", in4, p4, 4*34 + 8, capture.Stats{Fragments: 4, Reassembled: 1}},
		{"ipv4-reverse", reverse(in4), p4, 4*34 + 8, capture.Stats{Fragments: 4, Reassembled: 1}},
		{"ipv4-shuffled", shuffled, p4, 4*34 + 8, capture.Stats{Fragments: 4, Reassembled: 1}},
		{"ipv4-duplicate", withDup, p4, 4*34 + 8, capture.Stats{Fragments: 5, Reassembled: 1, Duplicates: 1}},
		{"ipv6-in-order", in6, p6, 3*(14+40+8+8) + 8 + 8, capture.Stats{Fragments: 3, Reassembled: 1}},
		{"ipv6-reverse", reverse(in6), p6, 3*(14+40+8+8) + 8 + 8, capture.Stats{Fragments: 3, Reassembled: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ps, err := readAllBytes(t, fragFile(t, 0, tc.frames))
			must(t, err)
			if len(ps) != len(tc.frames) {
				t.Fatalf("%d packets, want %d", len(ps), len(tc.frames))
			}
			for _, p := range ps[:len(ps)-1] {
				if p.Kind != capture.KindIPOther || !p.Fragment || p.Reassembled {
					t.Errorf("pending fragment: %+v", summary(p))
				}
			}
			p := ps[len(ps)-1]
			wire := wireSum(tc.frames)
			if tc.stats.Duplicates > 0 {
				wire -= len(tc.frames[1].frame) // the repeat is not part of the datagram
				if r := ps[2]; !r.Repeat || r.SrcPort != 5004 || r.DstPort != 40000 {
					t.Errorf("repeat: %+v, want Repeat of UDP 5004 -> 40000", summary(r))
				}
			}
			if p.Kind != capture.KindUDP || !p.Reassembled || p.Fragment || p.Snapped ||
				!bytes.Equal(p.Payload, tc.payload) || p.PayloadLen != len(tc.payload) ||
				p.WireLen != wire || p.FrameLen != len(tc.frames[len(tc.frames)-1].frame) ||
				p.HeaderLen != tc.headers || p.HeaderLen+p.PayloadLen != p.WireLen {
				t.Errorf("reassembled: %+v", summary(p))
			}
			if d := cmp.Diff(tc.stats, r.Stats()); d != "" {
				t.Errorf("stats (-want +got):\n%s", d)
			}
		})
	}
}

// TestReassemblyRejects: what reassembly must refuse, and its limits.
func TestReassemblyRejects(t *testing.T) {
	in4, _ := v4frags(1, 3000, 1000)
	src, dst := a4.Addr(), b4.Addr()
	frag := func(id uint16, off int, more bool, n int, at int64) timedFrame {
		ip := pcapgen.IPv4Fragment(src, dst, pcapgen.ProtoUDP, id, off, more, make([]byte, n))
		return timedFrame{at, pcapgen.Ether(ip, pcapgen.EtherTypeIPv4)}
	}
	late := func(f timedFrame, d int64) timedFrame { return timedFrame{f.t + d, f.frame} }
	for _, tc := range []struct {
		name   string
		frames []timedFrame
		stats  capture.Stats
	}{
		{"overlap", []timedFrame{in4[0], frag(1, 800, true, 1000, t0+1e6), in4[1], in4[2], in4[3]},
			capture.Stats{Fragments: 5, Dropped: 1}},
		{"two-ends", []timedFrame{frag(2, 0, true, 800, t0), frag(2, 1600, false, 8, t0), frag(2, 800, false, 8, t0)},
			capture.Stats{Fragments: 3, Dropped: 1}},
		{"beyond-64k", []timedFrame{frag(3, 0, true, 800, t0), frag(3, 65000, false, 800, t0)},
			capture.Stats{Fragments: 2, Dropped: 1}},
		// The two late fragments belong to the expired datagram: swallowed, not a second
		// datagram left pending (it read Pending 1 before: one datagram counted twice).
		{"expired", []timedFrame{in4[0], in4[1], late(in4[2], 31e9), late(in4[3], 31e9)},
			capture.Stats{Fragments: 4, Expired: 1}},
		{"expired-twice-over", []timedFrame{in4[0], in4[1], late(in4[2], 31e9), late(in4[3], 62e9)},
			capture.Stats{Fragments: 4, Expired: 1, Pending: 1}},
		{"not-expired-at-30s", []timedFrame{in4[0], in4[1], late(in4[2], 29e9), late(in4[3], 29e9)},
			capture.Stats{Fragments: 4, Reassembled: 1}},
		// The identification taken again 31 s later, by a whole datagram: rebuilt, as a
		// receiver, which freed the expired one, rebuilds it (h161: swallowed, in no count).
		{"identification-taken-again", []timedFrame{in4[0], in4[1], late(in4[0], 31e9), late(in4[1], 31e9),
			late(in4[2], 31e9), late(in4[3], 31e9)}, capture.Stats{Fragments: 6, Expired: 1, Reassembled: 1}},
		// A repeat after the datagram was rebuilt is one, not the start of another that
		// never completes.
		{"late-repeat-of-last", []timedFrame{in4[0], in4[1], in4[2], in4[3], in4[3]},
			capture.Stats{Fragments: 5, Reassembled: 1, Duplicates: 1}},
		{"empty-fragment", []timedFrame{frag(4, 8, true, 0, t0)}, capture.Stats{Fragments: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ps, err := readAllBytes(t, fragFile(t, 0, tc.frames))
			must(t, err)
			if len(ps) != len(tc.frames) {
				t.Fatalf("%d packets", len(ps))
			}
			if d := cmp.Diff(tc.stats, r.Stats()); d != "" {
				t.Errorf("stats (-want +got):\n%s", d)
			}
			for _, p := range ps {
				if p.Kind != capture.KindIPOther && !p.Reassembled {
					t.Errorf("%+v", summary(p))
				}
			}
			if last := ps[len(ps)-1]; tc.name == "late-repeat-of-last" && (!last.Repeat || last.SrcPort != 5004) {
				t.Errorf("late repeat: %+v, want Repeat of the datagram from port 5004", summary(last))
			}
		})
	}
}

// TestReassemblyLimits floods the reassembler with first fragments that never complete.
func TestReassemblyLimits(t *testing.T) {
	src, dst := a4.Addr(), b4.Addr()
	var frames []timedFrame
	for i := range 3000 {
		ip := pcapgen.IPv4Fragment(src, dst, pcapgen.ProtoUDP, uint16(i), 0, true, make([]byte, 64))
		frames = append(frames, timedFrame{t0, pcapgen.Ether(ip, pcapgen.EtherTypeIPv4)})
	}
	r, _, err := readAllBytes(t, fragFile(t, 0, frames))
	must(t, err)
	if s := r.Stats(); s.Pending != 1024 || s.Dropped != 3000-1024 {
		t.Errorf("pending limit: %+v", s)
	}

	// Fragments near the 64 KiB end make 64 KiB buffers: the byte cap evicts.
	frames = frames[:0]
	for i := range 600 {
		ip := pcapgen.IPv4Fragment(src, dst, pcapgen.ProtoUDP, uint16(i), 64000, true, make([]byte, 1000))
		frames = append(frames, timedFrame{t0, pcapgen.Ether(ip, pcapgen.EtherTypeIPv4)})
	}
	r, _, err = readAllBytes(t, fragFile(t, 0, frames))
	must(t, err)
	if s := r.Stats(); s.Pending > (16<<20)/65000 || s.Pending+int(s.Dropped) != 600 {
		t.Errorf("byte limit: %+v", s)
	}
}

// TestReassemblySnapped: fragments cut by the snap length still give the datagram's
// lengths, and the payload captured from its start.
func TestReassemblySnapped(t *testing.T) {
	in4, p4 := v4frags(1, 3000, 1000)
	_, ps, err := readAllBytes(t, fragFile(t, 200, in4))
	must(t, err)
	p := ps[len(ps)-1]
	if p.Kind != capture.KindUDP || !p.Reassembled || !p.Snapped || p.PayloadLen != 3000 ||
		!bytes.Equal(p.Payload, p4[:200-14-20-8]) || p.WireLen != wireSum(in4) {
		t.Errorf("%+v", summary(p))
	}
}

// TestReassemblyGarbage: random fragments never panic, and memory stays within the limits.
func TestReassemblyGarbage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	src, dst := a4.Addr(), b4.Addr()
	var frames []timedFrame
	for i := range 5000 {
		off := rng.IntN(8192) * 8
		n := rng.IntN(1500)
		ip := pcapgen.IPv4Fragment(src, dst, pcapgen.ProtoUDP, uint16(rng.IntN(20)), off, rng.IntN(4) > 0, make([]byte, n))
		if rng.IntN(2) == 0 {
			ip = pcapgen.IPv6(a6.Addr(), b6.Addr(), pcapgen.ProtoUDP, make([]byte, n),
				pcapgen.FragHeader(off, rng.IntN(4) > 0, uint32(rng.IntN(20))))
			frames = append(frames, timedFrame{t0 + int64(i)*1e7, pcapgen.Ether(ip, pcapgen.EtherTypeIPv6)})
			continue
		}
		frames = append(frames, timedFrame{t0 + int64(i)*1e7, pcapgen.Ether(ip, pcapgen.EtherTypeIPv4)})
	}
	r, ps, err := readAllBytes(t, fragFile(t, 0, frames))
	must(t, err)
	if len(ps) != len(frames) {
		t.Errorf("%d packets", len(ps))
	}
	t.Logf("%+v", r.Stats())
}

// TestReassemblyPerLink: tcpdump -i any on a host that forwards records each fragment on
// the way in and on the way out, one copy right after the other (here pcapng interfaces 0
// and 1). Each interface's copy is a datagram of its own, rebuilt from its own fragments;
// keyed by addresses alone, the second copies were repeats and the last one began a
// datagram that never completed.
func TestReassemblyPerLink(t *testing.T) {
	in4, p4 := v4frags(1, 3000, 1000) // 4 fragments
	in6, p6 := v6frags(7, 3000, 1232) // 3 fragments
	for _, tc := range []struct {
		name    string
		frames  []timedFrame
		payload []byte
	}{{"ipv4", in4, p4}, {"ipv6", in6, p6}} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := pcapgen.NewPcapNG(&buf, []pcapgen.Iface{{Link: capture.LinkEthernet}, {Link: capture.LinkEthernet}})
			for _, f := range tc.frames {
				must(t, w.Write(f.t, 0, f.frame, 0))
				must(t, w.Write(f.t+5000, 1, f.frame, 0))
			}
			r, ps, err := readAllBytes(t, buf.Bytes())
			must(t, err)
			var ifaces []int
			for _, p := range ps {
				if p.Reassembled {
					ifaces = append(ifaces, p.Iface)
					if p.Kind != capture.KindUDP || !bytes.Equal(p.Payload, tc.payload) || p.WireLen != wireSum(tc.frames) {
						t.Errorf("reassembled on interface %d: %+v", p.Iface, summary(p))
					}
				}
			}
			n := int64(len(tc.frames))
			want := capture.Stats{Fragments: 2 * n, Reassembled: 2}
			if d := cmp.Diff(want, r.Stats()); d != "" || !slices.Equal(ifaces, []int{0, 1}) {
				t.Errorf("datagrams rebuilt on interfaces %v, want [0 1]; stats (-want +got):\n%s", ifaces, d)
			}
		})
	}
}

// TestReassemblySLLAddressPadding: a Linux cooked (SLL) header has 8 bytes for a 6-byte
// Ethernet address, and the kernel leaves the last two as they were, different from one
// fragment to the next (sngrep's ipv6frag.pcap): they do not tell links apart.
func TestReassemblySLLAddressPadding(t *testing.T) {
	in4, p4 := v4frags(1, 3000, 1000)
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkLinuxSLL, true, false, 0)
	for i, f := range in4 {
		frame := pcapgen.SLL(f.frame[14:], pcapgen.EtherTypeIPv4)
		frame[12], frame[13] = byte(i*37), byte(i*91+5)
		must(t, w.Write(f.t, 0, frame, 0))
	}
	r, ps, err := readAllBytes(t, buf.Bytes())
	must(t, err)
	if p := ps[len(ps)-1]; !p.Reassembled || !bytes.Equal(p.Payload, p4) {
		t.Errorf("last fragment: %+v, want the datagram rebuilt", summary(p))
	}
	if d := cmp.Diff(capture.Stats{Fragments: 4, Reassembled: 1}, r.Stats()); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
}

// TestReassemblyRepeatsAttributed: whatever order a datagram's fragments and their repeats
// come in, every frame's bytes are some packet's to attribute: the rebuilt datagram's
// WireLen, or a Repeat's own frame (with the datagram's ports). A repeat that came before
// the ports were known was attributed to nothing, and one of the fragment that came first,
// after the datagram was rebuilt, began a second copy that never completed: its bytes went
// nowhere and it was reported incomplete.
func TestReassemblyRepeatsAttributed(t *testing.T) {
	in4, p4 := v4frags(1, 3000, 1000) // 4 fragments: A B C D
	in6, _ := v6frags(7, 3000, 1232)  // 3 fragments
	A, B, C, D := in4[0], in4[1], in4[2], in4[3]
	for _, tc := range []struct {
		name    string
		frames  []timedFrame
		rebuilt int // datagrams rebuilt
		dups    int64
	}{
		{"AABCD", []timedFrame{A, A, B, C, D}, 1, 1},
		{"ABCDA", []timedFrame{A, B, C, D, A}, 1, 1},
		{"BACDB", []timedFrame{B, A, C, D, B}, 1, 1},
		{"BBACD", []timedFrame{B, B, A, C, D}, 1, 1},
		{"DDCBA", []timedFrame{D, D, C, B, A}, 1, 1},
		{"ABCDAB", []timedFrame{A, B, C, D, A, B}, 1, 2},
		{"ABCDBA", []timedFrame{A, B, C, D, B, A}, 1, 2},
		// The whole datagram twice (the network duplicated it): two datagrams, the second
		// an RTP duplicate for the analysis.
		{"ABCDABCD", []timedFrame{A, B, C, D, A, B, C, D}, 2, 3},
		{"ABCDACBD", []timedFrame{A, B, C, D, A, C, B, D}, 2, 3},
		// Its second copy in another order (h134).
		{"ABCDDCBA", []timedFrame{A, B, C, D, D, C, B, A}, 2, 3},
		{"ABCDBDAC", []timedFrame{A, B, C, D, B, D, A, C}, 2, 3},
		{"v6-121", []timedFrame{in6[1], in6[0], in6[2], in6[1]}, 1, 1},
		{"v6-001", []timedFrame{in6[0], in6[0], in6[1], in6[2]}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ps, err := readAllBytes(t, fragFile(t, 0, tc.frames))
			must(t, err)
			var sport, dport uint16 // the datagram's
			for _, p := range ps {
				if p.Reassembled {
					sport, dport = p.SrcPort, p.DstPort
				}
			}
			// Echo repeats are the bytes of a second copy if it completes, whose WireLen
			// covers them, else a repeat's.
			attributed, rebuilt := 0, 0
			for _, p := range ps {
				switch {
				case p.Reassembled:
					rebuilt++
					attributed += p.WireLen
					if p.Echo {
						attributed -= p.WireLen - p.FrameLen // its echo repeats, counted
					}
					if p.Kind != capture.KindUDP || p.PayloadLen != len(p4) && tc.name[0] != 'v' {
						t.Errorf("rebuilt: %+v", summary(p))
					}
				case p.Repeat:
					attributed += p.FrameLen
					if p.SrcPort != sport || p.DstPort != dport || sport == 0 {
						t.Errorf("repeat without the datagram's ports: %+v", summary(p))
					}
				}
			}
			if want := wireSum(tc.frames); attributed != want || rebuilt != tc.rebuilt {
				t.Errorf("%d of %d bytes attributed, %d datagrams rebuilt (want %d)", attributed, want, rebuilt, tc.rebuilt)
			}
			want := capture.Stats{Fragments: int64(len(tc.frames)), Reassembled: int64(tc.rebuilt), Duplicates: tc.dups}
			if d := cmp.Diff(want, r.Stats()); d != "" {
				t.Errorf("stats (-want +got):\n%s", d)
			}
		})
	}
}

// TestReassemblyInFlightBeyondTheCap: 1,080 datagrams of two fragments each, every first
// fragment before any second (h135). The first 1,024 are rebuilt; the 56 beyond the cap
// are not tracked, and their second fragments, come when entries were free again, are left
// pending. Before, each new fragment evicted the oldest datagram, the one the next would
// complete: none was rebuilt.
func TestReassemblyInFlightBeyondTheCap(t *testing.T) {
	src, dst := a4.Addr(), b4.Addr()
	var firsts, seconds []timedFrame
	for i := range 1080 {
		udp := pcapgen.UDP(a4, b4, make([]byte, 100))
		fs := pcapgen.IPv4Fragments(src, dst, pcapgen.ProtoUDP, uint16(i), udp, 64)
		firsts = append(firsts, timedFrame{t0 + int64(i)*1e3, pcapgen.Ether(fs[0], pcapgen.EtherTypeIPv4)})
		seconds = append(seconds, timedFrame{t0 + 1e9 + int64(i)*1e3, pcapgen.Ether(fs[1], pcapgen.EtherTypeIPv4)})
	}
	r, _, err := readAllBytes(t, fragFile(t, 0, append(firsts, seconds...)))
	must(t, err)
	if s := r.Stats(); s.Reassembled != 1024 || s.Dropped != 56 || s.Pending != 56 {
		t.Errorf("stats %+v, want 1024 rebuilt, 56 dropped, 56 pending", s)
	}
}
