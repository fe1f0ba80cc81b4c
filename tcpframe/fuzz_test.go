package tcpframe

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/golden"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// checkSplit drives split over data as Conn does and checks what it returns; with measure
// (framer.measure on the same state), that measure reads the frames from their first bytes
// as split cuts them, wherever it answers.
func checkSplit(t *testing.T, name string, split SplitFunc, measure func([]byte) (int, int, int, bool), probe probeFunc, data []byte) {
	for _, atEOF := range []bool{false, true} {
		rest := data
		for steps := 0; len(rest) > 0; steps++ {
			if steps > len(data)+1 {
				t.Fatalf("%s: no progress", name)
			}
			var madv, moff, mn int
			mok := false
			if measure != nil && !atEOF {
				madv, moff, mn, mok = measure(rest[:min(len(rest), channelDataHeaderLen+HeadLen)])
			}
			adv, msg, err := split(rest, atEOF)
			switch {
			case !mok:
			case err != nil:
				t.Fatalf("%s: measure read a frame of %d where split found a bad header", name, madv)
			case adv == 0 && madv <= len(rest):
				t.Fatalf("%s: measure read a frame of %d, split needs more than %d", name, madv, len(rest))
			case adv > 0 && (madv != adv || msg == nil || moff != cap(rest)-cap(msg) || mn != len(msg)):
				t.Fatalf("%s: measure read [%d,+%d) of %d, split cut %d", name, moff, mn, madv, adv)
			}
			if adv < 0 || adv > len(rest) {
				t.Fatalf("%s: advance %d of %d", name, adv, len(rest))
			}
			if msg != nil {
				off := cap(rest) - cap(msg)
				if off < 0 || off+len(msg) > adv {
					t.Fatalf("%s: message [%d,+%d) outside the advance %d", name, off, len(msg), adv)
				}
			}
			if err != nil {
				if adv != 0 || msg != nil {
					t.Fatalf("%s: error with advance %d", name, adv)
				}
				skip, _ := resync(probe, nil, rest[1:], atEOF, false)
				rest = rest[1+skip:]
				continue
			}
			if adv == 0 {
				if atEOF {
					t.Fatalf("%s: need more at EOF with %d bytes", name, len(rest))
				}
				break
			}
			rest = rest[adv:]
		}
	}
	if skip, _ := resync(probe, nil, data, false, false); skip < 0 || skip > len(data) {
		t.Fatalf("%s: resync skip %d", name, skip)
	}
	for _, atEOF := range []bool{false, true} {
		// Detection, whose runs of frames (confirmRun) the probes' inputs drive too.
		k, skip, ok := Detect(data, atEOF, false)
		if skip < 0 || skip > len(data) || ok == (k == FramingNone) || atEOF && !ok {
			t.Fatalf("%s: Detect(atEOF %v) = %v skip %d ok %v", name, atEOF, k, skip, ok)
		}
	}
}

func FuzzRFC4571(f *testing.F) {
	f.Add(cat(rfc4571(stunMsg(1, 12)), rfc4571(dtlsRecord(40)), rfc4571(rtpPacket(100, 1))))
	f.Add([]byte{0x00, 0x10, 0x80, 0x60})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := framer{kind: FramingRFC4571, sync: true}
		checkSplit(t, "rfc4571", SplitRFC4571, fr.measure, probeRFC4571, data)
	})
}

func FuzzTURNTCP(f *testing.F) {
	f.Add(cat(stunMsg(3, 8), channelData(0x4000, 101, true, 1), channelData(0x4001, 3, true, 2)))
	f.Add(cat(channelData(0x4000, 101, false, 0xEE), channelData(0x4000, 5, false, 0xEE), stunMsg(0x0103, 4)))
	f.Add(cat(stunMsg(9, 8), channelData(0x7FFE, 101, true, 1), channelData(0x5001, 6, false, 2), stunMsg(0x0109, 0)))
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := framer{kind: FramingTURN, sync: true}
		checkSplit(t, "turn", fr.turn.Split, fr.measure, probeTURN, data)
	})
}

func FuzzTLS(f *testing.F) {
	f.Add(cat(tlsRecord(22, 100), tlsRecord(20, 1), tlsRecord(23, 300)))
	f.Add([]byte{23, 3, 3, 0x48, 0x01})
	f.Add(pcapgen.TLSClientHello("h2", "stun.turn"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplit(t, "tls", SplitTLS, nil, probeTLS, data)
		OffersALPN(data, "stun.turn") // never panics, whatever a record holds
	})
}

