package callgen

import (
	"bytes"
	"io"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// TestWriteTCPBench writes exactly the packets asked for, in capture order, all TCP between
// the client and the server, with data and ACKs both ways.
func TestWriteTCPBench(t *testing.T) {
	var buf bytes.Buffer
	const n = 20_000
	if err := WriteTCPBench(&buf, n); err != nil {
		t.Fatal(err)
	}
	rd, err := capture.Open(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var p capture.Packet
	var count, data, acks int
	var last int64
	for {
		err := rd.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		count++
		if p.Kind != capture.KindTCP {
			t.Fatalf("packet %d: kind %v", count, p.Kind)
		}
		if p.Time < last {
			t.Fatalf("packet %d: time goes back", count)
		}
		last = p.Time
		if p.PayloadLen > 0 {
			data++
		} else {
			acks++
		}
	}
	if count != n || data < n/2-100 || acks < n/2-100 {
		t.Errorf("packets %d (data %d, acks %d), want %d about half each", count, data, acks, n)
	}
}

// TestTCPCallLoss checks the model on a small connection: a segment lost after the capture
// is seen twice, one lost before it once, and every data segment has its ACK.
func TestTCPCallLoss(t *testing.T) {
	c := TCPCall{Client: benchTCPClient, Server: benchTCPServer,
		LoseAfter:  func(i int) bool { return i == 1 },
		LoseBefore: func(i int) bool { return i == 1 }}
	var ws []TCPWrite
	for i := range 4 {
		ws = append(ws, TCPWrite{T: time.Duration(100+20*i) * time.Millisecond, Dir: 0, Data: make([]byte, 100)},
			TCPWrite{T: time.Duration(105+20*i) * time.Millisecond, Dir: 1, Data: make([]byte, 100)})
	}
	pkts := c.Packets(ws)
	var data [2]int
	for _, p := range pkts {
		if len(p.Frame) > 60 { // not a pure ACK, nor a SYN with its MSS option
			if p.Frame[26] == 10 { // IPv4 source 10.x: the client
				data[0]++
			} else {
				data[1]++
			}
		}
	}
	// 3 handshake frames; the client: 5 data (one seen twice) and 4 ACKs of the server's
	// data; the server: 4 data (the lost one seen once) and 4 ACKs, one per arrival.
	if data != [2]int{5, 4} || len(pkts) != 3+5+4+4+4 {
		t.Errorf("data segments %v, frames %d; want [5 4] and 20", data, len(pkts))
	}
}

// seg is a decoded TCP frame of a test capture.
type seg struct {
	ms       float64 // capture time since Epoch
	client   bool    // sent by the client
	seq, ack uint32
	flags    uint8
	payload  []byte
	sack     []capture.SACKBlock
}

// decode writes pkts to a capture in memory and reads them back as TCP segments.
func decode(t *testing.T, pkts []Packet) []seg {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0), pkts); err != nil {
		t.Fatal(err)
	}
	return readSegs(t, &buf, benchTCPClient)
}

// readSegs reads a capture of TCP frames; client says which endpoint is the client.
func readSegs(t *testing.T, r io.Reader, client netip.AddrPort) []seg {
	t.Helper()
	rd, err := capture.Open(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []seg
	var p capture.Packet
	for {
		err := rd.Next(&p)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.Kind != capture.KindTCP {
			t.Fatalf("frame %d: kind %v", len(out), p.Kind)
		}
		s := seg{ms: float64(p.Time-Epoch) / 1e6, client: p.SrcAddrPort() == client,
			seq: p.TCP.Seq, ack: p.TCP.Ack, flags: p.TCP.Flags, payload: bytes.Clone(p.Payload)}
		if p.TCP.NSACK > 0 {
			s.sack = slices.Clone(p.TCP.SACK[:p.TCP.NSACK])
		}
		out = append(out, s)
	}
}

// TestTCPCallCoalesce checks the coalescing sender on figures worked out by hand: full
// MSS segments cut across writes, a partial segment flushed when its oldest byte has
// waited Coalesce, and the bytes in the order written.
func TestTCPCallCoalesce(t *testing.T) {
	c := TCPCall{Client: benchTCPClient, Server: benchTCPServer, ISN: [2]uint32{1000, 5000},
		MSS: 1000, Coalesce: 5 * time.Millisecond}
	var ws []TCPWrite
	var sent [2][]byte
	write := func(ms, dir, n int) {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(len(sent[dir]) + i)
		}
		sent[dir] = append(sent[dir], b...)
		ws = append(ws, TCPWrite{T: time.Duration(ms) * time.Millisecond, Dir: dir, Data: b})
	}
	// 300 bytes every ms from 100 ms: a full segment every third or fourth write, never a
	// byte waiting 5 ms; 9,000 bytes are 9 segments.
	for i := range 30 {
		write(100+i, 0, 300)
	}
	// Sparse writes go out alone, 5 ms late; a large one as two full segments at once and
	// its tail 5 ms later.
	write(200, 0, 300)
	write(220, 0, 300)
	write(240, 0, 300)
	write(300, 0, 2500)
	// The server's coalesce alike, seen 30 ms later (RTT 60 ms).
	write(400, 1, 2500)
	type data struct {
		ms     float64
		client bool
		n      int
	}
	want := []data{
		{103, true, 1000}, {106, true, 1000}, {109, true, 1000},
		{113, true, 1000}, {116, true, 1000}, {119, true, 1000},
		{123, true, 1000}, {126, true, 1000}, {129, true, 1000},
		{205, true, 300}, {225, true, 300}, {245, true, 300},
		{300, true, 1000}, {300, true, 1000}, {305, true, 500},
		{430, false, 1000}, {430, false, 1000}, {435, false, 500},
	}
	var got []data
	var stream [2][]byte
	for _, s := range decode(t, c.Packets(ws)) {
		if len(s.payload) == 0 {
			continue
		}
		got = append(got, data{s.ms, s.client, len(s.payload)})
		dir := 1
		if s.client {
			dir = 0
		}
		if want := c.ISN[dir] + 1 + uint32(len(stream[dir])); s.seq != want {
			t.Errorf("%v ms: seq %d, want %d", s.ms, s.seq, want)
		}
		stream[dir] = append(stream[dir], s.payload...)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(data{})); diff != "" {
		t.Errorf("data segments (-want +got):\n%s", diff)
	}
	for dir := range 2 {
		if !bytes.Equal(stream[dir], sent[dir]) {
			t.Errorf("direction %d: the segments do not carry the bytes written, in order", dir)
		}
	}
}

