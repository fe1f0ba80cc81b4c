package demux

import (
	"cmp"
	"net/netip"
	"slices"
	"time"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// What the tracker tells of TURN to the stages after it and to the report: which addresses
// are servers and relays, and the allocations with their channels and errors.

// IsTURNServer reports whether ap is the server end of an allocation seen so far: the
// destination of an Allocate (or of another TURN request, Send indication, or the source of a
// TURN response or Data indication, for an allocation whose Allocate the capture missed).
func (t *Tracker) IsTURNServer(ap netip.AddrPort) bool {
	_, ok := t.servers[ap]
	return ok
}

// RelayedChanges counts the times an Allocate success response (or the traffic, LearnRelay)
// gave an allocation a relayed address it did not have. Allocations lists a Relayed it did not list before only after
// this count changed: a caller that keeps what it read of them knows when to read them again.
func (t *Tracker) RelayedChanges() int64 { return t.relayedChanges }

// Deletions counts the times an allocation was marked deleted (a Refresh with LIFETIME 0,
// its TCP connection's end), or no longer (the server refused): a caller that keeps what
// EachDeletion told knows when to ask again.
func (t *Tracker) Deletions() int64 { return t.deletions }

// EachDeletion calls fn with the relayed address and the client of every allocation that
// has a relayed address, in the order the Tracker met them, when the allocation was first
// seen, whether it was deleted, and when (the capture time its Refresh with LIFETIME 0
// reached the server, or its TCP connection ended).
func (t *Tracker) EachDeletion(fn func(relayed, client netip.AddrPort, first int64, deleted bool, at int64)) {
	for _, a := range t.order {
		if a.relayed.IsValid() {
			fn(a.relayed, a.key.client, a.firstSeen, a.deallocated || a.ended, a.deletedAt)
		}
	}
}

// ChannelBinding is one channel of an allocation.
type ChannelBinding struct {
	Number    uint16
	Peer      netip.AddrPort
	Confirmed bool // the ChannelBind success response was seen, not only the request
}

// AllocationInfo is what the Tracker knows of one TURN allocation, for the caller that
// builds legs. It is a copy: the Tracker keeps updating its own state.
type AllocationInfo struct {
	Client, Server netip.AddrPort // the flow that carried the Allocate
	Proto          transport.Proto
	Relayed        netip.AddrPort // zero when no Allocate success response was seen
	Lifetime       time.Duration  // granted by the last success response; 0 when none said
	Deallocated    bool           // a Refresh with LIFETIME 0 was the last word
	FirstSeen      int64          // capture time of the first TURN message of the allocation
	LastSeen       int64

	// Peers are the peer addresses of permissions, channel bindings and indications,
	// distinct, in the order first seen; a permission's is left out when a binding or an
	// indication names its IP address with another port (the port a permission carries
	// means nothing).
	Peers []netip.AddrPort
	// Channels are sorted by number.
	Channels []ChannelBinding
	// Permissions counts the peer IP addresses with a permission (RFC 8656, 9).
	Permissions int

	ChannelDataMessages int64 // ChannelData messages seen on the flow
	Indications         int64 // Send and Data indications seen on the flow
}

// EachRelayed calls fn with the relayed address and the client of every allocation that has
// one, in the order the Tracker met the allocations: for a caller that needs no more, since
// Allocations copies and sorts every allocation's state, and a TURN server's capture learns
// its hundreds of relayed addresses one at a time.
func (t *Tracker) EachRelayed(fn func(relayed, client netip.AddrPort)) {
	for _, a := range t.order {
		if a.relayed.IsValid() {
			fn(a.relayed, a.key.client)
		}
	}
}

// Allocations returns every allocation, in the order first seen.
func (t *Tracker) Allocations() []AllocationInfo {
	out := make([]AllocationInfo, 0, len(t.order))
	for _, a := range t.order {
		info := AllocationInfo{
			Client:              a.key.client,
			Server:              a.key.server,
			Proto:               a.key.proto,
			Relayed:             a.relayed,
			Lifetime:            time.Duration(a.lifetime) * time.Second,
			Deallocated:         a.deallocated,
			FirstSeen:           a.firstSeen,
			LastSeen:            a.lastSeen,
			Peers:               a.peerAddrs(),
			Channels:            make([]ChannelBinding, 0, len(a.channels)),
			Permissions:         len(a.perms),
			ChannelDataMessages: a.channelData,
			Indications:         a.indications,
		}
		for _, b := range a.channels {
			info.Channels = append(info.Channels, ChannelBinding{Number: b.number, Peer: b.peer, Confirmed: b.confirmed})
		}
		slices.SortFunc(info.Channels, func(x, y ChannelBinding) int { return cmp.Compare(x.Number, y.Number) })
		out = append(out, info)
	}
	// Messages may come in out of capture order (TCP delivery against UDP): order by time.
	slices.SortStableFunc(out, func(x, y AllocationInfo) int { return cmp.Compare(x.FirstSeen, y.FirstSeen) })
	return out
}

// TURN returns the TURN figures of the capture: allocations in the order first seen (with
// their channels by number), error codes by code. Slices are never nil.
//
// Every allocation attempted is listed, also one that was only challenged or refused
// (Relayed is then null): that a client tried TURN and failed is part of the diagnosis.
func (t *Tracker) TURN() report.TURN {
	r := report.TURN{
		Allocations: make([]report.Allocation, 0, len(t.order)),
		Errors:      make([]report.TURNError, 0, len(t.errors)),
	}
	for _, a := range t.Allocations() {
		ra := report.Allocation{
			Server:      a.Server.String(),
			Client:      a.Client.String(),
			Transport:   a.Proto.String(),
			Permissions: a.Permissions,
			Channels:    make([]report.Channel, 0, len(a.Channels)),
		}
		if a.Relayed.IsValid() {
			s := a.Relayed.String()
			ra.Relayed = &s
		}
		switch {
		case a.Deallocated:
			// The last word was a Refresh with LIFETIME 0: the allocation was deleted.
			ra.LifetimeS = new(0.0)
		case a.Lifetime > 0:
			ra.LifetimeS = new(a.Lifetime.Seconds())
		}
		for _, c := range a.Channels {
			ra.Channels = append(ra.Channels, report.Channel{Number: int(c.Number), Peer: c.Peer.String()})
		}
		r.Allocations = append(r.Allocations, ra)
	}
	for code, n := range t.errors {
		e := report.TURNError{Code: code, Count: n, Clients: []string{}}
		for _, c := range t.errClients[code] {
			e.Clients = append(e.Clients, c.String())
		}
		slices.Sort(e.Clients)
		r.Errors = append(r.Errors, e)
	}
	slices.SortFunc(r.Errors, func(x, y report.TURNError) int { return cmp.Compare(x.Code, y.Code) })
	return r
}
