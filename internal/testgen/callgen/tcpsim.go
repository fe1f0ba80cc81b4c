package callgen

// The simulation behind TCPCall (tcp.go): a queue of events (segments sent, arriving,
// reaching the capture point, a coalescing sender's flush), run in order of time.

import (
	"container/heap"
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// Segment kinds of the simulation's events.
const (
	evSend    = iota // a sender transmits a data segment
	evArrive         // a data segment reaches its receiver
	evCapture        // a frame built earlier reaches the capture
	evFlush          // a coalescing sender's partial segment may be due
	evRead           // the server's application reads again after a stall
)

type tcpEvent struct {
	t      int64
	order  uint64
	kind   int
	dir    int
	off    int64 // stream offset of the segment's first byte
	data   []byte
	idx    int  // index among the direction's first transmissions
	retx   bool // a copy sent again
	frame  []byte
	missed bool
	edge   int64 // for the server's frames with RcvWindow: the right edge they advertise
}

type eventHeap []*tcpEvent

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].order < h[j].order
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(*tcpEvent)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// span is a received range [lo, hi) of stream offsets beyond the cumulative point.
type span struct{ lo, hi int64 }

// sendQueue is a coalescing sender's bytes written but not yet cut into segments: the
// stream offsets from sent onwards.
type sendQueue struct {
	buf   []byte
	marks []mark // the writes still (partly) queued, oldest first
	timer bool   // an evFlush is pending
}

// mark says when the write ending at stream offset end was queued.
type mark struct{ end, t int64 }

type tcpSim struct {
	c     TCPCall
	emit  func(int64, []byte) error
	ev    eventHeap
	order uint64
	half  int64
	addr  [2]netip.AddrPort // sender of each direction
	sent  [2]int64          // next stream offset to send
	segs  [2]int            // first transmissions so far
	rcv   [2]int64          // cumulative: every byte below it arrived, per direction
	ooo   [2][]span         // disjoint ranges beyond a hole, the most recently changed first
	q     [2]sendQueue      // with Coalesce

	// With RcvWindow: the server's bytes received and not read, the right edge of the
	// server's window the client knows, and the client's segments waiting for it.
	unread  int64
	edge    int64
	blocked []*tcpEvent
	fEdge   int64 // the edge the last frame of the server built advertises
	err     error
	epoch0  int64
}

func newTCPSim(c TCPCall, emit func(int64, []byte) error) *tcpSim {
	if c.RTT <= 0 {
		c.RTT = 60 * time.Millisecond
	}
	if c.RTO <= 0 {
		c.RTO = 305 * time.Millisecond
	}
	if c.MSS <= 0 {
		c.MSS = 1200
	}
	return &tcpSim{c: c, emit: emit, half: int64(c.RTT) / 2, addr: [2]netip.AddrPort{c.Client, c.Server},
		epoch0: Epoch}
}

// seq is the sequence number of stream offset off in direction dir.
func (s *tcpSim) seq(dir int, off int64) uint32 { return s.c.ISN[dir] + 1 + uint32(off) }

// frame builds a segment of direction dir: it acknowledges (and with SACK, SACKs) what
// dir's sender has received of the other direction, and advertises its window: 65535, or
// with RcvWindow the server's free buffer (scaled), whose right edge goes in fEdge.
func (s *tcpSim) frame(dir int, off int64, flags uint8, payload []byte) []byte {
	win := uint16(65535)
	if dir == 1 && s.c.RcvWindow > 0 {
		w := max(int64(s.c.RcvWindow)-s.unread, 0) >> s.c.WScale
		win = uint16(min(w, 65535))
		s.fEdge = s.rcv[0] + int64(win)<<s.c.WScale
	}
	return pcapgen.EtherTCP(s.addr[dir], s.addr[1-dir], s.seq(dir, off), s.seq(1-dir, s.rcv[1-dir]),
		flags, win, payload, s.sackOpt(1-dir)...)
}

// stalled reports whether the server's application is not reading at t.
func (s *tcpSim) stalled(t int64) bool {
	for _, st := range s.c.Stalls {
		if a := s.epoch0 + int64(st.At); t >= a && t < a+int64(st.For) {
			return true
		}
	}
	return false
}

// sees gives the client a segment of the server advertising the right edge edge at t: the
// segments waiting for the window that now fit go out.
func (s *tcpSim) sees(edge, t int64) {
	if s.c.RcvWindow <= 0 {
		return
	}
	s.edge = edge
	for len(s.blocked) > 0 && s.blocked[0].off+int64(len(s.blocked[0].data)) <= s.edge {
		e := s.blocked[0]
		s.blocked = s.blocked[1:]
		e.t = t
		s.send(e)
	}
}

// maxSACKBlocks is how many SACK blocks fit in the 40 bytes of TCP options beside no
// timestamps option (RFC 2018, 3; Linux's TCP_NUM_SACKS).
const maxSACKBlocks = 4

