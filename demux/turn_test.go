package demux

import (
	"bytes"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

const (
	client  = "10.0.0.1:50000"
	server  = "203.0.113.7:3478"
	relayed = "203.0.113.7:50012"
	carol   = "192.0.2.1:4000"
)

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

func ptr[T any](v T) *T { return &v }

// feedSTUN runs the messages through tr, failing on an unexpected unwrap.
func feedSTUN(t *testing.T, tr *Tracker, ms ...*transport.Message) {
	t.Helper()
	var inner transport.Message
	for _, m := range ms {
		if tr.STUN(m, &inner) {
			t.Fatalf("unexpected unwrap of %x", m.Payload)
		}
	}
}

// TestPermissionPortIgnored: a permission is for an IP address, and clients name it with
// port 0 (coturn's test client, a browser's); once a channel binding gives the port the
// media uses, the permission's address is no peer of its own. A permission alone still
// names its peer.
func TestPermissionPortIgnored(t *testing.T) {
	tr := NewTracker()
	feedSTUN(t, tr,
		udp(build(t, stun.MethodAllocate, stun.ClassRequest, 1, u32Attr(stun.AttrRequestedTransport, 17<<24)), client, server, 0),
		udp(build(t, stun.MethodAllocate, stun.ClassSuccessResponse, 1, relayedAddr(relayed), lifetime(600)), server, client, 10),
		udp(build(t, stun.MethodCreatePermission, stun.ClassRequest, 2, peerAddr("198.51.100.9:0"), peerAddr("192.0.2.1:0")), client, server, 20),
		udp(build(t, stun.MethodCreatePermission, stun.ClassSuccessResponse, 2), server, client, 30),
		udp(build(t, stun.MethodChannelBind, stun.ClassRequest, 3, channelNumber(0x4000), peerAddr(bob)), client, server, 40),
		udp(build(t, stun.MethodChannelBind, stun.ClassSuccessResponse, 3), server, client, 50),
	)
	got := tr.Allocations()[0].Peers
	want := []netip.AddrPort{ap("192.0.2.1:0"), ap(bob)}
	if !slices.Equal(got, want) {
		t.Errorf("peers %v, want %v", got, want)
	}
}

func TestTURNAllocation(t *testing.T) {
	tr := NewTracker()
	auth := []stun.Setter{stun.NewUsername("1700000000:user"), stun.NewRealm("example.org"), stun.NewNonce("abcd")}
	feedSTUN(t, tr,
		// The first Allocate is challenged (RFC 8656, 7.2)...
		udp(build(t, stun.MethodAllocate, stun.ClassRequest, 1, u32Attr(stun.AttrRequestedTransport, 17<<24)), client, server, 0),
		udp(build(t, stun.MethodAllocate, stun.ClassErrorResponse, 1,
			stun.CodeUnauthorized, stun.NewRealm("example.org"), stun.NewNonce("abcd")), server, client, 10),
		// ...and the second, with credentials, succeeds.
		udp(build(t, stun.MethodAllocate, stun.ClassRequest, 2, append(auth, u32Attr(stun.AttrRequestedTransport, 17<<24))...), client, server, 20),
		udp(build(t, stun.MethodAllocate, stun.ClassSuccessResponse, 2,
			relayedAddr(relayed), lifetime(600), mappedAddr(client)), server, client, 30),
		// A permission for bob, granted; one for carol, refused.
		udp(build(t, stun.MethodCreatePermission, stun.ClassRequest, 3, append(auth, peerAddr(bob))...), client, server, 40),
		udp(build(t, stun.MethodCreatePermission, stun.ClassSuccessResponse, 3), server, client, 50),
		udp(build(t, stun.MethodCreatePermission, stun.ClassRequest, 4, append(auth, peerAddr(carol))...), client, server, 41),
		udp(build(t, stun.MethodCreatePermission, stun.ClassErrorResponse, 4, stun.CodeForbidden), server, client, 51),
		// Channel 0x4000 to bob.
		udp(build(t, stun.MethodChannelBind, stun.ClassRequest, 5, append(auth, channelNumber(0x4000), peerAddr(bob))...), client, server, 60),
		udp(build(t, stun.MethodChannelBind, stun.ClassSuccessResponse, 5), server, client, 70),
	)

	var inner transport.Message
	for _, m := range []*transport.Message{
		udp([]byte{0x40, 0x00, 0x00, 0x02, 0x80, 0x60}, client, server, 80), // client to bob
		udp([]byte{0x40, 0x00, 0x00, 0x02, 0x80, 0x60}, server, client, 81), // bob to client
	} {
		if !tr.ChannelData(m, &inner) || inner.Peer != ap(bob) || inner.Channel != 0x4000 {
			t.Errorf("ChannelData %v -> %v: ok, peer %v, channel %#x; want bob on 0x4000", m.Src, m.Dst, inner.Peer, inner.Channel)
		}
	}

	// Refresh with LIFETIME 0 deletes the allocation (RFC 8656, 7).
	feedSTUN(t, tr,
		udp(build(t, stun.MethodRefresh, stun.ClassRequest, 6, append(auth, lifetime(0))...), client, server, 1000),
		udp(build(t, stun.MethodRefresh, stun.ClassSuccessResponse, 6, lifetime(0)), server, client, 1010),
	)

	want := report.TURN{
		Allocations: []report.Allocation{{
			Server: server, Client: client, Transport: "udp",
			Relayed: ptr(relayed), LifetimeS: ptr(0.0), Permissions: 1, // deleted: no lifetime left
			Channels: []report.Channel{{Number: 0x4000, Peer: bob}},
		}},
		Errors: []report.TURNError{{Code: 401, Count: 1, Clients: []string{client}}, {Code: 403, Count: 1, Clients: []string{client}}},
	}
	if d := cmp.Diff(want, tr.TURN()); d != "" {
		t.Errorf("TURN() mismatch (-want +got):\n%s", d)
	}
	wantInfo := []AllocationInfo{{
		Client: ap(client), Server: ap(server), Proto: transport.UDP, Relayed: ap(relayed),
		Lifetime: 600 * time.Second, Deallocated: true,
		FirstSeen: 0, LastSeen: int64(1010 * time.Millisecond),
		Peers:       []netip.AddrPort{ap(bob)}, // carol's permission was refused: no peer (listed before)
		Channels:    []ChannelBinding{{Number: 0x4000, Peer: ap(bob), Confirmed: true}},
		Permissions: 1, ChannelDataMessages: 2,
	}}
	if d := cmp.Diff(wantInfo, tr.Allocations(), cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })); d != "" {
		t.Errorf("Allocations() mismatch (-want +got):\n%s", d)
	}
	if !tr.IsTURNServer(ap(server)) || tr.IsTURNServer(ap(client)) || tr.IsTURNServer(ap(relayed)) {
		t.Error("IsTURNServer: want the server only")
	}
	if ice := tr.ICE(); ice.Checks != 0 || ice.Successes != 0 {
		t.Errorf("TURN counted as ICE: %+v", ice)
	}
}

