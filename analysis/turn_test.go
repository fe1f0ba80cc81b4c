package analysis

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/pion/rtcp"
	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

var (
	turnServer = netip.MustParseAddrPort("203.0.113.7:3478")
	relayed    = netip.MustParseAddrPort("203.0.113.7:50012")
)

// stunFrame builds an Ethernet/IPv4/UDP frame carrying a STUN message.
func stunFrame(t testing.TB, src, dst netip.AddrPort, tid [stun.TransactionIDSize]byte, typ stun.MessageType, setters ...stun.Setter) []byte {
	t.Helper()
	return pcapgen.EtherUDP(src, dst, stunRaw(t, tid, typ, setters...))
}

// stunRaw is a STUN message of transaction tid.
func stunRaw(t testing.TB, tid [stun.TransactionIDSize]byte, typ stun.MessageType, setters ...stun.Setter) []byte {
	t.Helper()
	m := stun.New()
	if err := m.Build(append([]stun.Setter{stun.NewTransactionIDSetter(tid), typ}, setters...)...); err != nil {
		t.Fatal(err)
	}
	return m.Raw
}

// stunMsg is a STUN message whose transaction ID is id and zeros.
func stunMsg(t testing.TB, id byte, typ stun.MessageType, setters ...stun.Setter) []byte {
	t.Helper()
	var tid [stun.TransactionIDSize]byte
	tid[0] = id
	return stunRaw(t, tid, typ, setters...)
}

func xorAddr(attr stun.AttrType, ap netip.AddrPort) stun.Setter {
	return setterFunc(func(m *stun.Message) error {
		return stun.XORMappedAddress{IP: net.IP(ap.Addr().AsSlice()), Port: int(ap.Port())}.AddToAs(m, attr)
	})
}

type setterFunc func(m *stun.Message) error

func (f setterFunc) AddTo(m *stun.Message) error { return f(m) }

func raw(attr stun.AttrType, v ...byte) stun.Setter {
	return setterFunc(func(m *stun.Message) error { m.Add(attr, v); return nil })
}

// turnCall is an Allocate (with the 401 challenge), a ChannelBind to bob on 0x4000, and then
// alice's audio to bob in ChannelData through the server.
func turnCall(t *testing.T) []callgen.Packet { return turnCallOn(t, channel) }

// turnCallOn is turnCall with the channel number ch.
func turnCallOn(t testing.TB, ch uint16) []callgen.Packet {
	ms := func(n int) int64 { return callgen.Epoch + int64(n)*int64(time.Millisecond) }
	tid := func(b byte) (id [stun.TransactionIDSize]byte) { id[0] = b; return id }
	allocReq := stun.NewType(stun.MethodAllocate, stun.ClassRequest)
	allocErr := stun.NewType(stun.MethodAllocate, stun.ClassErrorResponse)
	allocOK := stun.NewType(stun.MethodAllocate, stun.ClassSuccessResponse)
	bindReq := stun.NewType(stun.MethodChannelBind, stun.ClassRequest)
	bindOK := stun.NewType(stun.MethodChannelBind, stun.ClassSuccessResponse)
	pkts := []callgen.Packet{
		{T: ms(0), Frame: stunFrame(t, alice, turnServer, tid(1), allocReq)},
		{T: ms(40), Frame: stunFrame(t, turnServer, alice, tid(1), allocErr, stun.CodeUnauthorized)},
		{T: ms(50), Frame: stunFrame(t, alice, turnServer, tid(2), allocReq)},
		{T: ms(90), Frame: stunFrame(t, turnServer, alice, tid(2), allocOK,
			xorAddr(stun.AttrXORRelayedAddress, relayed), raw(stun.AttrLifetime, 0, 0, 2, 0x58))},
		{T: ms(100), Frame: stunFrame(t, alice, turnServer, tid(3), bindReq,
			raw(stun.AttrChannelNumber, byte(ch>>8), byte(ch), 0, 0), xorAddr(stun.AttrXORPeerAddress, bob))},
		{T: ms(140), Frame: stunFrame(t, turnServer, alice, tid(3), bindOK)},
	}
	s := audio()
	s.Dst = turnServer
	s.Channel = ch
	s.Start = 200 * time.Millisecond
	return append(pkts, s.Packets()...)
}

