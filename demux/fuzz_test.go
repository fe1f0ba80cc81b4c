package demux

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/internal/testgen/golden"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// seedMessages are the STUN, TURN and ChannelData messages of the tests, as they would
// appear on the wire: the seeds of every fuzz target.
func seedMessages(t testing.TB) map[string][]byte {
	auth := []stun.Setter{stun.NewUsername("1700000000:user"), stun.NewRealm("example.org"), stun.NewNonce("abcd")}
	media := []byte{0x80, 0x60, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2, 0xAA, 0xBB, 0xCC}
	return map[string][]byte{
		"binding-request": build(t, stun.MethodBinding, stun.ClassRequest, 1,
			stun.NewUsername("bobu:aliu"), u32Attr(stun.AttrPriority, 0x6E7F1EFF), useCandidate, stun.Fingerprint),
		"binding-success": build(t, stun.MethodBinding, stun.ClassSuccessResponse, 1, mappedAddr(alice), stun.Fingerprint),
		"binding-error":   build(t, stun.MethodBinding, stun.ClassErrorResponse, 1, stun.CodeRoleConflict),
		"binding-ipv6": build(t, stun.MethodBinding, stun.ClassSuccessResponse, 1,
			mappedAddr("[2001:db8::1]:5000")),
		"allocate-request": build(t, stun.MethodAllocate, stun.ClassRequest, 2, u32Attr(stun.AttrRequestedTransport, 17<<24)),
		"allocate-401": build(t, stun.MethodAllocate, stun.ClassErrorResponse, 2,
			stun.CodeUnauthorized, stun.NewRealm("example.org"), stun.NewNonce("abcd")),
		"allocate-success": build(t, stun.MethodAllocate, stun.ClassSuccessResponse, 2,
			relayedAddr(relayed), lifetime(600), mappedAddr(client)),
		"createpermission":         build(t, stun.MethodCreatePermission, stun.ClassRequest, 3, append(auth, peerAddr(bob), peerAddr(carol))...),
		"createpermission-success": build(t, stun.MethodCreatePermission, stun.ClassSuccessResponse, 3),
		"channelbind":              build(t, stun.MethodChannelBind, stun.ClassRequest, 4, append(auth, channelNumber(0x4000), peerAddr(bob))...),
		"channelbind-success":      build(t, stun.MethodChannelBind, stun.ClassSuccessResponse, 4),
		"refresh-0":                build(t, stun.MethodRefresh, stun.ClassRequest, 5, append(auth, lifetime(0))...),
		"send":                     build(t, stun.MethodSend, stun.ClassIndication, 6, peerAddr(bob), dataAttr(media)),
		"data":                     build(t, stun.MethodData, stun.ClassIndication, 7, peerAddr(bob), dataAttr(media), stun.Fingerprint),
		"channeldata":              append([]byte{0x40, 0x00, 0x00, byte(len(media))}, media...),
		"channeldata-padded":       []byte{0x40, 0x00, 0x00, 0x01, 0xAA, 0x00, 0x00, 0x00},
		// RFC 5766 channels: QUIC's first byte, ChannelData where a ChannelBind succeeded.
		"channelbind-legacy":         build(t, stun.MethodChannelBind, stun.ClassRequest, 8, append(auth, channelNumber(0x5001), peerAddr(bob))...),
		"channelbind-legacy-success": build(t, stun.MethodChannelBind, stun.ClassSuccessResponse, 8),
		"channeldata-legacy":         append([]byte{0x50, 0x01, 0x00, byte(len(media))}, media...),
		"classic-stun":               cat([]byte{0x00, 0x01, 0x00, 0x00}, tid16),
		"rtp":                        media,
		"rtcp":                       []byte{0x80, 0xC9, 0x00, 0x01, 0xDE, 0xAD, 0xBE, 0xEF},
		"dtls":                       []byte{0x16, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x01, 0x01},
	}
}

// sequence joins messages into one fuzz input for FuzzSTUN: each is a 16-bit length, its
// top bit set for a message from the server to the client, then the bytes.
func sequence(msgs ...[]byte) []byte {
	var b []byte
	for i, m := range msgs {
		n := uint16(len(m))
		if i%2 == 1 {
			n |= 0x8000
		}
		b = binary.BigEndian.AppendUint16(b, n)
		b = append(b, m...)
	}
	return b
}

