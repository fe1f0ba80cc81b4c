package tcpframe

import (
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/transport"
)

// inOrder feeds in-order TURN-over-TCP segments, each carrying one ChannelData message of
// 1200 bytes, with an ACK from the receiver every second segment (a capture next to the
// receiver: messages are emitted as soon as they are in order).
type inOrder struct {
	c      *Conn
	data   *capture.Packet
	ack    *capture.Packet
	seq    uint32
	i      int
	msgs   int
	emitFn func(m *transport.Message) // bound once: a method value per call would allocate
}

func newInOrder() *inOrder {
	s := &inOrder{c: NewConn(Config{}, addrA, addrB)}
	s.emitFn = s.emit
	payload := channelData(0x4000, 1196, true, 0x80)
	s.data = seg(0, true, fACK|fPSH, 0, 5001, payload)
	s.ack = seg(0, false, fACK, 5001, 0, nil)
	s.feed(seg(0, true, fSYN, 1000, 0, nil))
	s.feed(seg(ms(0.05), false, fSYN|fACK, 5000, 1001, nil))
	s.feed(seg(ms(60), true, fACK, 1001, 5001, nil))
	s.seq = 1001
	return s
}

func (s *inOrder) emit(m *transport.Message) { s.msgs++ }

func (s *inOrder) feed(p *capture.Packet) { s.c.Segment(p, s.emitFn) }

func (s *inOrder) step() {
	s.i++
	t := ms(100) + int64(s.i)*ms(1)
	s.data.Time, s.data.TCP.Seq = t, s.seq
	s.seq += uint32(len(s.data.Payload))
	s.feed(s.data)
	if s.i%2 == 0 {
		s.ack.Time, s.ack.TCP.Ack = t+ms(0.1), s.seq
		s.feed(s.ack)
	}
}

func TestInOrderAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations differ under -race")
	}
	s := newInOrder()
	for range 5000 { // grow the buffers and settle the vantage
		s.step()
	}
	if v := s.c.dirs[0].vantage(); v != VantageReceiver {
		t.Fatalf("vantage %v", v)
	}
	before := s.msgs
	if a := testing.AllocsPerRun(1000, s.step); a != 0 {
		t.Errorf("%v allocations per segment on the in-order path", a)
	}
	if s.msgs-before < 1000 {
		t.Errorf("%d messages emitted for 1000 segments", s.msgs-before)
	}
}

func BenchmarkConn(b *testing.B) {
	s := newInOrder()
	b.ReportAllocs()
	b.SetBytes(int64(len(s.data.Payload)))
	for b.Loop() {
		s.step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/segment")
}
