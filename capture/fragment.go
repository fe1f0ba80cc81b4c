package capture

import "net/netip"

// Reassembly limits. Each bounds memory against captures made of garbage fragments.
const (
	fragTimeout  = 30e9     // ns of capture time before an incomplete datagram expires
	maxDatagram  = 65535    // bytes of reassembled IP payload
	maxPending   = 1024     // datagrams being reassembled (or discarded, until they expire)
	maxFragBytes = 16 << 20 // buffer bytes held by pending datagrams
	maxSpans     = 256      // fragments per datagram
	minFragBuf   = 4 << 10
	maxFreeBufs  = 32
)

// fragKey identifies a datagram: RFC 791 (source, destination, protocol, identification),
// RFC 8200 4.5 (source, destination, identification), and where the capture recorded it
// (link). tcpdump -i any on a host that forwards records each fragment twice, on the way in
// and on the way out, a few microseconds apart: each copy of the datagram is rebuilt from
// its own fragments, and the analysis then counts the second as a capture duplicate. Keyed
// by addresses alone, the second copy of the first fragment was a repeat, the first copy
// of the last completed the datagram, and the second copy of the last began one that never
// completed.
type fragKey struct {
	src, dst netip.Addr
	id       uint32
	proto    uint8
	v4       bool
	link     uint64 // linkOf
}

// linkOf identifies where p was recorded, for fragKey: its interface, and what its
// link-layer header says of where the frame passed, which every fragment of a datagram
// shares: Ethernet's addresses and tags (the header, off bytes), a cooked capture's packet
// type and link-layer address, and SLL2's interface index. Not the whole of a cooked
// header: SLL's address field has 8 bytes, and past the address's length they are
// whatever the kernel left there, different from one fragment to the next.
func linkOf(p *Packet, off int) uint64 {
	const prime = 1099511628211
	h := (14695981039346656037 ^ uint64(p.Iface)) * prime
	add := func(b []byte) {
		for _, c := range b {
			h = (h ^ uint64(c)) * prime
		}
	}
	d := p.Data[:off]
	switch p.LinkType {
	case LinkEthernet:
		add(d)
	case LinkLinuxSLL: // packet type(2) ARPHRD(2) address length(2) address(8) protocol(2)
		if len(d) >= sllLen {
			add(d[:4])
			add(d[6 : 6+min(int(d[5]), 8)])
		}
	case LinkLinuxSLL2: // protocol(2) reserved(2) interface(4) ARPHRD(2) packet type(1) address length(1) address(8)
		if len(d) >= sll2Len {
			add(d[4:11])
			add(d[12 : 12+min(int(d[11]), 8)])
		}
	}
	return h
}

// span is the byte range [off, end) a fragment declares.
type span struct{ off, end int32 }

type fragEntry struct {
	key        fragKey
	first      int64 // capture time of the first fragment
	prev, next int32 // creation order
	buf        []byte
	spans      []span // in order of arrival
	total      int    // payload length once the last fragment is seen, else -1
	valid      int    // bytes from 0 actually captured, when the snap length cut a fragment
	have       int    // sum of the spans' lengths (they never overlap)
	wire       int    // sum of the fragments' frame lengths
	frames     int    // fragments filed
	proto      uint8
	dead       bool // discarded: swallow its other fragments until it expires
	expired    bool // dead because it expired incomplete, not because it was inconsistent
	// done: rebuilt and handed out; kept until it expires, so that a repeat of one of its
	// fragments is known for one, not begun as a datagram that never completes.
	done bool
	// echo: begun by a repeat of a fragment of a datagram already rebuilt, whose ports are
	// known: the network may have sent the datagram again whole, or repeated that one
	// fragment. Until it completes, each of its frames is an Echo repeat of the rebuilt
	// one (Packet.Echo), and if it never does it is no datagram lost.
	echo   bool
	echoID uint32 // Packet.EchoID
	// The datagram's transport (protoUDP or protoTCP; 0 until known) and ports, from its
	// first fragment or its decoded transport header, for the repeats of its fragments.
	transport    uint8
	sport, dport uint16
}