// fuzzSeg is one segment of FuzzConn's input: an 8-byte header, then the payload.
//
//	byte 0: bit 0 from B, bit 1 seq delta ×4096, bit 2 snapped, bit 3 zero window, bit 4 SACK,
//	        bit 5 detach after it (when borrowing)
//	byte 1: TCP flags
//	bytes 2-3: seq delta from the direction's next sequence number (int16)
//	bytes 4-5: ack delta from the other direction's next sequence number (int16)
//	byte 6: payload length
//	byte 7: time advance in 0.5 ms
type fuzzSeg struct {
	ctl, flags byte
	seqDelta   int16
	ackDelta   int16
	dt         byte
	payload    []byte
}

func encodeSegs(segs []fuzzSeg) []byte {
	var b []byte
	for _, s := range segs {
		b = append(b, s.ctl, s.flags)
		b = binary.BigEndian.AppendUint16(b, uint16(s.seqDelta))
		b = binary.BigEndian.AppendUint16(b, uint16(s.ackDelta))
		b = append(b, byte(len(s.payload)), s.dt)
		b = append(b, s.payload...)
	}
	return b
}

// runFuzzConn decodes segments from data, feeds them to a Conn and checks its invariants,
// then feeds them again to a Conn that borrows the payloads (Config.BorrowPayload) and checks
// that it emits the same messages and figures, and to one that also keeps only the heads of
// RTP messages (Config.HeadsOnly), which must differ from the first only there.
func runFuzzConn(t *testing.T, data []byte) {
	copied := feedFuzzConn(t, data, Config{})
	borrowed := feedFuzzConn(t, data, Config{BorrowPayload: true})
	sameRun(t, "borrowing payloads", copied, borrowed)
	heads := feedFuzzConn(t, data, Config{BorrowPayload: true, HeadsOnly: true})
	for i, p := range heads.payload {
		if !sameHead(copied.payload[i], p) {
			t.Fatalf("message %d: HeadsOnly payload % x, whole % x", i, p, copied.payload[i])
		}
	}
	heads.payload = copied.payload
	sameRun(t, "keeping only heads", copied, heads)
}

// sameHead says whether p is whole, or whole as HeadsOnly may hold it: the same length,
// the same first bytes (those of an RTP header and the two after it at least: 14), zeros
// after them, and the last byte or zero.
func sameHead(whole, p []byte) bool {
	n := len(whole)
	if len(p) != n || n == 0 {
		return len(p) == n
	}
	k := 0
	for k < n && p[k] == whole[k] {
		k++
	}
	return k == n || k >= min(n-1, 14) && !slices.ContainsFunc(p[k:n-1], func(b byte) bool { return b != 0 }) &&
		(p[n-1] == whole[n-1] || p[n-1] == 0)
}

func sameRun(t *testing.T, what string, want, got fuzzRun) {
	t.Helper()
	if reflect.DeepEqual(want, got) {
		return // cmp.Diff, equal or not, took nine tenths of the time
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(fuzzRun{}), cmpopts.EquateComparable(netip.AddrPort{})); diff != "" {
		t.Fatalf("%s changed the result (-copied +changed):\n%s", what, diff)
	}
}

// fuzzRun is what a Conn emitted and reported for FuzzConn's input.
type fuzzRun struct {
	msgs    []transport.Message
	payload [][]byte
	summary report.FlowTCP
	rest    [2]Rest
}

