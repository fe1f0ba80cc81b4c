package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/demux"
	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/rtpflow"
	"github.com/callpcap/callpcap/tcpframe"
	"github.com/callpcap/callpcap/transport"
)

// ErrUnreadable wraps every error that means the input is not a capture this tool can read;
// the command maps it to exit code 1.
var ErrUnreadable = errors.New("not a readable capture")

// unreadableError is an input that is not a readable capture. It is ErrUnreadable and its
// cause, but says only the file's name and the cause: the cause says what is wrong already
// ("notes.txt: not a capture file: unknown magic number 68656c6c").
type unreadableError struct {
	name string
	err  error
}

func (e *unreadableError) Error() string   { return e.name + ": " + e.err.Error() }
func (e *unreadableError) Unwrap() []error { return []error{ErrUnreadable, e.err} }

// maxIfaceCounts bounds the per-interface counts of snapped packets.
const maxIfaceCounts = 64

// Analyze reads one capture from r and returns its report. name is the file as given on the
// command line. An input that is not a readable capture returns a Capture with Error set and
// an error wrapping ErrUnreadable; a capture that breaks off part way returns what was read,
// Truncated and a warning, and no error.
//
// When ctx is done, the reading stops at the next batch of packets, or at once when r's Read
// returns (give a reader that returns when ctx is done to stop a read that blocks, such as
// standard input from an idle pipe), and the report covers what was read: Interrupted, and a
// warning naming context.Cause(ctx), which should say what stopped it ("SIGINT").
func Analyze(ctx context.Context, name string, r io.Reader, opts Options) (report.Capture, error) {
	rd, err := capture.Open(r)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("read interrupted by %v before the capture's header", context.Cause(ctx))
		}
		return report.Capture{File: name, Error: err.Error()}, &unreadableError{name, err}
	}
	a := newAnalyzer(opts)
	a.run(ctx, rd)
	return a.build(name, rd), nil
}

// analyzer holds the state of one capture's analysis.
type analyzer struct {
	opts Options
	// marks are what a Linux cooked capture marked of each endpoint (captureMarks): +1 the
	// capture host's own, -1 another's; once the capture is read.
	marks map[netip.AddrPort]int8
	// atSenderEP are the capture host's own endpoints (atSender), once the capture is read.
	atSenderEP map[netip.AddrPort]bool
	// reportsHere are the streams whose receiver reports were captured where they left
	// (reportsAtSender), once the capture is read: their round trips are null.
	reportsHere map[*rtpflow.Stream]bool
	turn        *demux.Tracker
	media       *media // the RTP analysis, on a goroutine of its own; its tracker is read after run
	dedup       dedup

	flows      map[flowKey]*flow
	flowList   []*flow
	flowsOver  int64 // flows not tracked beyond MaxFlows
	cache      flowCache
	rtpInvalid int64 // messages in RTP's range whose header did not decode
	rtpCut     int64 // messages in RTP's range the snap length cut inside the fixed header
	// RTP packets the snap length cut inside their header extension's length (wire.RTP.ExtLenCut)
	rtpExtLenCut int64
	// signalTooLong counts signalling messages over TCP not read for SDP: longer than
	// 64 KiB (demux.Signalling.TooLong)
	signalTooLong int64

	packets, wire               int64
	first, prev                 int64
	lo, hi                      int64 // the span of the packets' capture times
	shift                       int64 // added to every capture time: the steps so far (packet)
	snapped, undecodable, dups  int64
	snappedIn                   []int64 // snapped packets per capture interface
	snappedHeaders              int64   // undecodable because the snap length cut their headers
	unknownLink, nonIP, ipOther int64
	// echoes are the frames of Echo repeats (capture.Packet.Echo) not counted yet: a second
	// copy of their datagram counts them when it completes (echoed), the others count as
	// repeats when the capture ends (run).
	echoes                 []repeatFrame
	truncated, interrupted bool
	warnings               []string
	moreWarnings           int64 // warnings beyond maxWarnings
	jumps                  int64 // steps in capture time (more than timeJump between two packets)
	timeUnknown            bool  // the packet being analysed was stamped with a clock jump (clockJump)
	touched                byte  // what touchBatch read, kept so that its loads stay
	clockJumps             int64 // packets whose time stamp was a clock jump (clockJump)
	clamped                int64 // packets stamped beyond ±maxTime (clampTime)

	demux  demux.Classifier  // classifies each message, keeping the RTP header it decoded
	inner  transport.Message // reused for TURN-unwrapped datagrams
	nested transport.Message // an indication inside TURN: parsed, never unwrapped again
	cur    *flow             // the TCP flow whose segment is being fed, for emit
	relay  relayTracker      // the two legs of a relay, at a TURN server capture
	// rtcpFlows are the flows of RTCP that the UDP flows of RTP have besides (rtcpFlowsOf),
	// once the capture is read.
	rtcpFlows map[*flow][]*flow
	learn     relayLearner // a relay's address and channels from its traffic, when not signalled
	// unreported sums RTP messages in no stream by path, for the directions' wire (build)
	unreported map[rtpflow.Path]rtpflow.Carried
	emit       func(*transport.Message)
	datagram   transport.Message // the message of the UDP datagram being analysed (packet)
	// TCP flows fed packets of the current batch and of the one before (lentPrev): their
	// Conns may point into both (Config.BorrowPayload), and batchNo numbers the batches.
	lent, lentPrev []*flow
	batchNo        int
}