// fragResult is a completed datagram: the captured part of its payload, the payload length
// and the protocol (IPv6: the next header) that the payload starts with.
type fragResult struct {
	data  []byte
	total int
	proto uint8
}

// reassembler rebuilds IPv4 and IPv6 datagrams from fragments. Overlapping fragments make
// the whole datagram discarded, as RFC 5722 requires for IPv6 and current stacks do for
// IPv4 too: what an endpoint would throw away is not analyzed. An exact repeat of a
// fragment (same offset and length: the network or the capture wrote it twice) is not
// filed again, as a receiver discards it, but its frame was on the wire, so the packet says
// whose datagram it repeats (Packet.Repeat), before the datagram is rebuilt or after; or,
// before the ports are known, its frame is the datagram's. After the rebuild a repeat may
// begin a second copy (an echo, Packet.Echo). Every frame's bytes are some flow's.
type reassembler struct {
	index      map[fragKey]int32
	slots      []fragEntry
	freeSlots  []int32
	head, tail int32 // oldest and newest entries
	pending    int   // entries not discarded
	bytes      int   // capacity of the buffers held by entries
	bufs       [][]byte
	last       []byte // the buffer of the datagram returned by the previous Next
	lastDone   int32  // the entry of that datagram, for decoded
	echoes     uint32 // echoes begun, for their EchoID
	stats      Stats
}

func (f *reassembler) init() { f.head, f.tail = -1, -1 }

// add files one fragment of p: payload bytes data (the captured part of length declared
// bytes) at byte offset off. It returns the datagram when this fragment completes it, and
// sets p.Fragment, or p.Reassembled and p.WireLen.
func (f *reassembler) add(p *Packet, key fragKey, off int, more bool, data []byte, length int, proto uint8) (fragResult, bool) {
	f.stats.Fragments++
	p.Fragment = true
	f.expire(p.Time)
	if length <= 0 {
		return fragResult{}, false // nothing to hold
	}
	end := off + length
	i, ok := f.index[key]
	if ok && f.slots[i].done {
		e := &f.slots[i]
		switch {
		case !e.holds(off, end):
			f.remove(i) // a new datagram that took the identification again
			ok = false
		case e.transport == 0 && e.spans[0] != (span{int32(off), int32(end)}):
			f.repeat(p, e) // no echo without ports: a repeat, unless it begins the datagram again
			return fragResult{}, false
		default:
			// The same datagram sent again whole (the network duplicated it, its fragments
			// in any order): a receiver, the first copy delivered, files it afresh and
			// delivers a second (an RTP duplicate, or a capture duplicate on another
			// interface). Or that one fragment was repeated: the echo is the first copy's
			// until it completes.
			transport, sport, dport := e.transport, e.sport, e.dport
			f.remove(i)
			i, ok = f.alloc(key, p.Time), true
			if transport != 0 {
				e = &f.slots[i]
				f.echoes++
				e.echo, e.echoID, e.transport, e.sport, e.dport = true, f.echoes, transport, sport, dport
				f.pending-- // not a datagram pending: see echo
			}
		}
	}
	if ok && off == 0 && f.slots[i].expired {
		// A first fragment after the datagram of its identification expired: a new
		// datagram that took it again, as a receiver, which freed the old one then, reads
		// it (h161: swallowed, in no count, for another 30 s).
		f.remove(i)
		ok = false
	}
	if !ok {
		if i = f.alloc(key, p.Time); i < 0 {
			return fragResult{}, false
		}
	}
	e := &f.slots[i]
	if e.dead {
		return fragResult{}, false
	}
	switch {
	case end > maxDatagram, len(e.spans) >= maxSpans:
		f.kill(i)
		return fragResult{}, false
	case !more && e.total >= 0 && e.total != end, more && e.total >= 0 && end > e.total:
		f.kill(i) // two different ends
		return fragResult{}, false
	}
	for _, s := range e.spans {
		if int(s.off) == off && int(s.end) == end {
			f.repeat(p, e)
			return fragResult{}, false
		}
		if off < int(s.end) && int(s.off) < end || !more && int(s.end) > end {
			f.kill(i)
			return fragResult{}, false
		}
	}
	if !more {
		e.total = end
	}
	if need := off + len(data); need > len(e.buf) {
		if need > cap(e.buf) && !f.grow(i, need) {
			return fragResult{}, false
		}
		e = &f.slots[i] // grow may evict others, never this one
		e.buf = e.buf[:need]
	}
	copy(e.buf[off:], data)
	if len(data) < length {
		e.valid = min(e.valid, off+len(data))
	}
	e.spans = append(e.spans, span{int32(off), int32(end)})
	e.have += length
	if off == 0 {
		e.proto = proto
		if (proto == protoUDP || proto == protoTCP) && len(data) >= 4 && !e.echo { // an echo has them already
			e.transport = proto
			e.sport, e.dport = uint16(data[0])<<8|uint16(data[1]), uint16(data[2])<<8|uint16(data[3])
		}
	}
	if e.total < 0 || e.have != e.total {
		if e.echo {
			f.repeat(p, e)
			p.Echo, p.EchoID = true, e.echoID
		}
		e.wire += p.FrameLen
		e.frames++
		return fragResult{}, false
	}
	e.wire += p.FrameLen
	e.frames++
	res := fragResult{data: e.buf[:min(e.valid, e.total)], total: e.total, proto: e.proto}
	p.Reassembled, p.Fragment, p.WireLen, p.Echo, p.EchoID = true, false, e.wire, e.echo, e.echoID
	p.Fragments = uint16(e.frames) // at most maxSpans
	// The payload points into the buffer until the next Next: keep it out of the free list.
	f.last, e.buf = e.buf, nil
	f.bytes -= cap(f.last)
	f.stats.Reassembled++
	f.lastDone = i
	if !e.echo {
		f.pending--
	}
	e.done = true
	return res, true
}

