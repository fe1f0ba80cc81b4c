package rtpflow

// twccState finds the transport-wide sequence number element of one sender: a 2-byte
// element whose value increases by one from each packet of the sender to the next, across
// all its streams (draft-holmer-rmcat-transport-wide-cc-extensions-01). Each of the
// sender's streams feeds it its 2-byte elements (extDetector.observe).
type twccState struct {
	ids [8]twccID
	n   int
}

type twccID struct {
	id        uint8
	high      uint16 // the highest value so far (serial order)
	obs, hits uint32
	adv       uint32 // how far high advanced
}

// A value is in step when it is at most twccAhead above the highest so far (the next, or
// the next after a few lost or overtaken), or at most twccBehind below it (a packet the
// network held back, overtaken by up to that many: 300 ms at a video sender's pace).
const (
	twccAhead  = 4
	twccBehind = 64
)

// observe accounts value v of 2-byte element id, in the order the packets arrived. Beyond 8
// ids, new ids are ignored.
func (w *twccState) observe(id uint8, v uint16) {
	for i := 0; i < w.n; i++ {
		c := &w.ids[i]
		if c.id == id {
			c.obs++
			d := int16(v - c.high)
			if d > 0 && d <= twccAhead || d < 0 && d >= -twccBehind {
				c.hits++
			}
			if d > 0 {
				c.high = v
				c.adv += uint32(d)
			}
			return
		}
	}
	if w.n < len(w.ids) {
		w.ids[w.n] = twccID{id: id, high: v}
		w.n++
	}
}

// id returns the element id that behaves as transport-cc: at least 4 successors seen, at
// least 80% of them in step (observe), and its highest value advancing by about one a
// packet, 0.9 to 1.5 on average (a value a packet, up to a third lost): a clock counting by two
// advances 2, two streams' own counters interleaved (the slower one's values falling
// behind the faster's) less than one. The one with the most values in step. In step is
// measured against the highest value, not the previous one: a packet the network held back
// made three misses and the ones that overtook it none, and 20 of 200 packets swapped, or
// a few held back 300 ms, hid it (h137, h140).
func (w *twccState) id() (uint8, bool) {
	var best *twccID
	for i := 0; i < w.n; i++ {
		c := &w.ids[i]
		paced := c.adv*10 >= c.obs*9 && c.adv*2 <= c.obs*3
		if c.obs >= 4 && c.hits*5 >= c.obs*4 && paced && (best == nil || c.hits > best.hits) {
			best = c
		}
	}
	if best == nil {
		return 0, false
	}
	return best.id, true
}
