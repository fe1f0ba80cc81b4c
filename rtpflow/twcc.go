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
	last      uint16
	obs, hits uint32
}

// observe accounts value v of 2-byte element id, in the sender's packet order. Beyond 8
// ids, new ids are ignored.
func (w *twccState) observe(id uint8, v uint16) {
	for i := 0; i < w.n; i++ {
		c := &w.ids[i]
		if c.id == id {
			c.obs++
			if v == c.last+1 {
				c.hits++
			}
			c.last = v
			return
		}
	}
	if w.n < len(w.ids) {
		w.ids[w.n] = twccID{id: id, last: v}
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