// decoded takes the transport and ports of p, the datagram the previous add rebuilt and
// decoded, for the repeats of its fragments that come after: an IPv6 datagram's first
// fragment may begin with extension headers, where add sees no ports.
func (f *reassembler) decoded(p *Packet) {
	if e := &f.slots[f.lastDone]; (p.Kind == KindUDP || p.Kind == KindTCP) && e.transport == 0 {
		e.transport, e.sport, e.dport = p.IPProto, p.SrcPort, p.DstPort // protoUDP or protoTCP
	}
}

// repeat notes p, a fragment that repeats one of entry e: with the datagram's transport
// and ports once they are known (Packet.Repeat); before, its frame is the datagram's, whose
// WireLen then covers it, so that its bytes are some flow's either way.
func (f *reassembler) repeat(p *Packet, e *fragEntry) {
	f.stats.Duplicates++
	switch {
	case e.transport != 0:
		p.Repeat, p.IPProto, p.SrcPort, p.DstPort = true, e.transport, e.sport, e.dport
	case !e.done:
		e.wire += p.FrameLen
		e.frames++
	}
}

// holds reports whether entry e has a fragment of exactly [off, end).
func (e *fragEntry) holds(off, end int) bool {
	for _, s := range e.spans {
		if int(s.off) == off && int(s.end) == end {
			return true
		}
	}
	return false
}

// over reports whether entry e is no longer pending: discarded, or rebuilt.
func (e *fragEntry) over() bool { return e.dead || e.done }

// counts reports whether entry e is a datagram pending, for the stats: not over, and not an
// echo, whose frames were each a repeat of a datagram rebuilt.
func (e *fragEntry) counts() bool { return !e.over() && !e.echo }
