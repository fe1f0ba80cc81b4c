package tcpframe

import (
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/transport"
)

// The same TURN-over-TCP connection fed to Conn and to gopacket's reassembly: why we keep a
// reassembler of our own rather than gopacket/reassembly is measured here, on identical
// segments.

const (
	cmpSegments = 20000 // data segments from A to B
	cmpDropEach = 1000  // one data segment in cmpDropEach is lost before the capture...
	cmpResend   = 300   // ...and resent this many ms later
	cmpISNA     = 1000
	cmpISNB     = 5000
)

// cmpTrace is a connection's segments in capture order, as capture.Packets and as the
// layers.TCP (with their flow and capture time) gopacket's assembler takes.
type cmpTrace struct {
	pkts     []*capture.Packet
	tcps     []layers.TCP
	flows    []gopacket.Flow
	ctxs     []cmpContext
	wire     int64 // payload bytes of every segment, copies included
	distinct int64 // payload bytes of A to B, each counted once
}

// cmpContext is the reassembly.AssemblerContext carrying a segment's capture time.
type cmpContext struct{ ci gopacket.CaptureInfo }

func (c *cmpContext) GetCaptureInfo() gopacket.CaptureInfo { return c.ci }

// newCmpTrace builds the handshake, then cmpSegments ChannelData frames of 1200 bytes from A,
// one every ms, each followed 0.1 ms later by B's cumulative ACK (a capture next to the
// receiver, RTT 40 ms). One data segment in cmpDropEach never reaches the capture: B sends no
// ACK for it and the ACKs after it stay at the hole until the copy arrives cmpResend ms later
// (half a slot more, so that capture times stay in order).
func newCmpTrace() *cmpTrace {
	type ev struct {
		t    int64
		data int // index of the data segment, -1 for B's ACK
		ack  uint32
	}
	evs := make([]ev, 0, 2*cmpSegments+cmpSegments/cmpDropEach*2)
	const first = cmpISNA + 1
	seqOf := func(i int) uint32 { return first + uint32(i)*1200 }
	var resends []ev // pending copies, in time order
	hole := -1       // data segment B is missing, -1 none
	acked := func(upto int) uint32 {
		if hole >= 0 {
			return seqOf(hole)
		}
		return seqOf(upto + 1)
	}
	for i := range cmpSegments {
		t := ms(41) + int64(i)*ms(1)
		for len(resends) > 0 && resends[0].t < t {
			r := resends[0]
			resends = resends[1:]
			evs = append(evs, r)
			hole = -1
			evs = append(evs, ev{t: r.t + ms(0.1), data: -1, ack: acked(i - 1)})
		}
		if i%cmpDropEach == cmpDropEach/2 {
			hole = i
			resends = append(resends, ev{t: t + ms(cmpResend+0.5), data: i}) // between two slots
			continue
		}
		evs = append(evs, ev{t: t, data: i})
		evs = append(evs, ev{t: t + ms(0.1), data: -1, ack: acked(i)})
	}
	for _, r := range resends {
		evs = append(evs, r)
		hole = -1
		evs = append(evs, ev{t: r.t + ms(0.1), data: -1, ack: acked(cmpSegments - 1)})
	}

	tr := &cmpTrace{}
	tr.pkts = append(tr.pkts,
		seg(0, true, fSYN, cmpISNA, 0, nil),
		seg(ms(0.05), false, fSYN|fACK, cmpISNB, cmpISNA+1, nil),
		seg(ms(40), true, fACK, cmpISNA+1, cmpISNB+1, nil))
	for _, e := range evs {
		if e.data < 0 {
			tr.pkts = append(tr.pkts, seg(e.t, false, fACK, cmpISNB+1, e.ack, nil))
			continue
		}
		payload := channelData(0x4000, 1196, true, byte(e.data))
		tr.pkts = append(tr.pkts, seg(e.t, true, fACK|fPSH, seqOf(e.data), cmpISNB+1, payload))
		tr.distinct += int64(len(payload))
	}

	a4, b4 := addrA.Addr().As4(), addrB.Addr().As4()
	ab := gopacket.NewFlow(layers.EndpointIPv4, a4[:], b4[:])
	ba := ab.Reverse()
	tr.tcps = make([]layers.TCP, len(tr.pkts))
	tr.flows = make([]gopacket.Flow, len(tr.pkts))
	tr.ctxs = make([]cmpContext, len(tr.pkts))
	for i, p := range tr.pkts {
		f := p.TCP.Flags
		tcp := &tr.tcps[i]
		*tcp = layers.TCP{
			SrcPort: layers.TCPPort(p.SrcPort), DstPort: layers.TCPPort(p.DstPort),
			Seq: p.TCP.Seq, Ack: p.TCP.Ack, DataOffset: 5, Window: p.TCP.Window,
			FIN: f&fFIN != 0, SYN: f&fSYN != 0, RST: f&fRST != 0, PSH: f&fPSH != 0, ACK: f&fACK != 0,
		}
		tcp.Payload = p.Payload
		tcp.SetInternalPortsForTesting() // TransportFlow reads the ports a decode would set
		tr.flows[i] = ab
		if p.SrcAddrPort() != addrA {
			tr.flows[i] = ba
		}
		tr.ctxs[i].ci = gopacket.CaptureInfo{
			Timestamp: time.Unix(0, p.Time), CaptureLength: p.CapLen, Length: p.WireLen,
		}
		tr.wire += int64(len(p.Payload))
	}
	return tr
}