// TestTURNRefusedDeletion: a Refresh with LIFETIME 0 deletes the allocation only if the
// server agrees; refused (437, allocation mismatch), the lifetime granted before stands.
func TestTURNRefusedDeletion(t *testing.T) {
	tr := NewTracker()
	feedSTUN(t, tr,
		udp(build(t, stun.MethodAllocate, stun.ClassRequest, 1, u32Attr(stun.AttrRequestedTransport, 17<<24)), client, server, 0),
		udp(build(t, stun.MethodAllocate, stun.ClassSuccessResponse, 1, relayedAddr(relayed), lifetime(600)), server, client, 10),
		udp(build(t, stun.MethodRefresh, stun.ClassRequest, 2, lifetime(0)), client, server, 20),
		udp(build(t, stun.MethodRefresh, stun.ClassErrorResponse, 2, stun.CodeAllocMismatch), server, client, 30),
	)
	as := tr.Allocations()
	got := tr.TURN().Allocations
	if len(as) != 1 || as[0].Deallocated || len(got) != 1 || got[0].LifetimeS == nil || *got[0].LifetimeS != 600 {
		t.Errorf("allocations %+v, report %+v: want one, not deleted, lifetime 600 s", as, got)
	}
}

// TestTURNReallocation: an allocation deleted (Refresh, LIFETIME 0) and a new one made on
// the same 5-tuple, with another relayed address: two allocations, each with its own
// address and lifetime. Before, one, under the second's address.
func TestTURNReallocation(t *testing.T) {
	tr := NewTracker()
	const relayed2 = "203.0.113.7:50090"
	feedSTUN(t, tr,
		udp(build(t, stun.MethodAllocate, stun.ClassRequest, 1, u32Attr(stun.AttrRequestedTransport, 17<<24)), client, server, 0),
		udp(build(t, stun.MethodAllocate, stun.ClassSuccessResponse, 1, relayedAddr(relayed), lifetime(600)), server, client, 10),
		udp(build(t, stun.MethodRefresh, stun.ClassRequest, 2, lifetime(0)), client, server, 20),
		udp(build(t, stun.MethodRefresh, stun.ClassSuccessResponse, 2, lifetime(0)), server, client, 30),
	)
	// ChannelData on the deleted allocation's 5-tuple, then a channel of the new one's: the
	// lookup finds the new allocation, not the deleted one it had cached.
	var inner transport.Message
	tr.ChannelData(udp([]byte{0x40, 0x00, 0x00, 0x02, 0x80, 0x60}, client, server, 35), &inner)
	feedSTUN(t, tr,
		udp(build(t, stun.MethodAllocate, stun.ClassRequest, 3, u32Attr(stun.AttrRequestedTransport, 17<<24)), client, server, 40),
		udp(build(t, stun.MethodAllocate, stun.ClassSuccessResponse, 3, relayedAddr(relayed2), lifetime(900)), server, client, 50),
		udp(build(t, stun.MethodChannelBind, stun.ClassRequest, 4, channelNumber(0x4001), peerAddr(bob)), client, server, 60),
		udp(build(t, stun.MethodChannelBind, stun.ClassSuccessResponse, 4), server, client, 70),
	)
	if !tr.ChannelData(udp([]byte{0x40, 0x01, 0x00, 0x02, 0x80, 0x60}, client, server, 80), &inner) || inner.Peer != ap(bob) {
		t.Errorf("ChannelData on the new allocation's channel: peer %v, want %v", inner.Peer, bob)
	}
	got := tr.TURN().Allocations
	if len(got) != 2 || got[0].Relayed == nil || *got[0].Relayed != relayed || got[1].Relayed == nil || *got[1].Relayed != relayed2 ||
		got[0].LifetimeS == nil || *got[0].LifetimeS != 0 || got[1].LifetimeS == nil || *got[1].LifetimeS != 900 {
		t.Errorf("allocations %+v: want %s (deleted, lifetime 0) and %s (900 s)", got, relayed, relayed2)
	}
}