func newAnalyzer(opts Options) *analyzer {
	a := &analyzer{
		opts:  opts,
		turn:  demux.NewTracker(),
		flows: make(map[flowKey]*flow),
	}
	a.emit = a.tcpMessage
	return a
}

// rtp is the RTP tracker, which the media goroutine feeds until run returns: read it after.
func (a *analyzer) rtp() *rtpflow.Tracker { return a.media.tracker }

func (a *analyzer) warnf(format string, args ...any) {
	if len(a.warnings) < maxWarnings {
		a.warnings = append(a.warnings, fmt.Sprintf(format, args...))
		return
	}
	a.moreWarnings++
}

// maxWarnings bounds the warnings listed; those beyond are counted in a last one
// (listedWarnings).
const maxWarnings = 50

// listedWarnings returns the warnings, with a last one that counts those left out.
func (a *analyzer) listedWarnings() []string {
	if a.moreWarnings == 0 {
		return a.warnings
	}
	return append(a.warnings, numfmt.Count(a.moreWarnings, "more warning", "more warnings")+" not listed")
}

func (a *analyzer) run(ctx context.Context, rd *capture.Reader) {
	// Reading and decoding run on their own goroutine (see readBatches), and so does the RTP
	// analysis (media).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.media = newMedia(rtpflow.Config{LateBudget: a.opts.lateBudget(), MinPackets: a.opts.minPackets(),
		RampTargetKbps: a.opts.RampTargetKbps})
	defer a.media.finish()
	batches := readBatches(ctx, rd)
	// Each batch goes back to the reader one batch late: the TCP connections keep pointing
	// into the packets of the batch before the current one (tcpframe's Detach), so that the
	// messages they hold back for about a round trip are rarely copied.
	//
	// Whether a packet's time stamp is a clock jump depends on the packet after it: the last
	// packet of a batch waits for the first of the next batch (fetched, not yet analysed).
	var prev *batch
	atEnd := false // the reading reached the end of the capture
	b, ok := batches.next()
	for ok {
		a.batchNo++
		n := len(b.pkts)
		a.touched ^= touchBatch(b.pkts)
		for i := range n - 1 {
			a.packet(&b.pkts[i], b.digests[i], b.pkts[i+1].Time, true)
		}
		var nb *batch
		nok := false
		if b.err == nil {
			nb, nok = batches.next()
		}
		if n > 0 {
			hasNext := nok && len(nb.pkts) > 0
			var next int64
			if hasNext {
				next = nb.pkts[0].Time
			}
			a.packet(&b.pkts[n-1], b.digests[n-1], next, hasNext)
		}
		if err := b.err; err != nil {
			atEnd = err == io.EOF
			if err != io.EOF && ctx.Err() == nil {
				// Damage after a readable header: keep what was read, say so.
				a.truncated = true
				a.warnf("%v: the report covers the %d packets before it", err, a.packets)
			}
			break
		}
		a.detach()
		if prev != nil {
			batches.release(prev)
		}
		prev = b
		b, ok = nb, nok
	}
	// The reader's goroutine has ended (it sent its last batch, or closed the pipe): what
	// it read is analysed in full, whether or not ctx stopped it.
	if ctx.Err() != nil && !atEnd {
		a.interrupted = true
		// Past the cap of warnf: the one warning that says the report is partial.
		a.warnings = append(a.warnings, fmt.Sprintf("read interrupted by %v after %d packets: the report covers only what was read",
			context.Cause(ctx), a.packets))
	}
	for _, f := range a.flowList {
		if f.conn != nil && !f.closed {
			a.cur = f
			f.conn.Close(a.emit)
		}
	}
	for _, e := range a.echoes { // no second copy completed: repeats
		a.repeatedFragment(e)
	}
}