// feedFuzzConn runs FuzzConn's input through one Conn. With cfg.BorrowPayload, every
// payload is in a buffer of its own, and the buffers are overwritten once the Conn is
// detached from them (after every third segment, or after any segment with bit 5 of its
// control byte set).
func feedFuzzConn(t *testing.T, data []byte, cfg Config) fuzzRun {
	borrow := cfg.BorrowPayload
	c := NewConn(cfg, addrA, addrB)
	var run fuzzRun
	// Payloads given since the last Detach (lent) and before it (old): a Detach lets the
	// old ones be overwritten, as a reused read buffer would be.
	var lent, old [][]byte
	detach := func() {
		c.Detach()
		for _, b := range old {
			for i := range b {
				b[i] = 0xA5
			}
		}
		old, lent = lent, old[:0]
	}
	var totals, wire [2]int64
	emit := func(m *transport.Message) {
		run.msgs = append(run.msgs, *m)
		run.msgs[len(run.msgs)-1].Payload = nil
		run.payload = append(run.payload, append([]byte{}, m.Payload...))
		w := m.Wire
		if w.Total != w.Headers+w.Framing+w.Retransmitted+int64(len(m.Payload)) || w.Headers < 0 || w.Framing < 0 || w.Retransmitted < 0 {
			t.Fatalf("message wire %+v, payload %d", w, len(m.Payload))
		}
		if m.Delivered < m.Complete {
			t.Fatalf("delivered %d before complete %d", m.Delivered, m.Complete)
		}
		if m.Src == addrA {
			totals[0] += w.Total
		} else {
			totals[1] += w.Total
		}
	}
	var next [2]uint32
	next[0], next[1] = 1000, 0xFFFFF000
	now := int64(0)
	p := &capture.Packet{Kind: capture.KindTCP, IPProto: 6, HeaderLen: hdrLen}
	for segs := 1; len(data) >= 8; segs++ {
		h := data[:8]
		data = data[8:]
		n := min(int(h[6]), len(data))
		payload := data[:n]
		data = data[n:]
		if borrow {
			payload = append([]byte{}, payload...)
			lent = append(lent, payload)
		}
		i := int(h[0] & 1)
		delta := int32(int16(binary.BigEndian.Uint16(h[2:])))
		if h[0]&2 != 0 {
			delta *= 4096
		}
		seq := next[i] + uint32(delta)
		next[i] = seq + uint32(n)
		ack := next[1-i] + uint32(int32(int16(binary.BigEndian.Uint16(h[4:]))))
		now += int64(h[7]) * 500_000
		src, dst := addrA, addrB
		if i == 1 {
			src, dst = addrB, addrA
		}
		*p = capture.Packet{Time: now, Kind: capture.KindTCP, IPProto: 6, HeaderLen: hdrLen,
			Src: src.Addr(), Dst: dst.Addr(), SrcPort: src.Port(), DstPort: dst.Port(),
			WireLen: hdrLen + n, PayloadLen: n, Payload: payload,
			TCP: capture.TCPHeader{Seq: seq, Ack: ack, Flags: h[1], Window: 1000}}
		if h[0]&4 != 0 {
			p.Payload, p.Snapped = payload[:n/2], true
		}
		if h[0]&8 != 0 {
			p.TCP.Window = 0
		}
		if h[0]&16 != 0 {
			p.TCP.SACK[0] = capture.SACKBlock{Left: ack - 100, Right: ack - 50}
			p.TCP.NSACK = 1
		}
		wire[i] += int64(p.WireLen)
		c.Segment(p, emit)
		if borrow && (segs%3 == 0 || h[0]&32 != 0) {
			detach()
		}
		for k := range c.dirs {
			d := &c.dirs[k]
			if d.st.highest-d.released() > c.window || int64(len(d.st.buf)) > c.window {
				t.Fatalf("dir %d: pending %d, buffer %d, window %d", k, d.st.highest-d.released(), len(d.st.buf), c.window)
			}
			if d.st.cs.n() > d.st.maxChunks()+2 {
				t.Fatalf("dir %d: %d chunks", k, d.st.cs.n())
			}
		}
	}
	c.Close(emit)
	s := c.Summary()
	run.summary = s
	for k, dw := range [2]int64{s.AToB.WireBytes, s.BToA.WireBytes} {
		r := c.Rest(k)
		run.rest[k] = r
		if sum := totals[k] + r.ACKs + r.Control + r.Retransmitted + r.Unframed; dw != wire[k] || sum != dw {
			t.Fatalf("dir %d: wire %d fed %d, messages %d + rest %+v = %d", k, dw, wire[k], totals[k], r, sum)
		}
		if d := &c.dirs[k]; d.qh != len(d.q) {
			t.Fatalf("dir %d: %d messages held after Close", k, len(d.q)-d.qh)
		}
	}
	return run
}

