package analysis

import (
	"github.com/callpcap/callpcap/rtpflow"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// media runs the RTP analysis (rtpflow) on a goroutine of its own, a third stage after
// reading and demultiplexing: the two cores then share three stages, and the one that
// unframes TCP no longer also does every stream's accounting. What rtpflow is given goes
// across in batches of events in the order the analysis made them: RTP packets
// (rtpflow.Packet, with their extension elements copied), RTCP messages (their bytes
// copied) and what SDP said about payload types and RTX SSRCs. The tracker is read only after finish.
type media struct {
	tracker *rtpflow.Tracker
	cur     *mediaBatch
	full    chan *mediaBatch
	free    chan *mediaBatch
	done    chan struct{}
	// waitFull is where the media goroutine waits for events, waitFree where the analysis
	// waits for the media goroutine to give a batch back.
	waitFull, waitFree waiter
}

// mediaBatch is a run of events, with the bytes they point to.
type mediaBatch struct {
	events []mediaEvent
	pkts   []rtpflow.Packet
	rtcp   []rtcpEvent
	hints  []rtpflow.PayloadHint
	fids   []rtpflow.FIDHint
	bytes  []byte // extension elements and RTCP messages; a new array when it would grow
}

// A batch ends at mediaBatchEvents events or mediaBatchBytes bytes, and mediaBatches exist:
// enough that the media goroutine can fall a while behind before the analysis waits for it.
const (
	mediaBatchEvents = 1024
	mediaBatchBytes  = 64 << 10
	mediaBatches     = 8
)

type mediaEvent struct {
	kind mediaKind
	i    int32 // index in the batch's slice of that kind
}

type mediaKind uint8

const (
	eventRTP mediaKind = iota
	eventRTCP
	eventHint
	eventFID
)

type rtcpEvent struct {
	path rtpflow.Path
	msg  transport.Message // Payload in the batch's bytes; Delivered, Snapped
}

func newMedia(cfg rtpflow.Config) *media {
	md := &media{tracker: rtpflow.NewTracker(cfg), full: make(chan *mediaBatch, mediaBatches),
		free: make(chan *mediaBatch, mediaBatches), done: make(chan struct{})}
	// Made at their full size: grown by append, the batches' arrays were made five times
	// over, 3 MB more memory to touch for the first time (docs/speed.md).
	for range mediaBatches {
		md.free <- &mediaBatch{events: make([]mediaEvent, 0, mediaBatchEvents), pkts: make([]rtpflow.Packet, 0, mediaBatchEvents),
			bytes: make([]byte, 0, mediaBatchBytes)}
	}
	md.cur = <-md.free
	go md.run()
	return md
}

func (md *media) run() {
	defer close(md.done)
	for {
		b, ok := recv(&md.waitFull, md.full, nil)
		if !ok {
			return
		}
		for _, ev := range b.events {
			switch ev.kind {
			case eventRTP:
				md.tracker.RTP(&b.pkts[ev.i])
			case eventRTCP:
				e := &b.rtcp[ev.i]
				md.tracker.RTCP(e.path, &e.msg)
			case eventHint:
				md.tracker.Hint(b.hints[ev.i])
			case eventFID:
				md.tracker.HintFID(b.fids[ev.i])
			}
		}
		b.events, b.pkts, b.rtcp, b.hints, b.fids, b.bytes = b.events[:0], b.pkts[:0], b.rtcp[:0], b.hints[:0], b.fids[:0], b.bytes[:0]
		md.free <- b
	}
}

// rtp hands over the RTP packet m of path p, whose header the demux decoded as h, after
// steps steps of the capture's clock (rtpflow.Packet.TimeSteps); timeUnknown when its
// time stamp was corrupt (rtpflow.Packet.TimeUnknown).
func (md *media) rtp(p rtpflow.Path, m *transport.Message, h *wire.RTP, steps uint32, timeUnknown bool) {
	b := md.cur
	if n := len(b.pkts); n < cap(b.pkts) {
		b.pkts = b.pkts[:n+1] // PacketOf sets every field: a slot reused as it is
	} else {
		b.pkts = append(b.pkts, rtpflow.Packet{})
	}
	pk := &b.pkts[len(b.pkts)-1]
	rtpflow.PacketOf(pk, p, m, h)
	pk.TimeSteps, pk.TimeUnknown = steps, timeUnknown
	pk.ExtBody = b.keep(pk.ExtBody)
	md.add(eventRTP, len(b.pkts)-1)
}

// rtcp hands over the RTCP message m of path p.
func (md *media) rtcp(p rtpflow.Path, m *transport.Message) {
	b := md.cur
	b.rtcp = append(b.rtcp, rtcpEvent{path: p, msg: transport.Message{Payload: b.keep(m.Payload), FirstSeen: m.FirstSeen, Delivered: m.Delivered, Snapped: m.Snapped}})
	md.add(eventRTCP, len(b.rtcp)-1)
}

// hint hands over what SDP said about a payload type.
func (md *media) hint(h rtpflow.PayloadHint) {
	b := md.cur
	b.hints = append(b.hints, h)
	md.add(eventHint, len(b.hints)-1)
}

// hintFID hands over an SDP ssrc-group:FID pair.
func (md *media) hintFID(h rtpflow.FIDHint) {
	b := md.cur
	b.fids = append(b.fids, h)
	md.add(eventFID, len(b.fids)-1)
}

func (md *media) add(k mediaKind, i int) {
	b := md.cur
	b.events = append(b.events, mediaEvent{kind: k, i: int32(i)})
	if len(b.events) >= mediaBatchEvents || len(b.bytes) >= mediaBatchBytes {
		md.flush()
	}
}

func (md *media) flush() {
	if len(md.cur.events) == 0 {
		return
	}
	md.full <- md.cur
	md.cur, _ = recv(&md.waitFree, md.free, nil)
	reclaim(md.cur.events)
	reclaim(md.cur.pkts)
}

// finish waits for every event to be analysed; the tracker may be read afterwards.
func (md *media) finish() {
	md.flush()
	close(md.full)
	<-md.done
}

// keep copies b into the batch's bytes. The copy stays where it is when the bytes grow
// (append moves only what later copies see).
func (b *mediaBatch) keep(x []byte) []byte {
	if x == nil {
		return nil
	}
	n := len(b.bytes)
	b.bytes = append(b.bytes, x...)
	return b.bytes[n:len(b.bytes):len(b.bytes)]
}