// reopen ends flow f, whose addresses and ports a new TCP connection reuses (its SYN from
// src to dst at t), and starts the flow of that connection; nil beyond the cap of flows,
// and then the packets go on in f.
func (a *analyzer) reopen(f *flow, src, dst netip.AddrPort, t int64) *flow {
	k := keyOf(src, dst, transport.TCP)
	g := a.newFlow(k, src, dst, transport.TCP, t)
	if g == nil {
		return f
	}
	a.cur = f
	f.conn.Close(a.emit)
	f.closed = true
	a.turn.ConnectionClosed(src, dst)
	*a.cache.slot(src, dst) = g
	return g
}

// touchBatch reads the first bytes of every payload in a batch, in one loop, before the
// batch is analysed, and returns them XORed (for the caller to keep). The reader's core
// copied them out of the page cache and still holds them: read packet by packet, as the
// analysis reads them (the TCP framing probe, then the demux's ChannelData and RTP
// headers), each costs a round trip to that core in turn; loaded together, the trips
// overlap. Two bytes, 48 apart, reach the lines those headers lie in. Of a TCP segment that
// is not one whole frame it reads a byte of every line: the unframer reads the head of each
// frame in it, which may lie on any of them (tcpframe.IsWholeFrame); without, eight TCP
// calls took 1.22x as long, and with a byte of every other line no less. It also reads the
// first and the last line of each packet's struct, the time (read first) and the TCP
// header, which the reader wrote on its core: the analysis stalled on them packet by packet
// otherwise (docs/speed.md). It runs right before the batch is analysed, not when the pipe
// hands the batch over: the detach and release of the batch before would come in between
// and push the lines out again.
func touchBatch(pkts []capture.Packet) byte {
	var x byte
	for i := range pkts {
		x ^= byte(pkts[i].Time) ^ pkts[i].TCP.Flags
		b := pkts[i].Payload
		if len(b) == 0 {
			continue
		}
		x ^= b[0] ^ b[min(len(b)-1, 48)]
		if pkts[i].Kind == capture.KindTCP && len(b) > 112 && !tcpframe.IsWholeFrame(b) {
			for j := 112; j < len(b); j += 64 {
				x ^= b[j]
			}
		}
	}
	return x
}

// detach makes the TCP connections fed in the current or the previous batch copy what they
// still hold of the previous batch's packets, before that batch goes back to the reader.
func (a *analyzer) detach() {
	for _, f := range a.lentPrev {
		f.conn.Detach()
		f.detached = a.batchNo
	}
	for _, f := range a.lent {
		if f.detached != a.batchNo {
			f.conn.Detach()
		}
	}
	clear(a.lentPrev)
	a.lentPrev, a.lent = a.lent, a.lentPrev[:0]
}