func fuzzConnSeeds() [][]byte {
	turn := cat(stunMsg(3, 8), channelData(0x4000, 100, true, 1), channelData(0x4001, 101, true, 2), channelData(0x4000, 50, true, 3))
	fr := cat(frame4571(0), frame4571(1), frame4571(2))
	media := cat(channelDataOf(0x4000, rtpWith(150, 1, 7, 0xAB), true), stunMsg(0x0117, 4),
		channelDataOf(0x4000, rtpWith(90, 2, 7, 0xCD), true), channelDataOf(0x4000, rtpWith(301, 3, 7, 0xEF), true))
	return [][]byte{
		encodeSegs([]fuzzSeg{
			{flags: fSYN},
			{ctl: 1, flags: fSYN | fACK, ackDelta: 1},
			{flags: fACK, seqDelta: 1, dt: 1},
			{flags: fACK | fPSH, payload: turn[:78], dt: 2},
			{ctl: 1, flags: fACK, seqDelta: 1, dt: 1},
			{flags: fACK | fPSH, payload: turn[78:], dt: 2},
			{ctl: 1, flags: fACK, dt: 1},
			{flags: fACK | fFIN, dt: 1},
		}),
		encodeSegs([]fuzzSeg{
			{flags: fACK | fPSH, payload: fr[:202]},
			{flags: fACK | fPSH, seqDelta: 202, payload: fr[404:], dt: 4},
			{ctl: 1, flags: fACK, ackDelta: -202 - 202, dt: 1},
			{flags: fACK | fPSH, seqDelta: -404, payload: fr[202:404], dt: 200},
			{ctl: 1 | 16, flags: fACK, dt: 1},
			{flags: fACK | fPSH, seqDelta: -202, payload: fr[202:404], dt: 200},
			{ctl: 1 | 8, flags: fACK, dt: 1},
			{flags: fACK, seqDelta: -1, dt: 1},
			{flags: fRST, dt: 1},
		}),
		// RTP in ChannelData, the frames straddling the segments: what HeadsOnly keeps the
		// heads of.
		encodeSegs([]fuzzSeg{
			{flags: fACK | fPSH, payload: media[:100], dt: 1},
			{flags: fACK | fPSH, payload: media[100:330], dt: 1},
			{ctl: 1, flags: fACK, ackDelta: -230, dt: 1},
			{flags: fACK | fPSH, payload: media[330:], dt: 1},
			{ctl: 1, flags: fACK, dt: 1},
		}),
	}
}

// channelDataOf wraps msg in a ChannelData message on channel ch, padded to 4 with pad.
func channelDataOf(ch uint16, msg []byte, pad bool) []byte {
	b := channelData(ch, len(msg), pad, 0)
	copy(b[channelDataHeaderLen:], msg)
	return b
}

func FuzzConn(f *testing.F) {
	for _, s := range fuzzConnSeeds() {
		f.Add(s)
	}
	f.Fuzz(runFuzzConn)
}

// TestWriteFuzzSeeds checks testdata/fuzz against the seeds below; -update rewrites it.
func TestWriteFuzzSeeds(t *testing.T) {
	seeds := map[string][][]byte{
		"FuzzConn":    fuzzConnSeeds(),
		"FuzzRFC4571": {cat(rfc4571(stunMsg(1, 12)), rfc4571(dtlsRecord(40)), rfc4571(rtpPacket(100, 1))), cat(frame4571(0)[5:], frame4571(1))},
		"FuzzTURNTCP": {cat(stunMsg(3, 8), channelData(0x4000, 101, true, 1)), cat(channelData(0x4000, 101, false, 0xEE), channelData(0x4000, 5, false, 0xEE), stunMsg(0x0103, 4)),
			// RFC 5766 channels, padded and not, between STUN.
			cat(stunMsg(9, 8), channelData(0x7FFE, 101, true, 1), channelData(0x5001, 6, false, 2), channelData(0x7FFF, 3, true, 3), stunMsg(0x0109, 0))},
		"FuzzTLS": {cat(tlsRecord(22, 100), tlsRecord(20, 1), tlsRecord(23, 300)), cat([]byte{1, 2, 3}, tlsRecord(23, 17000))},
	}
	for name, list := range seeds {
		for i, b := range list {
			golden.Check(t, filepath.Join("testdata", "fuzz", name, fmt.Sprintf("seed%d", i)), golden.FuzzSeed(b))
		}
	}
}