// cmpConn counts what Conn emits.
type cmpConn struct {
	msgs, bytesAB int64
	emitFn        func(m *transport.Message)
}

func newCmpConn() *cmpConn {
	c := &cmpConn{}
	c.emitFn = c.emit
	return c
}

func (c *cmpConn) emit(m *transport.Message) {
	c.msgs++
	if m.Src == addrA {
		c.bytesAB += m.Len() + m.Wire.Framing // stream bytes: the frame, header included
	}
}

func (c *cmpConn) run(tr *cmpTrace) *Conn {
	conn := NewConn(Config{}, addrA, addrB)
	for _, p := range tr.pkts {
		conn.Segment(p, c.emitFn)
	}
	conn.Close(c.emitFn)
	return conn
}

// cmpStream is the least a reassembly.Stream does: count the bytes handed over in order.
type cmpStream struct {
	bytes   [2]int64 // client to server (A to B), server to client
	skipped int64
	calls   int64
}

func (s *cmpStream) Accept(*layers.TCP, gopacket.CaptureInfo, reassembly.TCPFlowDirection,
	reassembly.Sequence, *bool, reassembly.AssemblerContext) bool {
	return true
}

func (s *cmpStream) ReassembledSG(sg reassembly.ScatterGather, _ reassembly.AssemblerContext) {
	s.calls++
	n, _ := sg.Lengths()
	dir, _, _, skip := sg.Info()
	if skip > 0 {
		s.skipped += int64(skip)
	}
	if n == 0 {
		return
	}
	b := sg.Fetch(n)
	i := 0
	if dir == reassembly.TCPDirServerToClient {
		i = 1
	}
	s.bytes[i] += int64(len(b))
}

func (s *cmpStream) ReassemblyComplete(reassembly.AssemblerContext) bool { return true }

// cmpFactory hands out one cmpStream per connection, made beforehand.
type cmpFactory struct{ s *cmpStream }

func (f *cmpFactory) New(_, _ gopacket.Flow, _ *layers.TCP, _ reassembly.AssemblerContext) reassembly.Stream {
	return f.s
}

func runGopacket(tr *cmpTrace, s *cmpStream) {
	a := reassembly.NewAssembler(reassembly.NewStreamPool(&cmpFactory{s: s}))
	for i := range tr.tcps {
		a.AssembleWithContext(tr.flows[i], &tr.tcps[i], &tr.ctxs[i])
	}
	a.FlushAll()
}

func TestReassemblersAgree(t *testing.T) {
	tr := newCmpTrace()
	if want := int64(cmpSegments * 1200); tr.distinct != want {
		t.Fatalf("trace carries %d distinct bytes, want %d", tr.distinct, want)
	}
	for i := 1; i < len(tr.pkts); i++ {
		if tr.pkts[i].Time < tr.pkts[i-1].Time {
			t.Fatalf("segment %d goes back in time", i)
		}
	}
	c := newCmpConn()
	sum := c.run(tr).Summary().AToB
	if lost := int64(cmpSegments / cmpDropEach); sum.RetransmittedSegments != lost || sum.CaptureGapBytes != 0 ||
		sum.StreamBytes != tr.distinct {
		t.Errorf("tcpframe: %d retransmitted segments (want %d), %d capture gap bytes, %d stream bytes",
			sum.RetransmittedSegments, lost, sum.CaptureGapBytes, sum.StreamBytes)
	}
	var s cmpStream
	runGopacket(tr, &s)
	if c.msgs != cmpSegments {
		t.Errorf("tcpframe emitted %d messages, want %d", c.msgs, cmpSegments)
	}
	if c.bytesAB != tr.distinct || s.bytes[0] != tr.distinct {
		t.Errorf("A to B stream bytes: tcpframe %d, gopacket %d, want %d", c.bytesAB, s.bytes[0], tr.distinct)
	}
	if s.bytes[1] != 0 || s.skipped != 0 {
		t.Errorf("gopacket: %d bytes B to A, %d skipped", s.bytes[1], s.skipped)
	}
}

func BenchmarkReassembly(b *testing.B) {
	tr := newCmpTrace()
	perSegment := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tr.pkts)), "ns/segment")
	}
	b.Run("tcpframe", func(b *testing.B) {
		c := newCmpConn()
		b.ReportAllocs()
		b.SetBytes(tr.wire)
		for b.Loop() {
			c.run(tr)
		}
		perSegment(b)
		if c.msgs == 0 {
			b.Fatal("no message")
		}
	})
	b.Run("gopacket", func(b *testing.B) {
		var s cmpStream
		b.ReportAllocs()
		b.SetBytes(tr.wire)
		for b.Loop() {
			runGopacket(tr, &s)
		}
		perSegment(b)
		if s.bytes[0] == 0 {
			b.Fatal("no byte")
		}
	})
}
