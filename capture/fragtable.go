package capture

// The reassembler's table of datagrams pending: entries made, linked in age order,
// grown, expired and given back, their buffers reused.

// alloc creates the entry for key, evicting the oldest that is no longer pending when the
// table is full; -1 when every entry is pending.
func (f *reassembler) alloc(key fragKey, now int64) int32 {
	if f.index == nil {
		f.index = make(map[fragKey]int32)
	}
	if len(f.index) >= maxPending {
		// Full: the oldest entry no longer pending (rebuilt, discarded, an echo) makes room.
		// With every one a datagram being rebuilt, this one is not tracked (DESIGN: beyond
		// a cap new ones are counted, not tracked): evicting the oldest, as before, each
		// fragment of 1,080 datagrams in flight evicted the one the next would complete,
		// and none was (h135).
		j := f.head
		for f.pending < maxPending && j >= 0 && f.slots[j].counts() {
			j = f.slots[j].next
		}
		if f.pending >= maxPending || j < 0 {
			f.stats.Dropped++
			return -1
		}
		f.remove(j)
	}
	var i int32
	if n := len(f.freeSlots); n > 0 {
		i = f.freeSlots[n-1]
		f.freeSlots = f.freeSlots[:n-1]
	} else {
		f.slots = append(f.slots, fragEntry{})
		i = int32(len(f.slots) - 1)
	}
	e := &f.slots[i]
	e.key, e.first, e.total, e.valid, e.have, e.wire, e.frames, e.proto = key, now, -1, maxDatagram, 0, 0, 0, 0
	e.dead, e.expired, e.done, e.echo, e.transport = false, false, false, false, 0
	e.spans = e.spans[:0]
	f.link(i)
	f.index[key] = i
	f.pending++
	return i
}

// link appends entry i to the list, the newest.
func (f *reassembler) link(i int32) {
	e := &f.slots[i]
	e.prev, e.next = f.tail, -1
	if f.tail >= 0 {
		f.slots[f.tail].next = i
	} else {
		f.head = i
	}
	f.tail = i
}

// unlink takes entry i out of the list.
func (f *reassembler) unlink(i int32) {
	e := &f.slots[i]
	if e.prev >= 0 {
		f.slots[e.prev].next = e.next
	} else {
		f.head = e.next
	}
	if e.next >= 0 {
		f.slots[e.next].prev = e.prev
	} else {
		f.tail = e.prev
	}
}

// grow gives entry i a buffer of at least need bytes, evicting older datagrams to stay under
// maxFragBytes. It discards i itself when nothing else can make room.
func (f *reassembler) grow(i int32, need int) bool {
	e := &f.slots[i]
	n := max(need, 2*cap(e.buf), minFragBuf)
	n = min(n, maxDatagram)
	for f.bytes+n-cap(e.buf) > maxFragBytes {
		j := f.head
		if j == i {
			j = f.slots[i].next
		}
		if j < 0 {
			f.kill(i)
			return false
		}
		if f.slots[j].counts() {
			f.stats.Dropped++
		}
		f.remove(j)
	}
	e = &f.slots[i]
	nb := f.getBuf(n)[:len(e.buf)]
	copy(nb, e.buf)
	f.putBuf(e.buf)
	f.bytes += cap(nb) - cap(e.buf)
	e.buf = nb
	return true
}

// kill discards entry i's data; the entry stays until it expires so that the datagram's
// other fragments are swallowed rather than started afresh.
func (f *reassembler) kill(i int32) {
	if f.slots[i].counts() {
		f.stats.Dropped++
	}
	f.discard(i)
}

// discard frees entry i's data and marks it dead.
func (f *reassembler) discard(i int32) {
	e := &f.slots[i]
	f.free(e)
	e.dead = true
}

// free gives back entry e's buffer, and its place among the datagrams pending.
func (f *reassembler) free(e *fragEntry) {
	if e.counts() {
		f.pending--
	}
	f.bytes -= cap(e.buf)
	f.putBuf(e.buf)
	e.buf = nil
	e.spans = e.spans[:0]
}

// expire ends the datagrams whose first fragment is older than fragTimeout. One still
// incomplete has expired: its entry stays, dead, for another fragTimeout, so that a
// fragment of it that comes later still is swallowed, not begun afresh as a datagram of its
// own that never completes (and would count a second time).
func (f *reassembler) expire(now int64) {
	for f.head >= 0 {
		i := f.head
		e := &f.slots[i]
		if now-e.first <= fragTimeout {
			return
		}
		if e.over() || e.echo {
			f.remove(i)
			continue
		}
		f.stats.Expired++
		f.discard(i)
		e.expired = true
		f.unlink(i)
		e.first = now
		f.link(i)
	}
}

// remove unlinks entry i and recycles its slot and buffer.
func (f *reassembler) remove(i int32) {
	e := &f.slots[i]
	f.unlink(i)
	delete(f.index, e.key)
	f.free(e)
	e.key = fragKey{}
	f.freeSlots = append(f.freeSlots, i)
}

// release recycles the buffer of the datagram returned by the previous Next.
func (f *reassembler) release() {
	if f.last != nil {
		f.putBuf(f.last)
		f.last = nil
	}
}

func (f *reassembler) getBuf(n int) []byte {
	for k := len(f.bufs) - 1; k >= 0; k-- {
		if b := f.bufs[k]; cap(b) >= n {
			f.bufs[k] = f.bufs[len(f.bufs)-1]
			f.bufs = f.bufs[:len(f.bufs)-1]
			return b[:n]
		}
	}
	return make([]byte, n)
}

func (f *reassembler) putBuf(b []byte) {
	if cap(b) == 0 {
		return
	}
	if len(f.bufs) < maxFreeBufs {
		f.bufs = append(f.bufs, b[:0])
		return
	}
	// Keep the larger buffers.
	for k, o := range f.bufs {
		if cap(o) < cap(b) {
			f.bufs[k] = b[:0]
			return
		}
	}
}