// TestTURNErrorsByTransaction: an Allocate sent twice (STUN over UDP retransmits) and
// answered 401 twice is one challenge; a second Allocate, a transaction of its own, is
// another. Before, the errors read 401 ×3.
func TestTURNErrorsByTransaction(t *testing.T) {
	tr := NewTracker()
	req := func(id uint32, at float64) *transport.Message {
		return udp(build(t, stun.MethodAllocate, stun.ClassRequest, id, u32Attr(stun.AttrRequestedTransport, 17<<24)), client, server, at)
	}
	refusal := func(id uint32, at float64) *transport.Message {
		return udp(build(t, stun.MethodAllocate, stun.ClassErrorResponse, id, stun.CodeUnauthorized), server, client, at)
	}
	feedSTUN(t, tr, req(1, 0), req(1, 500), refusal(1, 510), refusal(1, 520), req(2, 1000), refusal(2, 1010))
	if d := cmp.Diff([]report.TURNError{{Code: 401, Count: 2, Clients: []string{client}}}, tr.TURN().Errors); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

// TestTURNRefusedPermissions: a CreatePermission naming six peers, refused (403), installs
// none of them, and one naming six, granted, all six; a later one naming an address already
// permitted adds nothing. Before, a refusal took back only the first four it named:
// permissions 2 where 0.
func TestTURNRefusedPermissions(t *testing.T) {
	tr := NewTracker()
	peers := func(first int) []stun.Setter {
		var ss []stun.Setter
		for i := range 6 {
			ss = append(ss, peerAddr(netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, 100, byte(first + i)}), 5000).String()))
		}
		return ss
	}
	feedSTUN(t, tr,
		udp(build(t, stun.MethodAllocate, stun.ClassRequest, 1, u32Attr(stun.AttrRequestedTransport, 17<<24)), client, server, 0),
		udp(build(t, stun.MethodAllocate, stun.ClassSuccessResponse, 1, relayedAddr(relayed), lifetime(600)), server, client, 10),
		udp(build(t, stun.MethodCreatePermission, stun.ClassRequest, 2, peers(20)...), client, server, 20),
		udp(build(t, stun.MethodCreatePermission, stun.ClassErrorResponse, 2, stun.CodeForbidden), server, client, 30),
	)
	if got := tr.TURN().Allocations[0].Permissions; got != 0 {
		t.Errorf("after the refusal: %d permissions, want 0", got)
	}
	feedSTUN(t, tr,
		udp(build(t, stun.MethodCreatePermission, stun.ClassRequest, 3, peers(40)...), client, server, 40),
		udp(build(t, stun.MethodCreatePermission, stun.ClassSuccessResponse, 3), server, client, 50),
		udp(build(t, stun.MethodCreatePermission, stun.ClassRequest, 4, peers(45)...), client, server, 60),
		udp(build(t, stun.MethodCreatePermission, stun.ClassErrorResponse, 4, stun.CodeForbidden), server, client, 70),
	)
	// 198.51.100.45 was granted by the second request: the third's refusal leaves it.
	if got := tr.TURN().Allocations[0].Permissions; got != 6 {
		t.Errorf("after a grant of six and a refusal overlapping it by one: %d permissions, want 6", got)
	}
}

