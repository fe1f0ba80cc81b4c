package callgen

import (
	"cmp"
	"net/netip"
	"slices"
	"time"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// ICECall is two ICE agents, A and B, checking their candidate pair directly: each sends
// Checks Binding requests, A at Start + i*Interval and B half an Interval later, and
// answers the other's at once after its own answer time. A message takes OneWay between
// them either way. So a check's round trip, as its sender sees it, is 2*OneWay plus the
// answerer's time, and a check answered next to the capture takes the answerer's time.
type ICECall struct {
	A, B     netip.AddrPort
	OneWay   time.Duration
	Off      time.Duration    // how far the capture is from the agent it is taken at (0: next to it)
	Answer   [2]time.Duration // how long A (0) and B (1) take to answer a check
	Checks   int
	Interval time.Duration
	Start    time.Duration
}

// Packets returns the checks and their answers captured at agent at (0 A, 1 B), Off away
// from it towards the other.
func (c ICECall) Packets(at int) []Packet {
	ends := [2]netip.AddrPort{c.A, c.B}
	ufrags := [2]string{"aaaa", "bbbb"}
	var out []Packet
	for i := range c.Checks {
		for s := range 2 {
			sent := c.Start + time.Duration(i)*c.Interval + time.Duration(s)*c.Interval/2
			req := iceCheck(s, i, ufrags[1-s]+":"+ufrags[s])
			ok := iceAnswer(s, i, ends[s])
			if s == at {
				out = append(out, udpAt(sent+c.Off, ends[s], ends[1-s], req),
					udpAt(sent+2*c.OneWay+c.Answer[1-s]-c.Off, ends[1-s], ends[s], ok))
			} else {
				arrived := sent + c.OneWay
				out = append(out, udpAt(arrived-c.Off, ends[s], ends[1-s], req),
					udpAt(arrived+c.Answer[at]+c.Off, ends[1-s], ends[s], ok))
			}
		}
	}
	return out
}

// ICERelayCall is a TURN client checking a peer through its TURN/UDP allocation on a
// channel, and the peer checking back, as ICECall does (agent 0 is the client, agent 1 the
// peer). A message takes ClientOneWay between the client and the server, PeerOneWay between
// the relayed address and the peer, and the server relays each message Forward after it
// arrived. The allocation (Allocate and ChannelBind, answered by the server in Forward)
// comes first, from Start.
//
// So, seen at the server, the client's check reaches the peer leg Forward after it arrived,
// and its answer comes back on that leg 2*PeerOneWay + Answer[1] later; the peer's check
// reaches the client leg Forward after it arrived, its answer 2*ClientOneWay + Answer[0]
// later. At the client a check's round trip is all of it: 2*ClientOneWay + 2*Forward +
// 2*PeerOneWay + Answer[1].
//
// With ClientTCP the client leg is TURN over TCP (TCPCall, its round trip 2*ClientOneWay,
// opened by the client at Start and the allocation one round trip later; no loss): STUN as
// it is, the checks in ChannelData padded to 4 bytes. At the server the capture is then at
// the sender of the server-to-client direction, as at a real TURN server.
type ICERelayCall struct {
	Client, Server, Relayed, Peer netip.AddrPort
	Channel                       uint16
	ClientOneWay, PeerOneWay      time.Duration
	Forward                       time.Duration
	Answer                        [2]time.Duration
	Checks                        int
	Interval                      time.Duration
	Start                         time.Duration // the Allocate request, as the client sends it
	ClientTCP                     bool
}

// Vantages of an ICERelayCall capture.
const (
	AtClient = iota
	AtServer
)

// Packets returns the allocation, the checks and their answers captured at the client
// (AtClient) or at the TURN server (AtServer), where the check is seen on both legs.
func (c ICERelayCall) Packets(at int) []Packet {
	var out []Packet
	// Client-leg messages: toServer is when the client sent it, fromServer when the server
	// sent it; the capture sees them at its end of the leg.
	// Over TCP they are writes, direction 0 the capture's end's (TCPCall models the capture
	// next to its Client, which at the server accepted the connection).
	var writes []TCPWrite
	up := func(sent time.Duration, payload []byte) {
		switch {
		case c.ClientTCP:
			writes = append(writes, TCPWrite{T: sent, Dir: at, Data: payload})
		case at == AtServer:
			sent += c.ClientOneWay
			fallthrough
		default:
			out = append(out, udpAt(sent, c.Client, c.Server, payload))
		}
	}
	down := func(sent time.Duration, payload []byte) {
		switch {
		case c.ClientTCP:
			writes = append(writes, TCPWrite{T: sent, Dir: 1 - at, Data: payload})
		case at == AtClient:
			sent += c.ClientOneWay
			fallthrough
		default:
			out = append(out, udpAt(sent, c.Server, c.Client, payload))
		}
	}
	// Peer-leg messages, seen at the server only: toPeer when sent, fromPeer when arrived.
	toPeer := func(sent time.Duration, payload []byte) {
		if at == AtServer {
			out = append(out, udpAt(sent, c.Relayed, c.Peer, payload))
		}
	}
	fromPeer := func(arrived time.Duration, payload []byte) {
		if at == AtServer {
			out = append(out, udpAt(arrived, c.Peer, c.Relayed, payload))
		}
	}
	req, ok := stun.ClassRequest, stun.ClassSuccessResponse
	t := c.Start
	if c.ClientTCP {
		t += 2 * c.ClientOneWay // the handshake
	}
	srv := c.ClientOneWay + c.Forward // the server's answer leaves this long after the request
	up(t, stunMsg(0x71, stun.MethodAllocate, req))
	down(t+srv, stunMsg(0x71, stun.MethodAllocate, ok, xor(stun.AttrXORRelayedAddress, c.Relayed),
		rawAttr(stun.AttrLifetime, 0, 0, 2, 0x58)))
	t += 2 * srv
	up(t, stunMsg(0x72, stun.MethodChannelBind, req, rawAttr(stun.AttrChannelNumber, byte(c.Channel>>8), byte(c.Channel), 0, 0),
		xor(stun.AttrXORPeerAddress, c.Peer)))
	down(t+srv, stunMsg(0x72, stun.MethodChannelBind, ok))
	first := t + 2*srv + time.Millisecond

	wrap := func(b []byte) []byte { return ChannelData(c.Channel, b) }
	for i := range c.Checks {
		// The client's check: client -> server -> relayed -> peer, and its answer back.
		sent := first + time.Duration(i)*c.Interval
		check, answer := iceCheck(0, i, "pppp:cccc"), iceAnswer(0, i, c.Relayed)
		up(sent, wrap(check))
		atRelay := sent + c.ClientOneWay + c.Forward
		toPeer(atRelay, check)
		back := atRelay + 2*c.PeerOneWay + c.Answer[1]
		fromPeer(back, answer)
		down(back+c.Forward, wrap(answer))

		// The peer's check: peer -> relayed -> server -> client, and its answer back.
		sent += c.Interval / 2
		check, answer = iceCheck(1, i, "cccc:pppp"), iceAnswer(1, i, c.Peer)
		fromPeer(sent+c.PeerOneWay, check)
		onward := sent + c.PeerOneWay + c.Forward
		down(onward, wrap(check))
		answered := onward + c.ClientOneWay + c.Answer[0] // as the client sends it
		up(answered, wrap(answer))
		toPeer(answered+c.ClientOneWay+c.Forward, answer)
	}
	if c.ClientTCP {
		tc := TCPCall{Client: c.Client, Server: c.Server, Start: c.Start, RTT: 2 * c.ClientOneWay, ISN: [2]uint32{1000, 5000}}
		if at == AtServer {
			tc.Client, tc.Server, tc.Passive = c.Server, c.Client, true
		}
		slices.SortStableFunc(writes, func(a, b TCPWrite) int { return cmp.Compare(a.T, b.T) })
		out = append(out, tc.Packets(writes)...)
	}
	return out
}

// iceCheck is agent's i-th Binding request, with a transaction ID of its own.
func iceCheck(agent, i int, username string) []byte {
	return iceMsg(agent, i, stun.ClassRequest, stun.NewUsername(username))
}

// iceAnswer is the success response to agent's i-th check, mapping the checker's address.
func iceAnswer(agent, i int, mapped netip.AddrPort) []byte {
	return iceMsg(agent, i, stun.ClassSuccessResponse, xor(stun.AttrXORMappedAddress, mapped))
}

func iceMsg(agent, i int, class stun.MessageClass, setters ...stun.Setter) []byte {
	var tid [stun.TransactionIDSize]byte
	tid[0], tid[1], tid[2], tid[3] = 0x1c, byte(agent), byte(i>>8), byte(i)
	m := stun.New()
	all := append([]stun.Setter{stun.NewTransactionIDSetter(tid), stun.NewType(stun.MethodBinding, class)}, setters...)
	if err := m.Build(all...); err != nil {
		panic(err) // the setters are fixed: a failure is a programming error
	}
	return m.Raw
}

func udpAt(t time.Duration, src, dst netip.AddrPort, payload []byte) Packet {
	return Packet{T: Epoch + int64(t), Frame: pcapgen.EtherUDP(src, dst, payload)}
}
