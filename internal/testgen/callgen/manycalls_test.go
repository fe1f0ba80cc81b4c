package callgen

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/netip"
	"sort"
	"testing"
	"time"

	"github.com/callpcap/callpcap/capture"
)

// readAll reads a capture back, copying each packet (payload included).
func readAll(t *testing.T, b []byte) []capture.Packet {
	t.Helper()
	rd, err := capture.Open(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out []capture.Packet
	for {
		var p capture.Packet
		err := rd.Next(&p)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		p.Payload, p.Data = bytes.Clone(p.Payload), nil
		out = append(out, p)
	}
}

// benchBytes writes a bench capture twice and checks that the two are the same bytes.
func benchBytes(t *testing.T, write func(io.Writer) error) []byte {
	t.Helper()
	var a, b bytes.Buffer
	if err := write(&a); err != nil {
		t.Fatal(err)
	}
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two runs wrote different bytes")
	}
	return a.Bytes()
}

// TestWriteUDPCallsBench checks the 40-call UDP capture against its construction: the
// packets asked for, in time order, 80 streams on 40 distinct address pairs with distinct
// SSRCs, call k starting at k*25 ms, and exactly the packets i%997 == 500 missing.
func TestWriteUDPCallsBench(t *testing.T) {
	const n, calls = 60_000, BenchUDPCalls
	pkts := readAll(t, benchBytes(t, func(w io.Writer) error { return WriteUDPCallsBench(w, calls, n) }))
	if len(pkts) != n {
		t.Fatalf("%d packets, want %d", len(pkts), n)
	}
	type key struct {
		src, dst netip.AddrPort
		ssrc     uint32
	}
	type stream struct {
		first    int64
		firstSeq uint16
		idx      []int
	}
	streams := map[key]*stream{}
	ssrcs := map[uint32]bool{}
	var last int64
	for i, p := range pkts {
		if p.Kind != capture.KindUDP || len(p.Payload) != 12+udpCallsVideoPayload {
			t.Fatalf("packet %d: kind %v, %d bytes of payload", i, p.Kind, len(p.Payload))
		}
		if p.Time < last {
			t.Fatalf("packet %d: time goes back", i)
		}
		last = p.Time
		k := key{p.SrcAddrPort(), p.DstAddrPort(), binary.BigEndian.Uint32(p.Payload[8:])}
		seq := binary.BigEndian.Uint16(p.Payload[2:])
		s := streams[k]
		if s == nil {
			s = &stream{first: p.Time, firstSeq: seq}
			streams[k] = s
			ssrcs[k.ssrc] = true
		}
		s.idx = append(s.idx, int(seq-s.firstSeq))
	}
	if len(streams) != 2*calls || len(ssrcs) != 2*calls {
		t.Fatalf("%d streams, %d SSRCs; want %d", len(streams), len(ssrcs), 2*calls)
	}
	for c := range calls {
		a, b := UDPCallAddrs(c)
		for dir, k := range []key{{a, b, benchSSRC(c, 0)}, {b, a, benchSSRC(c, 1)}} {
			s := streams[k]
			if s == nil {
				t.Fatalf("call %d: no stream %v", c, k)
			}
			start := callStart(c, calls) + time.Duration(dir)*udpCallsVideoInterval/2
			if s.first != Epoch+int64(start) || start >= time.Second {
				t.Errorf("call %d direction %d starts at %v, want %v", c, dir, time.Duration(s.first-Epoch), start)
			}
			// Every index up to the last one seen, but those lost; at least one is lost.
			var want []int
			lost := 0
			for i := 0; i <= s.idx[len(s.idx)-1]; i++ {
				if i%997 == 500 {
					lost++
					continue
				}
				want = append(want, i)
			}
			if !equalInts(s.idx, want) || lost == 0 {
				t.Errorf("call %d direction %d: %d packets not the %d expected (%d lost)", c, dir, len(s.idx), len(want), lost)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// tcpDir is what TestWriteTCPCallsBench gathers of one direction of one connection.
type tcpDir struct {
	isn      uint32
	segs     []tcpSeg // data segments in capture order
	wrapped  bool     // a sequence number below the ISN: the 32-bit space wrapped
	sackAcks []tcpAck // the other side's pure ACKs carrying SACK blocks for this direction
}

type tcpSeg struct{ off, end int64 } // stream offsets

type tcpAck struct {
	ack  int64 // stream offset acknowledged
	left int64 // the first SACK block's left edge, as a stream offset
}

// TestWriteTCPCallsBench checks the 8-call TURN/TCP capture against its construction: the
// packets asked for, in time order, 8 connections from their own clients to the one server,
// each opening with its SYN and its TURN Allocate (request and response); data segments of the MSS but for flushes;
// retransmitted exactly the segments chosen (index%1000 == 500 from the client, seen twice;
// 700 from the server, seen once, late), each loss answered by dup-ACKs whose first SACK
// block starts where the lost segment ends; and call 0's server sequence numbers wrapping.
func TestWriteTCPCallsBench(t *testing.T) {
	const n, calls = 50_000, BenchTCPCalls
	pkts := readAll(t, benchBytes(t, func(w io.Writer) error { return WriteTCPCallsBench(w, calls, n) }))
	if len(pkts) != n {
		t.Fatalf("%d packets, want %d", len(pkts), n)
	}
	conns := map[netip.AddrPort]*[2]tcpDir{} // by client
	var last int64
	var data, full int
	for i, p := range pkts {
		if p.Kind != capture.KindTCP {
			t.Fatalf("packet %d: kind %v", i, p.Kind)
		}
		if p.Time < last {
			t.Fatalf("packet %d: time goes back", i)
		}
		last = p.Time
		dir, client := 0, p.SrcAddrPort()
		if p.SrcAddrPort() == benchTCPServer {
			dir, client = 1, p.DstAddrPort()
		} else if p.DstAddrPort() != benchTCPServer {
			t.Fatalf("packet %d: %v -> %v, not to or from the server", i, p.SrcAddrPort(), p.DstAddrPort())
		}
		c := conns[client]
		if c == nil {
			if p.TCP.Flags != capture.FlagSYN {
				t.Fatalf("connection of %v: first packet is not a SYN", client)
			}
			c = &[2]tcpDir{}
			conns[client] = c
		}
		d := &c[dir]
		if p.TCP.Flags&capture.FlagSYN != 0 {
			d.isn = p.TCP.Seq
			continue
		}
		rel := func(seq uint32) int64 { return int64(seq - d.isn - 1) }
		if len(p.Payload) == 0 {
			if p.TCP.NSACK > 0 { // acknowledges the other direction
				o := &c[1-dir]
				ack, left := p.TCP.Ack-o.isn-1, p.TCP.SACK[0].Left-o.isn-1
				o.sackAcks = append(o.sackAcks, tcpAck{int64(ack), int64(left)})
			}
			continue
		}
		// STUN message type (RFC 8489 5): Allocate request 0x0003, success response 0x0103.
		if typ := binary.BigEndian.Uint16(p.Payload); len(d.segs) == 0 && typ != [2]uint16{0x0003, 0x0103}[dir] {
			t.Errorf("connection of %v direction %d: first data is STUN type %#04x, not the Allocate's", client, dir, typ)
		}
		d.wrapped = d.wrapped || p.TCP.Seq < d.isn
		d.segs = append(d.segs, tcpSeg{rel(p.TCP.Seq), rel(p.TCP.Seq) + int64(len(p.Payload))})
		data++
		switch {
		case len(p.Payload) == tcpCallsMSS:
			full++
		case len(p.Payload) > tcpCallsMSS:
			t.Errorf("a segment of %d bytes, over the MSS", len(p.Payload))
		}
	}
	if len(conns) != calls {
		t.Fatalf("%d connections, want %d", len(conns), calls)
	}
	// Flushes are the exception: the writes come faster than the flush delay.
	if full < data*9/10 {
		t.Errorf("%d of %d data segments are of the MSS, want 90%% at least", full, data)
	}
	for k := range calls {
		client, _, _, _ := TCPCallAddrs(k)
		c := conns[client]
		if c == nil {
			t.Fatalf("call %d: no connection from %v", k, client)
		}
		for dir, lostAt := range []int{500, 700} {
			checkRetransmissions(t, k, dir, &c[dir], lostAt)
		}
		if !c[1].wrapped != (k != 0) {
			t.Errorf("call %d: server sequence numbers wrapped %v, want %v", k, c[1].wrapped, k == 0)
		}
	}
}

// checkRetransmissions checks that the segments a direction carried again (behind bytes
// already seen) are exactly its first transmissions index%1000 == lostAt that the capture
// holds again, and that each hole had dup-ACKs SACKing the bytes beyond it.
func checkRetransmissions(t *testing.T, k, dir int, d *tcpDir, lostAt int) {
	t.Helper()
	// The segments in stream order are the first transmissions in index order.
	byOff := map[int64]tcpSeg{}
	for _, s := range d.segs {
		byOff[s.off] = s
	}
	offs := make([]int64, 0, len(byOff))
	for o := range byOff {
		offs = append(offs, o)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	index := map[int64]int{}
	for i, o := range offs {
		index[o] = i
	}
	var high int64
	retx := 0
	for _, s := range d.segs {
		if s.off < high {
			retx++
			if i := index[s.off]; i%1000 != lostAt {
				t.Errorf("call %d direction %d: segment %d retransmitted", k, dir, i)
			}
			dup := false
			for _, a := range d.sackAcks {
				dup = dup || a.ack == s.off && a.left == s.end
			}
			if !dup {
				t.Errorf("call %d direction %d: no dup-ACK with SACK [%d, ...) before the resent bytes at %d", k, dir, s.end, s.off)
			}
		}
		high = max(high, s.end)
	}
	if retx == 0 {
		t.Errorf("call %d direction %d: nothing retransmitted", k, dir)
	}
}