func TestTURNOverUDPChannelData(t *testing.T) {
	c := analyze(t, pcapOf(t, turnCall(t)), Options{})
	if len(c.Legs) != 1 {
		t.Fatalf("legs = %+v, want 1", c.Legs)
	}
	l := c.Legs[0]
	if l.Transport != "turn-udp" || l.Client != alice.String() || l.Server != turnServer.String() ||
		l.Relayed == nil || *l.Relayed != relayed.String() || len(l.Peers) != 1 || l.Peers[0] != bob.String() {
		t.Errorf("leg = %+v, want turn-udp %v -> %v relayed %v peer %v", l, alice, turnServer, relayed, bob)
	}
	st := onlyStream(t, c)
	if st.Src != alice.String() || st.Dst != bob.String() || st.Packets != 500 || deref(st.Lost) != 0 {
		t.Errorf("stream %s -> %s packets %d lost %d, want %v -> %v 500 0", st.Src, st.Dst, st.Packets, deref(st.Lost), alice, bob)
	}
	d := c.Directions[0]
	// Each RTP packet (172 bytes, a multiple of 4: no padding) travels in 4 bytes of
	// ChannelData framing; the STUN exchange on the leg counts apart.
	if d.OverheadBytes.Framing != 500*4 || d.OverheadBytes.LinkIPTransport != 500*42 {
		t.Errorf("framing %d, headers %d; want %d and %d", d.OverheadBytes.Framing, d.OverheadBytes.LinkIPTransport, 500*4, 500*42)
	}
	if d.Transport != "turn-udp" {
		t.Errorf("direction transport = %q, want turn-udp", d.Transport)
	}
	if len(c.TURN.Allocations) != 1 {
		t.Fatalf("allocations = %+v", c.TURN.Allocations)
	}
	a := c.TURN.Allocations[0]
	if a.Relayed == nil || *a.Relayed != relayed.String() || a.LifetimeS == nil || *a.LifetimeS != 600 ||
		len(a.Channels) != 1 || a.Channels[0].Number != 0x4000 || a.Channels[0].Peer != bob.String() {
		t.Errorf("allocation = %+v", a)
	}
	if len(c.TURN.Errors) != 1 || c.TURN.Errors[0].Code != 401 || c.TURN.Errors[0].Count != 1 {
		t.Errorf("turn errors = %+v, want one 401", c.TURN.Errors)
	}
	// The leg's STUN is the direction's, both ways (DESIGN: "RTCP and STUN of that leg"): the
	// client's requests, and the server's answers, on the side that sends no media. Before,
	// the answers were counted in no direction (206 bytes of 432).
	var stunBytes int64
	for _, p := range turnCall(t)[:6] {
		stunBytes += int64(len(p.Frame))
	}
	if d.OverheadBytes.STUN != stunBytes {
		t.Errorf("STUN bytes = %d, want %d, both ways", d.OverheadBytes.STUN, stunBytes)
	}
}

func TestICERTT(t *testing.T) {
	ms := func(n int) int64 { return callgen.Epoch + int64(n)*int64(time.Millisecond) }
	req := stun.NewType(stun.MethodBinding, stun.ClassRequest)
	ok := stun.NewType(stun.MethodBinding, stun.ClassSuccessResponse)
	var pkts []callgen.Packet
	for i, rtt := range []int{10, 20, 30} {
		var id [stun.TransactionIDSize]byte
		id[0] = byte(i + 1)
		at := i * 1000
		pkts = append(pkts,
			callgen.Packet{T: ms(at), Frame: stunFrame(t, alice, bob, id, req, stun.NewUsername("bob1:alice1"))},
			callgen.Packet{T: ms(at + rtt), Frame: stunFrame(t, bob, alice, id, ok, xorAddr(stun.AttrXORMappedAddress, alice))})
	}
	c := analyze(t, pcapOf(t, pkts), Options{})
	ice := c.ICE
	// Alice's checks only, from her private address to bob's public one: the capture, which
	// sees her private address, is on her side, and they are her round trips.
	if ice.Checks != 3 || ice.Successes != 3 || ice.Failures != 0 || ice.RTTMS == nil ||
		ice.RTTMS.Min != 10 || ice.RTTMS.Max != 30 || ice.RTTMS.P50 != 20 || len(ice.RTTLegs) != 1 ||
		ice.RTTLegs[0].Leg != "host_peer" {
		t.Errorf("ice = %+v rtt %+v, want 3 checks, 3 successes, host_peer rtt 10/20/30", ice, ice.RTTMS)
	}
	if len(ice.Ufrags) != 1 || ice.Ufrags[0] != "bob1:alice1" {
		t.Errorf("ufrags = %v", ice.Ufrags)
	}
	if len(c.Streams) != 0 || len(c.Flows) != 1 || c.Flows[0].Content[0] != "stun" {
		t.Errorf("streams %d flows %+v", len(c.Streams), c.Flows)
	}
}

