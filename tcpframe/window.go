package tcpframe

import (
	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// The receiver's window (RFC 9293 3.8.6, RFC 7323 2). Over TCP, media can wait for a
// retransmission, for a full receive window, or in the sender's own queue; this file finds
// the second, so that a late message is blamed on its cause (DESIGN, "Pitfalls").
//
// A window stall of a direction is a time when its sender may not send a full segment:
// the receiver advertised a zero window, or the sender's highest byte sent reaches the right
// edge the receiver advertised (its cumulative ACK plus its window, scaled) to within less
// than one segment (the largest payload seen in the direction). That is the protocol's
// window-full: a sender sends only segments that fit whole (RFC 9293 3.8.6.2.1; Linux's
// tcp_snd_wnd_test), so when the window is the limit, highest == ACK + window, or short of
// it by less than a segment. The stall ends when one of the receiver's segments opens the
// window again (a window update, or an ACK with the window open), unless the window is full
// again within a round trip: the sender drains its queue through a window the receiver
// opens an ACK at a time, and that is the same stall. A stall still on when the capture
// ends is counted, up to the connection's last packet.
//
// Window scaling is in effect only when both SYNs carried the option (RFC 7323 2.2); the
// window of a SYN is never scaled. A capture that started after the handshake does not know
// the scale: then only zero windows are seen, not a window that filled.
//
// What each vantage tells. Next to the sender (a capture at the client, for what it sends
// to its TURN server) the capture sees what the sender saw: the stall is exactly the time
// it could not send. Next to the receiver (a capture at the TURN server) the stall runs
// from the data that filled the window to the receiver's window update: the same length,
// half a round trip earlier than the sender lived it. In the middle, between the two.
// Either way the capture sees when the window was shut, never why the receiving
// application stopped reading.

// rwnd is one direction's view of its receiver's window and of its stalls.
type rwnd struct {
	synWS   uint8 // the shift this side's SYN offered
	synOpt  bool  // this side's SYN carried the window scale option
	synSeen bool  // this side's SYN was seen

	edge   int64 // the receiver's right edge, ACK + scaled window (a stream offset)
	edgeOK bool  // edge is known (the scale is known and a window was seen)
	zero   bool  // the receiver's last window was zero
	maxSeg int64 // the largest payload seen in the direction: its segment size

	on             bool
	start          int64 // when the stall that is on began
	count, longest int64
	recent         [4]span // the last stalls, for messages emitted after them
	rn             int     // stalls ever pushed into recent
}

type span struct{ start, end int64 }

// syn records the window scale option of this side's SYN.
func (w *rwnd) syn(h *capture.TCPHeader) {
	w.synSeen, w.synWS, w.synOpt = true, h.WScale, h.HasWScale
}

// scale returns the shift of the windows this side (w) advertises, its peer being o, and
// whether it is known: both SYNs seen, and the option in both or (shift 0) not.
func (w *rwnd) scale(o *rwnd) (uint8, bool) {
	if !w.synSeen || !o.synSeen {
		return 0, false
	}
	if w.synOpt && o.synOpt {
		return w.synWS, true
	}
	return 0, true
}

// advertised takes the window of one of the receiver's segments, whose ACK of this
// direction is offset a, seen at t. RST segments carry no meaningful window.
func (d *dir) advertised(h *capture.TCPHeader, a, t int64) {
	if h.Flags&capture.FlagRST != 0 || d.ended {
		return
	}
	w := &d.rw
	win := int64(h.Window)
	if h.Flags&capture.FlagSYN == 0 {
		sh, ok := d.peer().rw.scale(w)
		if !ok {
			w.edgeOK, w.zero = false, win == 0
			d.stallCheck(t)
			return
		}
		win <<= sh
	}
	w.edge, w.edgeOK, w.zero = a+win, true, win == 0
	d.stallCheck(t)
}

// dataSent notes a data segment of pl bytes seen at t, which may have filled the window.
func (d *dir) dataSent(pl, t int64) {
	d.rw.maxSeg = max(d.rw.maxSeg, pl)
	d.stallCheck(t)
}

// stallCheck starts or ends a stall at t from the receiver's last window and the highest
// byte sent. Bytes sent beyond the window's right edge (more than a zero-window probe's
// one) say that the window seen is stale, the ACKs that opened it missed by the capture (a
// capture of one direction): no stall, where one lasted to the end of such a capture.
func (d *dir) stallCheck(t int64) {
	w := &d.rw
	stale := w.edgeOK && d.st.highest > w.edge+1
	full := !stale && (w.zero || w.edgeOK && w.maxSeg > 0 && w.edge-d.st.highest < w.maxSeg)
	switch {
	case stale && w.on:
		w.on = false // the window it seemed to fill was not the receiver's last
	case full && !w.on && w.rn > 0 && t-w.recent[(w.rn-1)%len(w.recent)].end <= d.c.rtt():
		// Full again within a round trip of opening: the same stall, the sender draining
		// through a window the receiver opens an ACK at a time (next to the sender, a real
		// receiver that stopped reading twice made 294 stalls of it). It is taken back and
		// goes on from its start.
		w.rn--
		w.count--
		w.on, w.start = true, w.recent[w.rn%len(w.recent)].start
	case full && !w.on:
		w.on, w.start = true, t
	case !full && w.on:
		w.end(t)
	}
}

func (w *rwnd) end(t int64) {
	w.on = false
	w.count++
	w.longest = max(w.longest, t-w.start)
	w.recent[w.rn%len(w.recent)] = span{w.start, t}
	w.rn++
}

// stalled says whether a stall is on or was ever seen.
func (w *rwnd) stalled() bool { return w.on || w.rn > 0 }

// held reports whether a message first seen at first was held by the window: first seen
// during a stall, or at most budget after one ended, and lag: the time from the end of a
// stall as this vantage saw it to the sender's first segment after it reaching it (0 next
// to the sender; a round trip next to the receiver, whose window update travels to the
// sender and its data back). It matters for late messages: one late by more than the
// budget that went out within the budget of the window opening had been ready while the
// window was shut.
func (w *rwnd) held(first, budget, lag int64) bool {
	if w.on && first >= w.start {
		return true
	}
	for i := range min(w.rn, len(w.recent)) {
		s := w.recent[i]
		if first >= s.start && first <= s.end+lag+budget {
			return true
		}
	}
	return false
}

// summary is the report's window_stalls: longest_ms is null without a stall.
func (w *rwnd) summary() report.WindowStalls {
	s := report.WindowStalls{Count: w.count}
	if w.count > 0 {
		v := numfmt.Round(float64(w.longest)/1e6, 3)
		s.LongestMS = &v
	}
	return s
}