// A capture that starts mid-call misses the Allocate and the ChannelBind responses: the
// binding recorded at the request still gives ChannelData its peer.
func TestTURNProvisionalChannel(t *testing.T) {
	tr := NewTracker()
	feedSTUN(t, tr,
		tcp(build(t, stun.MethodChannelBind, stun.ClassRequest, 1, channelNumber(0x4001), peerAddr(bob)), client, server, 0),
		// A binding refused: undone.
		tcp(build(t, stun.MethodChannelBind, stun.ClassRequest, 2, channelNumber(0x4002), peerAddr(carol)), client, server, 1),
		tcp(build(t, stun.MethodChannelBind, stun.ClassErrorResponse, 2, stun.CodeBadRequest), server, client, 2),
	)
	var inner transport.Message
	// Over TCP ChannelData is padded to a multiple of 4 (RFC 8656, 12.5).
	m := tcp([]byte{0x40, 0x01, 0x00, 0x03, 0xAA, 0xBB, 0xCC, 0x00}, server, client, 10)
	if !tr.ChannelData(m, &inner) {
		t.Fatal("ChannelData not unwrapped")
	}
	if inner.Peer != ap(bob) || inner.Via != transport.ChannelData || !bytes.Equal(inner.Payload, []byte{0xAA, 0xBB, 0xCC}) {
		t.Errorf("inner = %+v, want payload aabbcc from bob", inner)
	}
	if inner.Wire.Framing != 5 {
		t.Errorf("framing = %d, want 4 header + 1 padding", inner.Wire.Framing)
	}
	wireAddsUp(t, "inner", &inner)

	// Channel 0x4002 was refused: no peer.
	if !tr.ChannelData(tcp([]byte{0x40, 0x02, 0x00, 0x00}, client, server, 11), &inner) || inner.Peer.IsValid() {
		t.Errorf("refused channel: peer %v, want none", inner.Peer)
	}
	if s := tr.Stats(); s.ChannelData != 2 || s.ChannelDataUnbound != 1 {
		t.Errorf("stats %+v, want 2 ChannelData, 1 unbound", s)
	}
	want := report.TURN{
		Allocations: []report.Allocation{{
			Server: server, Client: client, Transport: "tcp",
			// The binding to bob installs a permission for bob (RFC 8656 12); carol's,
			// refused, is undone with its channel.
			Permissions: 1,
			Channels:    []report.Channel{{Number: 0x4001, Peer: bob}},
		}},
		Errors: []report.TURNError{{Code: 400, Count: 1, Clients: []string{client}}},
	}
	if d := cmp.Diff(want, tr.TURN()); d != "" {
		t.Errorf("TURN() mismatch (-want +got):\n%s", d)
	}
	if a := tr.Allocations(); len(a) != 1 || a[0].Channels[0].Confirmed {
		t.Errorf("Allocations() = %+v, want one provisional channel", a)
	}
}

