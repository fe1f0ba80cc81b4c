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
}

// twccBehind is how far behind the highest value a packet the network reordered may come
// and still count as in step.
const twccBehind = 16

// observe accounts value v of 2-byte element id, in the order the packets arrived: in step
// when it is one more than the highest so far, or fills in behind it (a packet the network
// reordered: the one that overtook it was out of step, this one and the next are not;
// h137: 20 of 200 packets swapped, each one had made three misses, and transport-cc was
// not found). Beyond 8 ids, new ids are ignored.
func (w *twccState) observe(id uint8, v uint16) {
	for i := 0; i < w.n; i++ {
		c := &w.ids[i]
		if c.id == id {
			c.obs++
			if d := int16(v - c.high); d == 1 || d < 0 && d >= -twccBehind {
				c.hits++
			}
			if int16(v-c.high) > 0 {
				c.high = v
			}
			return
		}
	}
	if w.n < len(w.ids) {
		w.ids[w.n] = twccID{id: id, high: v}
		w.n++
	}
}

// id returns the element id that behaves as transport-cc: at least 4 successors seen and
// at least 80% of them one more than the previous value; the one with the most such
// successors.
func (w *twccState) id() (uint8, bool) {
	var best *twccID
	for i := 0; i < w.n; i++ {
		c := &w.ids[i]
		if c.obs >= 4 && c.hits*5 >= c.obs*4 && (best == nil || c.hits > best.hits) {
			best = c
		}
	}
	if best == nil {
		return 0, false
	}
	return best.id, true
}
