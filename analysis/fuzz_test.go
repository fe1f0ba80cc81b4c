package analysis

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// FuzzAnalyze runs the whole pipeline on arbitrary bytes: whatever the input, Analyze returns
// a report or an error, never panics, and the overhead of every direction adds up.
func FuzzAnalyze(f *testing.F) {
	s := audio()
	s.Count = 30
	var udp bytes.Buffer
	callgen.Write(pcapgen.NewPcap(&udp, capture.LinkEthernet, false, false, 0), s.Packets())
	f.Add(udp.Bytes())

	var turn bytes.Buffer
	pkts := callgen.ExampleTURNCall()
	callgen.Write(pcapgen.NewPcap(&turn, capture.LinkEthernet, false, false, 0), pkts[:60])
	f.Add(turn.Bytes())

	ts := tcpStreams(nil)
	for i := range ts {
		ts[i].Count = 20
	}
	call := callgen.TCPCall{Client: tcpClient, Server: turnServer, ISN: [2]uint32{1, 2},
		LoseBefore: func(seg int) bool { return seg == 5 }}
	var tcp bytes.Buffer
	dir := func(st *callgen.Stream) int {
		if st.Src == tcpClient {
			return 0
		}
		return 1
	}
	callgen.Write(pcapgen.NewPcap(&tcp, capture.LinkEthernet, false, false, 0),
		call.Packets(callgen.MediaWrites(func(rtp []byte) []byte { return callgen.ChannelData(0x4000, rtp) }, dir, ts...)))
	f.Add(tcp.Bytes())

	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := Analyze(ctx, "fuzz", bytes.NewReader(data), Options{MinPackets: 3})
		if err != nil {
			return
		}
		for _, d := range c.Directions {
			if d.WireBytes != d.MediaPayloadBytes+d.OverheadBytes.Sum() {
				t.Errorf("direction %s: wire %d != media %d + overhead %d", d.ID, d.WireBytes, d.MediaPayloadBytes, d.OverheadBytes.Sum())
			}
		}
	})
}
