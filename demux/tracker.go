package demux

import (
	"encoding/binary"
	"net/netip"
	"slices"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// Bounds on the state one capture can make a Tracker keep. What goes beyond them is counted
// in Stats.Untracked, not kept.
const (
	maxPending        = 4096 // STUN transactions awaiting a response; the oldest is dropped
	maxUfrags         = 64   // distinct USERNAME ufrag pairs
	maxNominated      = 64   // distinct nominated candidate pairs
	maxAllocations    = 256  // TURN allocations
	maxServers        = 256  // TURN server addresses
	maxChannels       = 64   // channel bindings per allocation
	maxPeers          = 64   // peer addresses per allocation
	maxPermissions    = 64   // permissions per allocation
	maxPermsInRequest = 4    // XOR-PEER-ADDRESS attributes of one CreatePermission remembered
)

// Stats counts what a Tracker saw and what it could not keep.
type Stats struct {
	Messages  int64 // STUN messages read (RFC 5389/8489, with the magic cookie)
	Truncated int64 // of which cut by the snap length: read from the captured attributes
	Classic   int64 // RFC 3489 messages (no magic cookie): counted, not interpreted
	Malformed int64 // payloads given to STUN that did not decode

	ChannelData        int64 // ChannelData messages unwrapped
	ChannelDataUnbound int64 // of which on a channel with no binding seen
	Indications        int64 // Send and Data indications unwrapped

	Untracked Untracked
}

// Untracked counts what went beyond a Tracker's bounds: the items refused (each time one is
// seen again it is counted again), except Pending.
type Untracked struct {
	Pending     int64 // unanswered transactions dropped to make room for new ones
	Ufrags      int64 // ufrag pairs beyond 64
	Nominated   int64 // nominated pairs beyond 64
	Allocations int64 // TURN messages of allocations beyond 256
	Servers     int64 // TURN servers beyond 256
	Channels    int64 // channel bindings beyond 64 on one allocation
	Peers       int64 // peers beyond 64 on one allocation
	Permissions int64 // permissions beyond 64 on one allocation
	ICEPairs    int64 // ICE round trips of candidate pairs beyond 64 (in RTTLegUnknown)
	ICESamples  int64 // round trips beyond 256 in one direction of a pair still undecided
}

// flowKey is a TURN allocation's transport flow with the two ends in a fixed order: the
// client, then the server.
type flowKey struct {
	client, server netip.AddrPort
	proto          transport.Proto
}

// txn is a STUN request awaiting its response.
type txn struct {
	id       [stun.TransactionIDSize]byte
	at       int64 // FirstSeen of the request
	method   stun.Method
	src, dst netip.AddrPort
	proto    transport.Proto
	via      transport.Via
	peer     netip.AddrPort // Message.Peer for Binding; XOR-PEER-ADDRESS for ChannelBind

	// A Binding transaction is kept, answered or not, until it leaves the ring or the
	// capture ends (finalize): see bindLeg.
	legs  [2]bindLeg
	nlegs uint8
	done  bool // counted (finalize)

	useCandidate bool
	ice          bool // a Binding request with an ICE USERNAME (RFC 8445 7.2.2): a connectivity check
	dealloc      bool // Refresh with LIFETIME 0

	channel      uint16
	addedChannel bool // the request created a provisional binding

	perms  [maxPermsInRequest]netip.AddrPort // the first peers a CreatePermission named, confirmed by its success
	nperms uint8
}

// Tracker follows the STUN, ICE and TURN exchanges of one capture: it counts ICE checks and
// their round trips, follows TURN allocations, permissions and channel bindings, and unwraps
// TURN ChannelData and Send/Data indications. Capture time comes in with each message; a
// Tracker never reads the clock. It is not safe for concurrent use.
type Tracker struct {
	msg stun.Message // reused for every message

	// ICE.
	checks, successes, failures int64
	// iceChecks and iceSuccesses are those of connectivity checks (txn.ice), for ice_failed:
	// a STUN server's answer to the address lookup is no check's success (h139).
	iceChecks, iceSuccesses int64
	ice                     iceRTT
	ufrags                  map[string]struct{}
	nominated               map[[2]netip.AddrPort]struct{}

	// Transactions: txns is a ring in arrival order, so that the oldest is dropped first;
	// pending maps an ID to its sequence number, txns[seq%maxPending] (a map of txn values
	// would allocate for every request: they are too large to be stored in place).
	pending   map[[stun.TransactionIDSize]byte]uint64
	txns      []txn
	next      uint64
	finalized uint64 // next when finalizeAll last ran

	// TURN.
	allocs  map[flowKey]*allocation
	order   []*allocation // by first seen
	servers map[netip.AddrPort]struct{}
	errors  map[int]int64
	// errClients are the clients each error code was sent to (report.MaxTURNErrorClients at most).
	errClients map[int][]netip.AddrPort
	// refused holds the transactions of the last error responses: a request sent again
	// (STUN over UDP retransmits) and answered again is one refusal, counted once.
	refused  [refusedRing][stun.TransactionIDSize]byte
	nrefused int
	last     [1 << lastBits]*allocation // allocations found last, by the hash of their ends

	relayedChanges int64 // RelayedChanges
	deletions      int64 // Deletions

	stats Stats
}

// NewTracker returns a Tracker with no state.
func NewTracker() *Tracker {
	return &Tracker{
		ufrags:     make(map[string]struct{}),
		nominated:  make(map[[2]netip.AddrPort]struct{}),
		pending:    make(map[[stun.TransactionIDSize]byte]uint64),
		allocs:     make(map[flowKey]*allocation),
		servers:    make(map[netip.AddrPort]struct{}),
		errors:     make(map[int]int64),
		errClients: make(map[int][]netip.AddrPort),
	}
}

// Stats returns what the Tracker counted.
func (t *Tracker) Stats() Stats { return t.stats }

// STUN reads m.Payload as a STUN message and updates the ICE and TURN state.
//
// When the message is a Send or Data indication with a DATA attribute, STUN fills *inner with
// the datagram it carries and returns true: a copy of *m whose Payload is the DATA value
// (pointing into m.Payload), Via is transport.Indication, Peer is the XOR-PEER-ADDRESS (zero
// when absent) and whose Wire counts every STUN byte around the data as framing, so that
// inner's parts still add up to the same Total.
//
// A payload that is not STUN is counted (Stats.Malformed, or Stats.Classic for RFC 3489) and
// otherwise ignored. A message cut by the snap length (m.Snapped) is read from its header
// and the attributes that were captured. Messages that arrived wrapped in TURN (m.Via is not
// Direct) update ICE state only: a TURN method inside TURN is not an allocation of this flow.
func (t *Tracker) STUN(m *transport.Message, inner *transport.Message) (unwrapped bool) {
	b := m.Payload
	defer func() { t.msg.Raw = nil }() // do not keep the producer's buffer
	if len(b) == 0 || b[0]&0xC0 != 0 {
		t.stats.Malformed++
		return false
	}
	t.msg.Raw = b
	if err := t.msg.Decode(); err != nil {
		if !m.Snapped || !decodeTruncated(&t.msg, b) {
			if !stun.IsMessage(b) && Classify(b) == ClassSTUN { // no cookie: RFC 3489
				t.stats.Classic++
			} else {
				t.stats.Malformed++
			}
			return false
		}
		t.stats.Truncated++
	}
	t.stats.Messages++
	switch t.msg.Type.Class {
	case stun.ClassRequest:
		t.request(m)
	case stun.ClassSuccessResponse:
		t.response(m, true)
	case stun.ClassErrorResponse:
		t.response(m, false)
	case stun.ClassIndication:
		return t.indication(m, inner)
	}
	return false
}

// request records a request: counts, provisional TURN state, and the pending transaction.
func (t *Tracker) request(m *transport.Message) {
	id := t.msg.TransactionID
	binding := t.msg.Type.Method == stun.MethodBinding
	if seq, ok := t.pending[id]; ok {
		p := &t.txns[seq%maxPending]
		switch {
		case binding && p.method == stun.MethodBinding:
			t.bindingCopy(p, m)
		case binding:
			t.checks++ // a Binding request reusing a TURN transaction's ID: counted, not kept
		}
		// Else a retransmission of a TURN request: the state it would set is already set.
		return
	}
	e := txn{
		id:     id,
		at:     m.FirstSeen,
		method: t.msg.Type.Method,
		src:    m.Src,
		dst:    m.Dst,
		proto:  m.Proto,
		via:    m.Via,
		peer:   m.Peer,
	}
	if binding {
		t.bindingRequest(&e, m)
	} else if m.Via == transport.Direct {
		t.turnRequest(m, &e)
	}
	t.addPending(&e)
}

// addPending remembers a transaction, dropping the oldest one still pending when full.
func (t *Tracker) addPending(e *txn) {
	i := t.next % maxPending
	if len(t.txns) < maxPending {
		t.txns = append(t.txns, *e)
	} else {
		old := &t.txns[i]
		if seq, ok := t.pending[old.id]; ok && seq == t.next-maxPending {
			delete(t.pending, old.id)
			if old.method != stun.MethodBinding || !old.answered() {
				t.stats.Untracked.Pending++
			}
		}
		if old.method == stun.MethodBinding {
			t.finalize(old)
		}
		t.txns[i] = *e
	}
	t.pending[e.id] = t.next
	t.next++
}

// response matches a response to its request and applies what it confirms.
func (t *Tracker) response(m *transport.Message, success bool) {
	id := t.msg.TransactionID
	method := t.msg.Type.Method
	if method == stun.MethodBinding {
		t.bindingResponse(m, success)
		return
	}
	var e txn
	seq, ok := t.pending[id]
	if ok {
		e = t.txns[seq%maxPending]
		if e.method == method {
			delete(t.pending, id)
		} else {
			ok = false
		}
	}
	if !success {
		if code := getErrorCode(&t.msg); code > 0 && !t.refusedBefore(id) {
			t.errors[code]++
			if c := t.errClients[code]; len(c) < report.MaxTURNErrorClients && !slices.Contains(c, m.Dst) {
				t.errClients[code] = append(c, m.Dst)
			}
		}
	}
	if m.Via != transport.Direct {
		return
	}
	t.turnResponse(m, success, ok, &e)
}

// refusedRing is how many error responses' transactions refusedBefore remembers.
const refusedRing = 64

// refusedBefore says whether transaction id was answered with an error already, and
// remembers that it was.
func (t *Tracker) refusedBefore(id [stun.TransactionIDSize]byte) bool {
	for i := range min(t.nrefused, refusedRing) {
		if t.refused[i] == id {
			return true
		}
	}
	t.refused[t.nrefused%refusedRing] = id
	t.nrefused++
	return false
}

// indication unwraps Send and Data indications (RFC 8656, 10 and 11).
func (t *Tracker) indication(m *transport.Message, inner *transport.Message) bool {
	method := t.msg.Type.Method
	if method != stun.MethodSend && method != stun.MethodData {
		return false
	}
	i := slices.IndexFunc(t.msg.Attributes, func(a stun.RawAttribute) bool { return a.Type == stun.AttrData })
	if i < 0 {
		return false
	}
	data := t.msg.Attributes[i].Value
	framing := int64(len(m.Payload) - len(data))
	if m.Snapped {
		// The STUN bytes after the data were not captured: the message's length on the wire
		// and the declared DATA length say how many there were.
		if f := m.Len() - int64(t.msg.Attributes[i].Length); f >= framing {
			framing = f
		}
	}
	peer, _ := getXORAddr(&t.msg, stun.AttrXORPeerAddress)
	if m.Via == transport.Direct {
		client, server := m.Src, m.Dst
		if method == stun.MethodData {
			client, server = server, client
		}
		if a := t.alloc(client, server, m.Proto, m.FirstSeen, true); a != nil {
			a.seen(m.FirstSeen)
			a.indications++
			if peer.IsValid() {
				t.addPeer(a, peer, false)
			}
		}
	}
	t.stats.Indications++
	*inner = *m
	inner.Payload = data
	inner.Via = transport.Indication
	inner.Peer = peer
	inner.Channel = 0
	inner.Wire.Framing += framing
	return true
}

// ChannelData unwraps a TURN ChannelData message (RFC 8656, 12.4) into *inner: a copy of *m
// whose Payload is the application data (pointing into m.Payload), Via is
// transport.ChannelData, Channel the channel number, and Peer the peer bound to that channel
// on the allocation of m's flow (either direction), or the zero AddrPort when that binding
// was not seen. inner.Wire.Framing adds the 4-byte header and the padding. It returns false
// when m.Payload is not a valid ChannelData message. ChannelData allocates nothing: it runs
// for every media packet relayed through TURN.
func (t *Tracker) ChannelData(m *transport.Message, inner *transport.Message) bool {
	tcp := m.Proto == transport.TCP
	ch, payload, framing, ok := parseChannelData(m.Payload, tcp, m.Snapped)
	if !ok {
		return false
	}
	if m.Snapped {
		framing = snappedChannelDataFraming(m, tcp)
	}
	*inner = *m
	inner.Payload = payload
	inner.Via = transport.ChannelData
	inner.Channel = ch
	inner.Peer = netip.AddrPort{}
	inner.Wire.Framing += int64(framing)
	t.stats.ChannelData++
	a := t.lookup(m.Src, m.Dst, m.Proto)
	if a != nil {
		a.seen(m.FirstSeen)
		a.channelData++
		if i := a.channel(ch); i >= 0 {
			inner.Peer = a.channels[i].peer
			return true
		}
	}
	t.stats.ChannelDataUnbound++
	return true
}

// Refine returns the class of m once the TURN state is known: ClassChannelData for a
// ChannelData message on a channel number only RFC 5766 allows (0x5000-0x7FFF, whose first
// byte wire.IsLegacyChannelByte says), cls, the first-byte class, otherwise. Such a message
// starts with a byte of 80-127, which RFC 9443 gives to QUIC, so it is ChannelData only
// when its header validates as ChannelData and
//
//   - it came out of TURN's TCP framing (turnFramed): the framing carries only STUN and
//     ChannelData, and QUIC cannot run inside TCP, so it is a channel even when its binding
//     was not seen (the capture started after the ChannelBind): ChannelData of an unknown
//     peer, as an unbound channel of 0x4000-0x4FFF is;
//   - or, over UDP, a ChannelBind success response for that exact number was seen on m's
//     flow (either direction): without it the datagram keeps its first-byte class (QUIC,
//     or other when too short for QUIC).
//
// Refine costs one compare of the first byte for every other message, and allocates nothing.
func (t *Tracker) Refine(m *transport.Message, cls Class, turnFramed bool) Class {
	b := m.Payload
	if len(b) < wire.ChannelDataHeaderLen || !wire.IsLegacyChannelByte(b[0]) {
		return cls
	}
	tcp := m.Proto == transport.TCP
	ch, _, _, ok := parseChannelData(b, tcp, m.Snapped)
	if !ok {
		return cls
	}
	if tcp && turnFramed {
		return ClassChannelData
	}
	if a := t.lookup(m.Src, m.Dst, m.Proto); a != nil {
		if i := a.channel(ch); i >= 0 && a.channels[i].confirmed {
			return ClassChannelData
		}
	}
	return cls
}

// lookup finds the allocation of a flow seen in either direction, or nil. The allocations
// found last are cached by their two ends (a TURN server's capture interleaves the
// ChannelData of many allocations), before the two map lookups.
func (t *Tracker) lookup(src, dst netip.AddrPort, proto transport.Proto) *allocation {
	slot := &t.last[transport.PairHash(src, dst)>>(64-lastBits)]
	if a := *slot; a != nil && a.key.proto == proto &&
		(a.key.client == src && a.key.server == dst || a.key.client == dst && a.key.server == src) {
		return a
	}
	a, ok := t.allocs[flowKey{client: src, server: dst, proto: proto}]
	if !ok {
		a, ok = t.allocs[flowKey{client: dst, server: src, proto: proto}]
	}
	if ok {
		*slot = a
	}
	return a
}

// lastBits sizes the cache of allocations found last (Tracker.lookup).
const lastBits = 8

// snappedChannelDataFraming is the framing of a ChannelData message the capture cut: the
// header, and the padding the message's length on the wire leaves after the declared data.
func snappedChannelDataFraming(m *transport.Message, tcp bool) int {
	n := int64(binary.BigEndian.Uint16(m.Payload[2:4]))
	pad := m.Len() - wire.ChannelDataHeaderLen - n
	switch {
	case pad >= 0 && pad <= 3:
		return wire.ChannelDataHeaderLen + int(pad)
	case tcp:
		return wire.ChannelDataHeaderLen + pad4(int(n)) - int(n)
	}
	return wire.ChannelDataHeaderLen
}