// writeSeeds checks testdata/fuzz/<name>/seed-* against seeds, in the Go fuzz corpus
// format; -update rewrites them.
func writeSeeds(t *testing.T, name string, seeds map[string][]any) {
	t.Helper()
	for file, args := range seeds {
		golden.Check(t, filepath.Join("testdata", "fuzz", name, "seed-"+file), golden.FuzzSeed(args...))
	}
}

// TestWriteFuzzSeeds checks the seed corpora against the tests' messages; -update
// rewrites them.
func TestWriteFuzzSeeds(t *testing.T) {
	msgs := seedMessages(t)
	classify, stunSeeds, cd := map[string][]any{}, map[string][]any{}, map[string][]any{}
	for name, m := range msgs {
		classify[name] = []any{m}
		stunSeeds[name] = []any{sequence(m), false}
		if Classify(m) == ClassChannelData {
			cd[name] = []any{m, false, false}
			cd[name+"-tcp"] = []any{m, true, false}
		}
	}
	stunSeeds["turn-call"] = []any{sequence(
		msgs["allocate-request"], msgs["allocate-401"],
		msgs["allocate-request"], msgs["allocate-success"],
		msgs["createpermission"], msgs["createpermission-success"],
		msgs["channelbind"], msgs["channelbind-success"],
		msgs["channeldata"], msgs["channeldata"],
		msgs["send"], msgs["data"],
	), false}
	stunSeeds["turn-call-legacy-channel"] = []any{sequence(
		msgs["channelbind-legacy"], msgs["channelbind-legacy-success"],
		msgs["channeldata-legacy"], msgs["channeldata-legacy"],
	), false}
	cd["channeldata-legacy"] = []any{msgs["channeldata-legacy"], false, false}
	cd["channeldata-legacy-tcp"] = []any{msgs["channeldata-legacy"], true, false}
	stunSeeds["ice-check"] = []any{sequence(msgs["binding-request"], msgs["binding-success"]), false}
	stunSeeds["snapped-data"] = []any{sequence(msgs["data"][:40]), true}
	cd["snapped"] = []any{msgs["channeldata"][:10], false, true}
	writeSeeds(t, "FuzzClassify", classify)
	writeSeeds(t, "FuzzSTUN", stunSeeds)
	writeSeeds(t, "FuzzChannelData", cd)
}

func FuzzClassify(f *testing.F) {
	for _, m := range seedMessages(f) {
		f.Add(m)
	}
	var cl Classifier // reused across inputs, as on the per-packet path
	f.Fuzz(func(t *testing.T, b []byte) {
		c := Classify(b)
		if c.String() == "" {
			t.Fatalf("class %d has no name", c)
		}
		// Truncation only relaxes checks.
		if c != ClassOther && classifyTruncated(b) != c {
			t.Fatalf("Classify = %v, classifyTruncated = %v", c, classifyTruncated(b))
		}
		// Over UDP, the demux and the parser agree on ChannelData, except on RFC 5766's
		// channels, which the parser reads and the first byte leaves to Tracker.Refine.
		_, _, _, ok := parseChannelData(b, false, false)
		if ok != (c == ClassChannelData) && !(ok && wire.IsLegacyChannelByte(b[0])) {
			t.Fatalf("Classify = %v, parseChannelData ok = %v", c, ok)
		}
		// The header a Classifier keeps is there exactly for RTP, and describes b.
		for _, truncated := range []bool{false, true} {
			c := cl.Classify(b, truncated)
			h := cl.RTP()
			if h != nil && (c != ClassRTP || h.HeaderLen+h.PayloadLen+h.PaddingLen() != len(b)) {
				t.Fatalf("truncated=%v: class %v with header %+v", truncated, c, h)
			}
			if c == ClassRTP && h == nil && !truncated {
				t.Fatal("RTP without a header")
			}
		}
	})
}