func TestChannelDataUnknownFlow(t *testing.T) {
	tr := NewTracker()
	var inner transport.Message
	m := udp([]byte{0x40, 0x00, 0x00, 0x01, 0xAA, 0, 0}, client, server, 0)
	if !tr.ChannelData(m, &inner) {
		t.Fatal("not unwrapped")
	}
	if inner.Peer.IsValid() || inner.Channel != 0x4000 || inner.Wire.Framing != 6 {
		t.Errorf("inner = %+v", inner)
	}
	wireAddsUp(t, "inner", &inner)
	if tr.ChannelData(udp([]byte{0x40, 0x00, 0x00, 0x09, 0xAA}, client, server, 0), &inner) {
		t.Error("length beyond the message unwrapped")
	}
	if len(tr.Allocations()) != 0 {
		t.Error("ChannelData created an allocation")
	}
}

func TestIndications(t *testing.T) {
	media := []byte{0x80, 0x60, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2, 0xAA, 0xBB, 0xCC} // RTP, 15 bytes
	tests := []struct {
		name     string
		m        *transport.Message
		wantPeer string
	}{
		{"send over udp", udp(build(t, stun.MethodSend, stun.ClassIndication, 1, peerAddr(bob), dataAttr(media)), client, server, 0), bob},
		{"data over udp", udp(build(t, stun.MethodData, stun.ClassIndication, 2, peerAddr(carol), dataAttr(media)), server, client, 1), carol},
		{"data over tcp", tcp(build(t, stun.MethodData, stun.ClassIndication, 3, peerAddr(bob), dataAttr(media), stun.Fingerprint), server, client, 2), bob},
		{"send without peer", udp(build(t, stun.MethodSend, stun.ClassIndication, 4, dataAttr(media)), client, server, 3), ""},
	}
	tr := NewTracker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.m.Wire.Framing = 2 // say, an unframer's share: kept
			tt.m.Wire.Total += 2
			var inner transport.Message
			if !tr.STUN(tt.m, &inner) {
				t.Fatal("not unwrapped")
			}
			if !bytes.Equal(inner.Payload, media) {
				t.Errorf("payload %x, want %x", inner.Payload, media)
			}
			var want netip.AddrPort
			if tt.wantPeer != "" {
				want = ap(tt.wantPeer)
			}
			if inner.Peer != want || inner.Via != transport.Indication || inner.Channel != 0 {
				t.Errorf("peer %v via %v channel %d, want %v via indication", inner.Peer, inner.Via, inner.Channel, want)
			}
			if want := 2 + int64(len(tt.m.Payload)-len(media)); inner.Wire.Framing != want {
				t.Errorf("framing %d, want %d", inner.Wire.Framing, want)
			}
			if inner.Wire.Total != tt.m.Wire.Total || inner.Wire.Headers != tt.m.Wire.Headers ||
				inner.Src != tt.m.Src || inner.FirstSeen != tt.m.FirstSeen {
				t.Errorf("inner %+v is not a copy of the outer message %+v", inner, *tt.m)
			}
			wireAddsUp(t, "outer", tt.m)
			wireAddsUp(t, "inner", &inner)
			if Classify(inner.Payload) != ClassRTP {
				t.Errorf("inner is %v", Classify(inner.Payload))
			}
		})
	}
	a := tr.Allocations()
	if len(a) != 2 || a[0].Proto != transport.UDP || a[0].Client != ap(client) || a[0].Indications != 3 ||
		!cmp.Equal(a[0].Peers, []netip.AddrPort{ap(bob), ap(carol)}, cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })) {
		t.Errorf("Allocations() = %+v, want a udp one with 3 indications, peers bob and carol, and a tcp one", a)
	}
	if s := tr.Stats(); s.Indications != 4 {
		t.Errorf("Indications = %d, want 4", s.Indications)
	}
	// An indication without DATA is not unwrapped.
	var inner transport.Message
	if tr.STUN(udp(build(t, stun.MethodSend, stun.ClassIndication, 5, peerAddr(bob)), client, server, 4), &inner) {
		t.Error("Send without DATA unwrapped")
	}
}

