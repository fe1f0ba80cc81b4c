package callgen

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/callpcap/callpcap/capture"
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