// sackOpt returns the SACK option acknowledging direction dir, or nothing.
func (s *tcpSim) sackOpt(dir int) []pcapgen.TCPOpt {
	if !s.c.SACK || len(s.ooo[dir]) == 0 {
		return nil
	}
	var blocks []capture.SACKBlock
	for _, sp := range s.ooo[dir][:min(len(s.ooo[dir]), maxSACKBlocks)] {
		blocks = append(blocks, capture.SACKBlock{Left: s.seq(dir, sp.lo), Right: s.seq(dir, sp.hi)})
	}
	return []pcapgen.TCPOpt{pcapgen.SACK(blocks...)}
}

func (s *tcpSim) out(t int64, frame []byte) {
	if s.err == nil {
		s.err = s.emit(t, frame)
	}
}

func (s *tcpSim) push(e *tcpEvent) {
	s.order++
	e.order = s.order
	heap.Push(&s.ev, e)
}

func (s *tcpSim) run(next func() (TCPWrite, bool)) error {
	c := s.c
	t0 := s.epoch0 + int64(c.Start)
	cl, sv := c.Client, c.Server
	synOpts := [2][]pcapgen.TCPOpt{{pcapgen.MSS(uint16(c.MSS))}, {pcapgen.MSS(uint16(c.MSS))}}
	synWin := uint16(65535)
	if c.RcvWindow > 0 {
		synOpts[0] = append(synOpts[0], pcapgen.WScale(0))
		synOpts[1] = append(synOpts[1], pcapgen.WScale(c.WScale))
		synWin = uint16(min(c.RcvWindow, 65535))
		s.edge = int64(synWin)
		for _, st := range c.Stalls {
			s.push(&tcpEvent{t: s.epoch0 + int64(st.At+st.For), kind: evRead})
		}
	}
	if c.Passive {
		s.out(t0, pcapgen.EtherTCP(sv, cl, c.ISN[1], 0, capture.FlagSYN, synWin, nil, synOpts[1]...))
		s.out(t0, pcapgen.EtherTCP(cl, sv, c.ISN[0], c.ISN[1]+1, capture.FlagSYN|capture.FlagACK, 65535, nil,
			synOpts[0]...))
		s.out(t0+2*s.half, pcapgen.EtherTCP(sv, cl, c.ISN[1]+1, c.ISN[0]+1, capture.FlagACK, synWin, nil))
	} else {
		s.out(t0, pcapgen.EtherTCP(cl, sv, c.ISN[0], 0, capture.FlagSYN, 65535, nil, synOpts[0]...))
		s.out(t0+2*s.half, pcapgen.EtherTCP(sv, cl, c.ISN[1], c.ISN[0]+1, capture.FlagSYN|capture.FlagACK, synWin, nil,
			synOpts[1]...))
		s.out(t0+2*s.half, pcapgen.EtherTCP(cl, sv, c.ISN[0]+1, c.ISN[1]+1, capture.FlagACK, 65535, nil))
	}
	w, ok := next()
	for s.err == nil && (ok || len(s.ev) > 0) {
		if ok && (len(s.ev) == 0 || s.epoch0+int64(w.T) <= s.ev[0].t) {
			s.write(w)
			w, ok = next()
			continue
		}
		s.event(heap.Pop(&s.ev).(*tcpEvent))
	}
	return s.err
}

func (s *tcpSim) write(w TCPWrite) {
	t := s.epoch0 + int64(w.T)
	if s.c.Coalesce > 0 {
		s.enqueue(t, w)
		return
	}
	for b := w.Data; len(b) > 0; {
		n := min(len(b), s.c.MSS)
		s.push(&tcpEvent{t: t, kind: evSend, dir: w.Dir, off: s.sent[w.Dir], data: b[:n], idx: s.segs[w.Dir]})
		s.sent[w.Dir] += int64(n)
		s.segs[w.Dir]++
		b = b[n:]
	}
}

// enqueue adds a write to its direction's send queue and sends every full MSS queued.
func (s *tcpSim) enqueue(t int64, w TCPWrite) {
	q := &s.q[w.Dir]
	q.buf = append(q.buf, w.Data...)
	q.marks = append(q.marks, mark{end: s.sent[w.Dir] + int64(len(q.buf)), t: t})
	for len(q.buf) >= s.c.MSS {
		s.cut(t, w.Dir, s.c.MSS)
	}
	s.armFlush(w.Dir)
}

// cut sends the first n queued bytes of direction dir as one segment at t.
func (s *tcpSim) cut(t int64, dir, n int) {
	q := &s.q[dir]
	data := append([]byte(nil), q.buf[:n]...)
	q.buf = append(q.buf[:0], q.buf[n:]...)
	s.push(&tcpEvent{t: t, kind: evSend, dir: dir, off: s.sent[dir], data: data, idx: s.segs[dir]})
	s.sent[dir] += int64(n)
	s.segs[dir]++
	for len(q.marks) > 0 && q.marks[0].end <= s.sent[dir] {
		q.marks = q.marks[1:]
	}
}