// TURN methods inside TURN are not allocations of the outer flow.
func TestTURNInsideTURN(t *testing.T) {
	tr := NewTracker()
	m := udp(build(t, stun.MethodAllocate, stun.ClassRequest, 1), client, server, 0)
	m.Via, m.Peer = transport.ChannelData, ap(bob)
	feedSTUN(t, tr, m)
	if len(tr.Allocations()) != 0 || tr.IsTURNServer(ap(server)) {
		t.Error("an Allocate inside TURN made an allocation")
	}
}

func TestSnapped(t *testing.T) {
	tr := NewTracker()
	var inner transport.Message

	// A 104-byte ChannelData message (100 bytes of data) cut at 20 bytes.
	cd := udp(append([]byte{0x40, 0x00, 0x00, 0x64}, make([]byte, 16)...), server, client, 0)
	cd.Snapped = true
	cd.Wire.Total = udpHeaders + 104
	if !tr.ChannelData(cd, &inner) {
		t.Fatal("snapped ChannelData not unwrapped")
	}
	if len(inner.Payload) != 16 || inner.Len() != 100 || !inner.Snapped {
		t.Errorf("inner payload %d bytes, Len %d; want 16 captured of 100", len(inner.Payload), inner.Len())
	}

	// A Data indication whose DATA was cut: the header and peer still read.
	media := make([]byte, 200)
	full := build(t, stun.MethodData, stun.ClassIndication, 1, peerAddr(bob), dataAttr(media))
	ind := udp(full[:64], server, client, 1)
	ind.Snapped = true
	ind.Wire.Total = int64(udpHeaders + len(full))
	if !tr.STUN(ind, &inner) {
		t.Fatal("snapped indication not unwrapped")
	}
	if inner.Peer != ap(bob) || inner.Len() != 200 || len(inner.Payload) != 64-20-12-4 {
		t.Errorf("inner peer %v, %d bytes captured, Len %d; want bob, 28 of 200", inner.Peer, len(inner.Payload), inner.Len())
	}
	if s := tr.Stats(); s.Truncated != 1 || s.Malformed != 0 {
		t.Errorf("stats %+v, want one truncated message", s)
	}
}

func TestAllocationBound(t *testing.T) {
	tr := NewTracker()
	for i := range maxAllocations + 1 {
		src := netip.AddrPortFrom(ap(client).Addr(), uint16(10000+i))
		m := udp(build(t, stun.MethodAllocate, stun.ClassRequest, uint32(i)), src.String(), server, 0)
		feedSTUN(t, tr, m)
	}
	if n := len(tr.TURN().Allocations); n != maxAllocations {
		t.Errorf("%d allocations, want %d", n, maxAllocations)
	}
	if n := tr.Stats().Untracked.Allocations; n != 1 {
		t.Errorf("Untracked.Allocations = %d, want 1", n)
	}
}

func TestChannelDataAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not measured under -race")
	}
	tr := NewTracker()
	feedSTUN(t, tr, udp(build(t, stun.MethodChannelBind, stun.ClassRequest, 1, channelNumber(0x4000), peerAddr(bob)), client, server, 0))
	out := udp([]byte{0x40, 0x00, 0x00, 0x04, 0x80, 0x60, 0x00, 0x01}, client, server, 1)
	in := udp([]byte{0x40, 0x00, 0x00, 0x04, 0x80, 0x60, 0x00, 0x01}, server, client, 1)
	other := udp([]byte{0x40, 0x00, 0x00, 0x04, 0x80, 0x60, 0x00, 0x01}, carol, server, 1)
	var inner transport.Message
	if n := testing.AllocsPerRun(100, func() {
		tr.ChannelData(out, &inner)
		tr.ChannelData(in, &inner)
		tr.ChannelData(other, &inner)
	}); n != 0 {
		t.Errorf("ChannelData allocates %v times per run", n)
	}
}

func BenchmarkChannelData(b *testing.B) {
	tr := NewTracker()
	var inner transport.Message
	tr.STUN(udp(build(b, stun.MethodChannelBind, stun.ClassRequest, 1, channelNumber(0x4000), peerAddr(bob)), client, server, 0), &inner)
	m := udp(append([]byte{0x40, 0x00, 0x04, 0xB0}, make([]byte, 1200)...), server, client, 1)
	b.ReportAllocs()
	for b.Loop() {
		tr.ChannelData(m, &inner)
	}
}
