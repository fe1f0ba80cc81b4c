package demux

import (
	"net/netip"
	"slices"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// allocation is one TURN allocation, keyed by the flow that carried its Allocate.
type allocation struct {
	key                 flowKey
	firstSeen, lastSeen int64
	relayed             netip.AddrPort
	lifetime            uint32 // seconds, from the last success response; 0 unknown
	deallocated         bool
	ended               bool  // its TCP connection ended (a FIN or a RST: RFC 6062 5.1)
	deletedAt           int64 // when it was deleted (deallocated, ended): the earlier
	closed              bool  // another TCP connection reused its addresses (ConnectionClosed)

	perms    []permission
	channels []binding
	peers    []peer

	channelData, indications int64
}

// permission is installed per peer IP address, the port is ignored (RFC 8656, 9).
type permission struct {
	peer      netip.AddrPort // as the first CreatePermission gave it
	confirmed bool
	// by is the transaction of the request (CreatePermission or ChannelBind) that installed
	// it provisionally: a CreatePermission's error response takes back every permission it
	// installed, however many peers it named.
	by [stun.TransactionIDSize]byte
}

// peer is a peer address an allocation's messages named. One that only a CreatePermission
// named may carry any port (RFC 8656, 9: a permission is for the IP address; clients send
// 0): it stands for the IP until a channel binding or an indication gives the port used.
type peer struct {
	addr     netip.AddrPort
	permOnly bool
}

type binding struct {
	number    uint16
	peer      netip.AddrPort
	confirmed bool // a success response was seen, not only the request
}

func (a *allocation) seen(at int64) {
	if at > a.lastSeen {
		a.lastSeen = at
	}
}

// channel returns the index of a binding of channel number ch, or -1. A linear scan: an
// allocation binds a handful of channels (at most maxChannels).
func (a *allocation) channel(ch uint16) int {
	for i := range a.channels {
		if a.channels[i].number == ch {
			return i
		}
	}
	return -1
}

func (a *allocation) permission(peer netip.Addr) int {
	for i := range a.perms {
		if a.perms[i].peer.Addr() == peer {
			return i
		}
	}
	return -1
}

// ConnectionClosed says that the TCP connection between client and server ended (another
// reused its addresses and ports): its allocation ended with it, and an Allocate on the new
// connection starts another.
func (t *Tracker) ConnectionClosed(client, server netip.AddrPort) {
	for _, k := range [2]flowKey{{client, server, transport.TCP}, {server, client, transport.TCP}} {
		if a, ok := t.allocs[k]; ok {
			a.closed = true
		}
	}
}

// deallocate marks allocation a deleted at capture time at (a Refresh with LIFETIME 0), or,
// unless yes, not deleted, and counts the changes (Deletions).
func (t *Tracker) deallocate(a *allocation, yes bool, at int64) {
	if a.deallocated == yes {
		return
	}
	t.deletions++
	a.deallocated = yes
	switch {
	case a.ended: // its connection's end dates it
	case yes:
		a.deletedAt = at
	default:
		a.deletedAt = 0
	}
}

// ConnectionEnded says that the TCP connection between client and server ended at capture
// time at (its first FIN or RST, either way): the allocation it carried ended with it (RFC
// 6062, 5.1: the server deletes it when the control connection closes).
func (t *Tracker) ConnectionEnded(client, server netip.AddrPort, at int64) {
	for _, k := range [2]flowKey{{client, server, transport.TCP}, {server, client, transport.TCP}} {
		if a, ok := t.allocs[k]; ok && !a.ended {
			if !a.deallocated {
				a.deletedAt = at
			}
			a.ended = true
			t.deletions++
		}
	}
}

// alloc returns the allocation of client and server, creating it when create is set.
// An allocation is also created for the TURN messages of a flow whose Allocate the capture
// missed: captures often start mid-call.
func (t *Tracker) alloc(client, server netip.AddrPort, proto transport.Proto, at int64, create bool) *allocation {
	k := flowKey{client: client, server: server, proto: proto}
	if a, ok := t.allocs[k]; ok {
		return a
	}
	if !create {
		return nil
	}
	if len(t.allocs) >= maxAllocations {
		t.stats.Untracked.Allocations++
		return nil
	}
	a := &allocation{key: k, firstSeen: at, lastSeen: at}
	t.allocs[k] = a
	t.order = append(t.order, a)
	if _, ok := t.servers[server]; !ok {
		if len(t.servers) >= maxServers {
			t.stats.Untracked.Servers++
		} else {
			t.servers[server] = struct{}{}
		}
	}
	return a
}

// addPeer adds p to the allocation's peers; permOnly says that a CreatePermission named it.
func (t *Tracker) addPeer(a *allocation, p netip.AddrPort, permOnly bool) {
	if i := slices.IndexFunc(a.peers, func(q peer) bool { return q.addr == p }); i >= 0 {
		a.peers[i].permOnly = a.peers[i].permOnly && permOnly
		return
	}
	if len(a.peers) >= maxPeers {
		t.stats.Untracked.Peers++
		return
	}
	a.peers = append(a.peers, peer{addr: p, permOnly: permOnly})
}

// peerAddrs returns the allocation's peer addresses in the order first seen, less those
// only a permission named whose IP address another peer has with the port used.
func (a *allocation) peerAddrs() []netip.AddrPort {
	out := make([]netip.AddrPort, 0, len(a.peers))
	for _, p := range a.peers {
		if p.permOnly && slices.ContainsFunc(a.peers, func(q peer) bool { return !q.permOnly && q.addr.Addr() == p.addr.Addr() }) {
			continue
		}
		out = append(out, p.addr)
	}
	return out
}

// addPermission installs a permission for p's address; it reports whether it was new.
func (t *Tracker) addPermission(a *allocation, p netip.AddrPort, confirmed bool) bool {
	if i := a.permission(p.Addr()); i >= 0 {
		a.perms[i].confirmed = a.perms[i].confirmed || confirmed
		return false
	}
	if len(a.perms) >= maxPermissions {
		t.stats.Untracked.Permissions++
		return false
	}
	a.perms = append(a.perms, permission{peer: p, confirmed: confirmed})
	return true
}

// bind records channel ch bound to peer; it reports whether the binding is new.
func (t *Tracker) bind(a *allocation, ch uint16, peer netip.AddrPort, confirmed bool) bool {
	if i := a.channel(ch); i >= 0 {
		b := &a.channels[i]
		if b.peer != peer {
			b.peer, b.confirmed = peer, confirmed
		} else {
			b.confirmed = b.confirmed || confirmed
		}
		return false
	}
	if len(a.channels) >= maxChannels {
		t.stats.Untracked.Channels++
		return false
	}
	a.channels = append(a.channels, binding{number: ch, peer: peer, confirmed: confirmed})
	return true
}

func isTURNMethod(m stun.Method) bool {
	switch m {
	case stun.MethodAllocate, stun.MethodRefresh, stun.MethodCreatePermission, stun.MethodChannelBind:
		return true
	}
	return false
}

// turnRequest applies a TURN request sent by the client m.Src to the server m.Dst.
//
// Permissions and channel bindings are recorded at the request, provisionally, and
// confirmed by the success response: captures often miss responses (a one-sided capture, a
// loss, a server-side capture filter), and a ChannelData message on a channel whose binding
// was never recorded would lose its peer. An error response undoes what its request set
// provisionally.
func (t *Tracker) turnRequest(m *transport.Message, e *txn) {
	if !isTURNMethod(e.method) {
		return
	}
	a := t.alloc(m.Src, m.Dst, m.Proto, m.FirstSeen, true)
	if a == nil {
		return
	}
	a.seen(m.FirstSeen)
	switch e.method {
	case stun.MethodRefresh:
		// RFC 8656, 7: a Refresh with LIFETIME 0 deletes the allocation.
		if v, ok := getUint32(&t.msg, stun.AttrLifetime); ok && v == 0 {
			e.dealloc = true
			t.deallocate(a, true, m.Delivered)
		}
	case stun.MethodCreatePermission:
		for _, at := range t.msg.Attributes {
			if at.Type != stun.AttrXORPeerAddress {
				continue
			}
			p, ok := xorAddr(at.Value, &t.msg.TransactionID)
			if !ok {
				continue
			}
			t.addProvisional(a, p)
			t.addPeer(a, p, true)
			if int(e.nperms) < len(e.perms) {
				e.perms[e.nperms] = p
				e.nperms++
			}
		}
	case stun.MethodChannelBind:
		ch, ok := getChannel(&t.msg)
		p, ok2 := getXORAddr(&t.msg, stun.AttrXORPeerAddress)
		// RFC 5766 servers still grant 0x5000-0x7FFF; the response says whether this one did.
		if !ok || !ok2 || !wire.IsAnyChannel(ch) {
			return
		}
		e.channel, e.peer = ch, p
		e.addedChannel = t.bind(a, ch, p, false)
		t.addPeer(a, p, false)
		// A channel binding installs a permission for the peer too (RFC 8656 12).
		t.addProvisional(a, p)
	}
}

// turnResponse applies a TURN response from the server m.Src to the client m.Dst; matched
// says whether e is its request.
func (t *Tracker) turnResponse(m *transport.Message, success, matched bool, e *txn) {
	method := t.msg.Type.Method
	if !isTURNMethod(method) {
		return
	}
	client, server := m.Dst, m.Src
	if matched {
		client, server = e.src, e.dst
	}
	a := t.alloc(client, server, m.Proto, m.FirstSeen, success)
	if a == nil {
		return
	}
	a.seen(m.FirstSeen)
	switch method {
	case stun.MethodAllocate:
		if !success {
			return // a 401 challenge, or a refusal: counted in the errors
		}
		if (a.deallocated || a.closed) && a.relayed.IsValid() && len(t.order) < maxAllocations {
			// A new allocation on the 5-tuple of one deleted (RFC 8656 7: LIFETIME 0), or
			// of a TCP connection that ended (RFC 6062 5.1: closing the control connection
			// deletes its allocation): listed apart, with its own relayed address,
			// permissions and channels. Before, the two were one, under the second's address.
			a = &allocation{key: a.key, firstSeen: m.FirstSeen, lastSeen: m.FirstSeen}
			t.allocs[a.key] = a
			t.order = append(t.order, a)
			clear(t.last[:]) // lookup's cache holds the deleted one
		}
		if r, ok := getXORAddr(&t.msg, stun.AttrXORRelayedAddress); ok {
			if a.relayed != r {
				t.relayedChanges++
			}
			a.relayed = r
		}
		if v, ok := getUint32(&t.msg, stun.AttrLifetime); ok && v > 0 {
			a.lifetime = v
		}
		t.deallocate(a, false, 0)
	case stun.MethodRefresh:
		if !success {
			if matched && e.dealloc {
				t.deallocate(a, false, 0) // the server refused to delete it
			}
			return
		}
		v, ok := getUint32(&t.msg, stun.AttrLifetime)
		switch {
		case ok && v == 0, !ok && matched && e.dealloc:
			t.deallocate(a, true, m.FirstSeen) // its request, when seen, dated it already
		case ok:
			a.lifetime = v
			t.deallocate(a, false, 0)
		}
	case stun.MethodCreatePermission:
		if !matched {
			return
		}
		// The permissions the request installed provisionally: confirmed or taken back.
		if !success {
			t.takeBack(a)
			return
		}
		for i := range a.perms {
			if a.perms[i].by == t.msg.TransactionID {
				a.perms[i].confirmed = true
			}
		}
		for _, p := range e.perms[:e.nperms] { // and those it found installed already
			t.addPermission(a, p, true)
		}
	case stun.MethodChannelBind:
		if !matched || e.channel == 0 {
			return
		}
		if success {
			t.bind(a, e.channel, e.peer, true)
			t.addPermission(a, e.peer, true)
			return
		}
		if e.addedChannel {
			if j := a.channel(e.channel); j >= 0 && !a.channels[j].confirmed && a.channels[j].peer == e.peer {
				a.channels = slices.Delete(a.channels, j, j+1)
			}
		}
		t.takeBack(a)
	}
}

// addProvisional installs a permission for p's address at a request, tagged with the
// request's transaction (permission.by) when it is new, for its error response to take back.
func (t *Tracker) addProvisional(a *allocation, p netip.AddrPort) {
	if t.addPermission(a, p, false) {
		a.perms[len(a.perms)-1].by = t.msg.TransactionID
	}
}

// takeBack removes the permissions that the request answered by the current error response
// installed provisionally (addProvisional), unless a success confirmed them since, and their
// peers: a peer the server refused (403) is none the media went to, unless a permission or
// a channel still names it.
func (t *Tracker) takeBack(a *allocation) {
	tid := t.msg.TransactionID
	var refused []netip.AddrPort
	a.perms = slices.DeleteFunc(a.perms, func(p permission) bool {
		if !p.confirmed && p.by == tid {
			refused = append(refused, p.peer)
			return true
		}
		return false
	})
	for _, p := range refused {
		if a.permission(p.Addr()) < 0 && !slices.ContainsFunc(a.channels, func(c binding) bool { return c.peer == p }) {
			a.peers = slices.DeleteFunc(a.peers, func(q peer) bool { return q.addr == p })
		}
	}
}

// LearnRelay records what the traffic showed of an allocation whose Allocate and
// ChannelBind the capture missed (it began mid-call): its relayed address, and channel ch
// bound to peer (analysis/relaylearn.go). What the capture's own messages said stands: a
// relayed address already known is kept, and a channel already bound stays bound.
func (t *Tracker) LearnRelay(client, server netip.AddrPort, proto transport.Proto, relayed netip.AddrPort, ch uint16, peer netip.AddrPort, at int64) {
	a := t.alloc(client, server, proto, at, true)
	if a == nil {
		return
	}
	a.seen(at)
	if !a.relayed.IsValid() {
		a.relayed = relayed
		t.relayedChanges++
	}
	if ch >= 0x4000 && a.channel(ch) < 0 && t.bind(a, ch, peer, false) { // none for an indication (0)
		t.addPeer(a, peer, false)
	}
}