// packet analyses one packet; next is the time stamp of the packet after it, if hasNext.
// A packet whose stamp is a clock jump is analysed at the time of the packet before it (or,
// first in the file, of the one after it): its stamp says nothing, its place in the file
// says when it was seen. So the capture's span, the flows', the streams' and their series
// are those of the call, not of a corrupt clock.
func (a *analyzer) packet(p *capture.Packet, dg digests, next int64, hasNext bool) {
	if p.Time > maxTime || p.Time < -maxTime {
		a.clamped++
	}
	p.Time = moved(p.Time, a.shift)
	next = moved(next, a.shift)
	if a.timeUnknown = clockJump(p.Time, a.prev, next, a.packets > 0, hasNext); a.timeUnknown { // one line: the profile's (default.pgo) call sites are by line
		a.clockJumps++
		if a.packets > 0 {
			p.Time = a.prev
		} else {
			p.Time = next
		}
	}
	if a.packets == 0 {
		a.first, a.prev, a.lo, a.hi = p.Time, p.Time, p.Time, p.Time
	}
	a.packets++
	a.wire += int64(p.FrameLen)
	if d := p.Time - a.prev; d > timeJump || d < -backStep {
		// A step: the packets from here on agree with each other, not with those before (a
		// file merged from captures taken apart, a clock set while capturing). The time
		// between the two was not captured: from here on every time moves by the step, so
		// that the capture's timeline runs on from the packet before it. Durations, rates,
		// jitter, delays and series then see the call as it was captured, with no hours of
		// silence in it, no packet before its first second, and no seconds counted twice.
		a.jumps++
		if a.jumps <= 3 {
			unit := time.Second // seconds are enough for a step of hours
			if d > -int64(time.Minute) && d < int64(time.Minute) {
				unit = time.Millisecond
			}
			a.warnf("capture time jumps by %s at packet %d: the times after it are moved to follow the packet before",
				time.Duration(d).Round(unit), a.packets)
		}
		a.shift = clampTime(a.shift - clampTime(d))
		p.Time = a.prev
	}
	a.prev = p.Time
	a.lo, a.hi = min(a.lo, p.Time), max(a.hi, p.Time)
	if p.CapLen < p.FrameLen {
		a.snapped++
		if p.Iface < maxIfaceCounts {
			for len(a.snappedIn) <= p.Iface {
				a.snappedIn = append(a.snappedIn, 0)
			}
			a.snappedIn[p.Iface]++
		}
	}
	switch p.Kind {
	case capture.KindUndecodable:
		a.undecodable++
		if p.Snapped {
			a.snappedHeaders++
		}
		return
	case capture.KindUnknownLink:
		a.unknownLink++
		return
	case capture.KindNonIP:
		a.nonIP++
		return
	case capture.KindIPOther:
		a.ipOther++
		switch {
		case p.Echo:
			a.echo(p)
		case p.Repeat:
			a.repeatedFragment(repeatFrame{p.SrcAddrPort(), p.DstAddrPort(), transportOf(p), p.Time, int64(p.FrameLen), 0})
		}
		return
	}
	if p.Echo {
		a.echoed(p)
	}
	// A datagram rebuilt from fragments is as many packets as the frames that carried it,
	// for the counts of packets (as tshark's conversations count frames) and of capture
	// duplicates; its WireLen is their bytes.
	frames := max(int64(p.Fragments), 1)
	if a.dedup.seen(p, dg) {
		a.dups += frames
		return
	}
	proto := transport.UDP
	if p.Kind == capture.KindTCP {
		proto = transport.TCP
	}
	src, dst := p.SrcAddrPort(), p.DstAddrPort()
	f := a.flow(src, dst, proto, p.Time)
	if f != nil && f.conn != nil && p.TCP.Flags&capture.FlagSYN != 0 && f.conn.Reopens(p) { // the flag first: one test a segment
		f = a.reopen(f, src, dst, p.Time)
	}
	if f == nil {
		return
	}
	f.packets += frames
	f.wire += int64(p.WireLen)
	f.first, f.last = min(f.first, p.Time), max(f.last, p.Time)
	s := &f.sides[f.dir(src)]
	s.packets += frames
	s.wire += int64(p.WireLen)
	if out, marked := p.Outgoing(); marked {
		s.sentHere, s.arrived = s.sentHere || out, s.arrived || !out
	}

	if proto == transport.TCP {
		if f.conn == nil {
			// The batch's packets stay put until run gives it back: the Conn may point into
			// them until then (detach).
			f.conn = tcpframe.NewConn(tcpframe.Config{LateBudget: a.opts.lateBudget(), BorrowPayload: true, HeadsOnly: !a.opts.wholeMessages,
				Framing: a.opts.forcedFraming(f.a.Port(), f.b.Port()),
				Text:    func(src netip.AddrPort, b []byte) { a.tcpText(f, src, b) }}, f.a, f.b)
		}
		a.cur = f
		f.conn.Segment(p, a.emit)
		if !f.turn && f.conn.Framing() == tcpframe.FramingTURN {
			// From its first segment, not its first message, which tcpframe may hold back
			// for an ACK: the relay learner must see the datagrams relayed meanwhile.
			a.turnFlow(f)
		}
		if p.TCP.Flags&(capture.FlagFIN|capture.FlagRST) != 0 && f.turn && !f.ended {
			// Its allocation ended with it: the peer's packets after this had nothing to
			// forward them (relayTracker.deleted).
			f.ended = true
			a.turn.ConnectionEnded(src, dst, p.Time)
			a.relay.allocated(a)
		}
		if f.lentIn != a.batchNo {
			f.lentIn = a.batchNo
			a.lent = append(a.lent, f)
		}
		return
	}
	// Field by field into one Message kept for datagrams: a composite literal zeroed and
	// filled a new one of 30 words a packet. The fields a datagram leaves zero (framing,
	// retransmissions, hold, stream position, TURN wrapping) are never set on it.
	m := &a.datagram
	m.Payload, m.Proto, m.Src, m.Dst, m.Iface = p.Payload, transport.UDP, src, dst, p.Iface
	m.FirstSeen, m.Complete, m.Delivered = p.Time, p.Time, p.Time
	m.Wire.Total, m.Wire.Headers = int64(p.WireLen), int64(p.WireLen-p.PayloadLen)
	m.Snapped = p.Snapped
	a.message(f, m, true)
}