// TestTCPCallSACK checks the SACK blocks of the ACKs (dup-ACKs after a hole) and of data
// segments, with two holes at the server and one at the client.
func TestTCPCallSACK(t *testing.T) {
	c := TCPCall{Client: benchTCPClient, Server: benchTCPServer, ISN: [2]uint32{1000, 5000},
		MSS: 100, SACK: true,
		LoseAfter:  func(i int) bool { return i == 1 || i == 3 },
		LoseBefore: func(i int) bool { return i == 1 }}
	var ws []TCPWrite
	for i := range 4 { // the server's segments 0-3 at 85-115 ms, seen 30 ms later
		ws = append(ws, TCPWrite{T: time.Duration(85+10*i) * time.Millisecond, Dir: 1, Data: make([]byte, 100)})
	}
	for i := range 6 { // the client's segments 0-5 at 100-150 ms, at the server 30 ms later
		ws = append(ws, TCPWrite{T: time.Duration(100+10*i) * time.Millisecond, Dir: 0, Data: make([]byte, 100)})
	}
	ws = MergeWrites(ws)
	type ack struct {
		ms     float64
		client bool
		ack    uint32
		sack   []capture.SACKBlock
	}
	// Client stream offset o is sequence number 1001+o, the server's 5001+o.
	blk := func(l, r uint32) capture.SACKBlock { return capture.SACKBlock{Left: l, Right: r} }
	wantACKs := []ack{
		{60, true, 5001, nil}, // the handshake's
		{115, true, 5101, nil},
		{135, true, 5101, []capture.SACKBlock{blk(5201, 5301)}}, // segment 1 lost before the capture
		{145, true, 5101, []capture.SACKBlock{blk(5201, 5401)}},
		{160, false, 1101, nil},
		{180, false, 1101, []capture.SACKBlock{blk(1201, 1301)}}, // segment 1 lost after it
		{200, false, 1101, []capture.SACKBlock{blk(1401, 1501), blk(1201, 1301)}},
		{210, false, 1101, []capture.SACKBlock{blk(1401, 1601), blk(1201, 1301)}},
		{430, true, 5401, nil},                                   // the resent segment 1, 305 ms on
		{475, false, 1301, []capture.SACKBlock{blk(1401, 1601)}}, // client segment 1 again
		{495, false, 1601, nil},                                  // and segment 3
	}
	var gotACKs []ack
	gotData := map[float64][]capture.SACKBlock{}
	for _, s := range decode(t, c.Packets(ws)) {
		switch {
		case s.flags&capture.FlagSYN != 0:
		case len(s.payload) == 0:
			gotACKs = append(gotACKs, ack{s.ms, s.client, s.ack, s.sack})
		case s.client:
			gotData[s.ms] = s.sack
		}
	}
	if diff := cmp.Diff(wantACKs, gotACKs, cmp.AllowUnexported(ack{})); diff != "" {
		t.Errorf("pure ACKs (-want +got):\n%s", diff)
	}
	// The client's data carries its blocks too: none before the hole, then as they grow.
	wantData := map[float64][]capture.SACKBlock{
		100: nil, 110: nil, 120: nil, 130: nil,
		140: {blk(5201, 5301)}, 150: {blk(5201, 5401)},
		415: {blk(5201, 5401)}, // the resent segments: the server's segment 1 is not yet back
		435: nil,
	}
	if diff := cmp.Diff(wantData, gotData); diff != "" {
		t.Errorf("SACK blocks of the client's data segments by time (-want +got):\n%s", diff)
	}
}