// FuzzSTUN feeds one Tracker the whole input as a message, then the sequence of messages
// it holds (see sequence), unwrapping what it can, and checks the unwrapped messages.
func FuzzSTUN(f *testing.F) {
	for _, m := range seedMessages(f) {
		f.Add(sequence(m), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, snapped bool) {
		tr := NewTracker()
		feed := func(b []byte, toClient bool, proto transport.Proto) {
			src, dst := client, server
			if toClient {
				src, dst = dst, src
			}
			m := udp(b, src, dst, float64(len(b)))
			m.Proto, m.Snapped = proto, snapped
			if snapped {
				m.Wire.Total += 100
			}
			var inner, inner2 transport.Message
			for depth, cur := 0, m; depth < 3; depth++ {
				var ok bool
				cls := tr.Refine(cur, Classify(cur.Payload), cur.Proto == transport.TCP)
				if cls == ClassChannelData || (snapped && classifyTruncated(cur.Payload) == ClassChannelData) {
					ok = tr.ChannelData(cur, &inner)
				} else {
					ok = tr.STUN(cur, &inner)
				}
				if !ok {
					return
				}
				checkInner(t, cur, &inner)
				inner, inner2 = inner2, inner
				cur = &inner2
			}
		}
		feed(data, false, transport.UDP)
		for i, rest := 0, data; len(rest) >= 2; i++ {
			n := int(binary.BigEndian.Uint16(rest) & 0x7FFF)
			toClient := rest[0]&0x80 != 0
			rest = rest[2:]
			n = min(n, len(rest))
			proto := transport.UDP
			if i%3 == 2 {
				proto = transport.TCP
			}
			feed(rest[:n], toClient, proto)
			rest = rest[n:]
		}
		tr.ICE()
		tr.TURN()
		for _, a := range tr.Allocations() {
			tr.IsTURNServer(a.Server)
			if len(a.Peers) > maxPeers || len(a.Channels) > maxChannels || a.Permissions > maxPermissions {
				t.Fatalf("allocation beyond its bounds: %+v", a)
			}
		}
	})
}

// checkInner checks an unwrapped message against the one that carried it.
func checkInner(t *testing.T, outer, inner *transport.Message) {
	t.Helper()
	if !within(outer.Payload, inner.Payload) {
		t.Fatalf("inner payload does not point into the outer one")
	}
	if inner.Wire.Total != outer.Wire.Total || inner.Wire.Headers != outer.Wire.Headers ||
		inner.Wire.Retransmitted != outer.Wire.Retransmitted || inner.Wire.Framing < outer.Wire.Framing {
		t.Fatalf("wire %+v from %+v", inner.Wire, outer.Wire)
	}
	if !outer.Snapped {
		if got, want := inner.Wire.Framing-outer.Wire.Framing+int64(len(inner.Payload)), int64(len(outer.Payload)); got != want {
			t.Fatalf("framing %d + payload %d != outer payload %d", inner.Wire.Framing-outer.Wire.Framing, len(inner.Payload), want)
		}
	}
	if inner.Via == transport.Direct {
		t.Fatal("inner message not tagged with its TURN wrapping")
	}
}

// within reports whether inner is a subslice of outer.
func within(outer, inner []byte) bool {
	if len(inner) == 0 {
		return true
	}
	for i := 0; i+len(inner) <= len(outer); i++ {
		if &outer[i] == &inner[0] {
			return true
		}
	}
	return false
}

func FuzzChannelData(f *testing.F) {
	for _, m := range seedMessages(f) {
		f.Add(m, false, false)
		f.Add(m, true, false)
	}
	f.Fuzz(func(t *testing.T, b []byte, tcp, snapped bool) {
		ch, payload, framing, ok := parseChannelData(b, tcp, false)
		if ok {
			if !wire.IsAnyChannel(ch) || len(payload)+framing != len(b) || framing < wire.ChannelDataHeaderLen ||
				!within(b, payload) {
				t.Fatalf("channel %#x payload %d framing %d of %d bytes", ch, len(payload), framing, len(b))
			}
		}
		tr := NewTracker()
		var inner transport.Message
		bind := udp(build(t, stun.MethodChannelBind, stun.ClassRequest, 1, channelNumber(0x4000), peerAddr(bob)), client, server, 0)
		m := udp(b, server, client, 1)
		if tcp {
			bind.Proto, m.Proto = transport.TCP, transport.TCP
		}
		tr.STUN(bind, &inner)
		m.Snapped = snapped
		got := tr.ChannelData(m, &inner)
		if !snapped && got != ok {
			t.Fatalf("Tracker.ChannelData = %v, parseChannelData ok = %v", got, ok)
		}
		if got {
			checkInner(t, m, &inner)
			if inner.Channel == 0x4000 && inner.Peer != ap(bob) {
				t.Fatalf("peer %v on the bound channel", inner.Peer)
			}
		}
	})
}