// armFlush schedules the flush of direction dir's partial segment, if there is one and no
// flush is pending, for when its oldest byte will have waited Coalesce.
func (s *tcpSim) armFlush(dir int) {
	q := &s.q[dir]
	if len(q.buf) == 0 || q.timer {
		return
	}
	q.timer = true
	s.push(&tcpEvent{t: q.marks[0].t + int64(s.c.Coalesce), kind: evFlush, dir: dir})
}

// flush sends direction dir's partial segment if its oldest byte has waited Coalesce;
// else (full segments went out since the flush was armed) it arms the flush again.
func (s *tcpSim) flush(t int64, dir int) {
	q := &s.q[dir]
	q.timer = false
	if len(q.buf) > 0 && q.marks[0].t+int64(s.c.Coalesce) <= t {
		s.cut(t, dir, len(q.buf))
	}
	s.armFlush(dir)
}

func is(f func(int) bool, i int) bool { return f != nil && f(i) }

func (s *tcpSim) missed(dir, idx int) bool { return s.c.Miss != nil && s.c.Miss(dir, idx) }

func (s *tcpSim) event(e *tcpEvent) {
	c := s.c
	switch e.kind {
	case evCapture:
		s.out(e.t, e.frame)
		s.sees(e.edge, e.t)
	case evFlush:
		s.flush(e.t, e.dir)
	case evRead:
		s.unread = 0
		s.push(&tcpEvent{t: e.t + s.half, kind: evCapture, frame: s.frame(1, s.sent[1], capture.FlagACK, nil), edge: s.fEdge})
	case evSend:
		if c.RcvWindow > 0 && e.dir == 0 && !e.retx &&
			(len(s.blocked) > 0 || e.off+int64(len(e.data)) > s.edge) {
			s.blocked = append(s.blocked, e)
			return
		}
		s.send(e)
	case evArrive:
		before := s.rcv[e.dir]
		s.receive(e.dir, e.off, e.off+int64(len(e.data)))
		if e.dir == 0 { // at the server: its ACK reaches the capture RTT/2 later
			if s.stalled(e.t) {
				s.unread += s.rcv[0] - before
			}
			s.push(&tcpEvent{t: e.t + s.half, kind: evCapture, frame: s.frame(1, s.sent[1], capture.FlagACK, nil), edge: s.fEdge})
			return
		}
		if !e.missed {
			s.out(e.t, e.frame)
			s.sees(e.edge, e.t)
		}
		s.out(e.t, s.frame(0, s.sent[0], capture.FlagACK, nil))
	}
}

// send transmits a data segment at e.t.
func (s *tcpSim) send(e *tcpEvent) {
	c := s.c
	first := !e.retx
	resend := first && (e.dir == 0 && (is(c.LoseAfter, e.idx) || is(c.Spurious, e.idx)) ||
		e.dir == 1 && is(c.LoseBefore, e.idx))
	lost := first && (e.dir == 0 && is(c.LoseAfter, e.idx) || e.dir == 1 && is(c.LoseBefore, e.idx))
	f := s.frame(e.dir, e.off, capture.FlagACK|capture.FlagPSH, e.data)
	miss := s.missed(e.dir, e.idx)
	if e.dir == 0 && !miss {
		s.out(e.t, f)
	}
	if resend {
		s.push(&tcpEvent{t: e.t + int64(c.RTO), kind: evSend, dir: e.dir, off: e.off, data: e.data, idx: e.idx, retx: true})
	}
	if !lost {
		s.push(&tcpEvent{t: e.t + s.half, kind: evArrive, dir: e.dir, off: e.off, data: e.data, frame: f,
			missed: miss, edge: s.fEdge})
	}
}

// receive records [lo, hi) as arrived in direction dir and advances the cumulative point.
// Ranges beyond a hole are kept merged, the one that took this arrival first, which is the
// order of SACK blocks (RFC 2018, 4).
func (s *tcpSim) receive(dir int, lo, hi int64) {
	if hi <= s.rcv[dir] {
		return
	}
	lo = max(lo, s.rcv[dir])
	o := s.ooo[dir]
	if lo > s.rcv[dir] { // beyond a hole: merge with the ranges it touches, in front
		k := 0
		for _, sp := range o {
			if sp.lo <= hi && sp.hi >= lo {
				lo, hi = min(lo, sp.lo), max(hi, sp.hi)
				continue
			}
			o[k] = sp
			k++
		}
		o = append(o[:k], span{})
		copy(o[1:], o)
		o[0] = span{lo, hi}
		s.ooo[dir] = o
		return
	}
	s.rcv[dir] = hi
	for more := true; more; {
		more = false
		k := 0
		for _, sp := range o {
			if sp.lo <= s.rcv[dir] {
				s.rcv[dir] = max(s.rcv[dir], sp.hi)
				more = true
				continue
			}
			o[k] = sp
			k++
		}
		o = o[:k]
	}
	s.ooo[dir] = o
}