// TestTURNTwoPeers: alice's allocation carries her audio to bob on channel 0x4000 and to
// carol on 0x4001, and through each channel one ICE check and one RTCP sender report. Each
// direction's stun and rtcp are what TURN carried to its own peer; alice's STUN to the
// server itself (Allocate, ChannelBind) and the server's answers are the leg's, with the
// first direction. Before, the first direction took the flow side's all: carol's were 0
// and 0; and the answers, on the side that sends no media, were counted nowhere.
func TestTURNTwoPeers(t *testing.T) {
	carol := netip.MustParseAddrPort("198.51.100.20:52000")
	const toCarol = 0x4001
	tid := func(b byte) (id [stun.TransactionIDSize]byte) { id[0] = b; return id }
	ms := func(n int) int64 { return callgen.Epoch + int64(n)*int64(time.Millisecond) }
	call := turnCall(t)
	control := append(call[:6:6],
		callgen.Packet{T: ms(150), Frame: stunFrame(t, alice, turnServer, tid(4), stun.NewType(stun.MethodChannelBind, stun.ClassRequest),
			raw(stun.AttrChannelNumber, byte(toCarol>>8), byte(toCarol&0xff), 0, 0), xorAddr(stun.AttrXORPeerAddress, carol))},
		callgen.Packet{T: ms(190), Frame: stunFrame(t, turnServer, alice, tid(4), stun.NewType(stun.MethodChannelBind, stun.ClassSuccessResponse))})
	var want [2]struct{ stun, rtcp int64 } // to bob, to carol
	// alice's requests and the server's answers
	for _, p := range control {
		want[0].stun += int64(len(p.Frame))
	}
	pkts := append(control, call[6:]...)
	check := stun.MustBuild(stun.NewTransactionIDSetter(tid(10)), stun.BindingRequest).Raw
	sr, err := (&rtcp.SenderReport{SSRC: 0x1111}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for i, ch := range []uint16{channel, toCarol} {
		for j, b := range [][]byte{check, sr} {
			frame := pcapgen.EtherUDP(alice, turnServer, callgen.ChannelData(ch, b))
			pkts = append(pkts, callgen.Packet{T: ms(1005 + 10*i + j), Frame: frame})
			if j == 0 {
				want[i].stun += int64(len(frame))
			} else {
				want[i].rtcp += int64(len(frame))
			}
		}
	}
	s := audio()
	s.Dst, s.Channel, s.SSRC, s.Start = turnServer, toCarol, 0xCA201, 200*time.Millisecond
	pkts = append(pkts, s.Packets()...)

	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Directions) != 2 {
		t.Fatalf("%d directions, want 2", len(c.Directions))
	}
	var total int64
	for _, d := range c.Directions {
		i := 0
		if d.To == carol.String() {
			i = 1
		}
		if got := d.OverheadBytes; got.STUN != want[i].stun || got.RTCP != want[i].rtcp {
			t.Errorf("%s -> %s: stun %d rtcp %d, want %d and %d", d.From, d.To, got.STUN, got.RTCP, want[i].stun, want[i].rtcp)
		}
		total += d.WireBytes
	}
	if total != c.WireBytes {
		t.Errorf("directions' wire %d, want the capture's %d", total, c.WireBytes)
	}
}

// TestTURNLegAfterReallocation: turnCall, then, after its media, the allocation deleted
// (Refresh with LIFETIME 0) and another made on the same addresses (203.0.113.7:50099).
// The leg names the allocation the media went through; the TURN section has both. Before,
// the leg named the last one made (h139).
func TestTURNLegAfterReallocation(t *testing.T) {
	ms := func(n int) int64 { return callgen.Epoch + int64(n)*int64(time.Millisecond) }
	tid := func(b byte) (id [stun.TransactionIDSize]byte) { id[0] = b; return id }
	second := netip.MustParseAddrPort("203.0.113.7:50099")
	pkts := append(turnCall(t),
		callgen.Packet{T: ms(11000), Frame: stunFrame(t, alice, turnServer, tid(4), stun.NewType(stun.MethodRefresh, stun.ClassRequest),
			raw(stun.AttrLifetime, 0, 0, 0, 0))},
		callgen.Packet{T: ms(11040), Frame: stunFrame(t, turnServer, alice, tid(4), stun.NewType(stun.MethodRefresh, stun.ClassSuccessResponse),
			raw(stun.AttrLifetime, 0, 0, 0, 0))},
		callgen.Packet{T: ms(11100), Frame: stunFrame(t, alice, turnServer, tid(5), stun.NewType(stun.MethodAllocate, stun.ClassRequest))},
		callgen.Packet{T: ms(11140), Frame: stunFrame(t, turnServer, alice, tid(5), stun.NewType(stun.MethodAllocate, stun.ClassSuccessResponse),
			xorAddr(stun.AttrXORRelayedAddress, second), raw(stun.AttrLifetime, 0, 0, 2, 0x58))},
	)
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Legs) != 1 || c.Legs[0].Relayed == nil || *c.Legs[0].Relayed != relayed.String() || len(c.TURN.Allocations) != 2 {
		t.Errorf("legs %+v, %d allocations; want one leg relayed by %v, two allocations", c.Legs, len(c.TURN.Allocations), relayed)
	}
}
