package analysis

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// TestHeadsOnlyChangesNoFigure analyses TCP captures with RTP messages held by their heads
// (tcpframe.Config.HeadsOnly) and whole, and checks that the reports are the same: the
// analysis reads of an RTP message only what its head and last byte hold. The captures
// carry what the head must hold: TURN and RFC 4571 framing, coalesced writes that
// straddle segments, losses, SACK, padding with its count in the last byte, a header
// extension, and RTX with the original sequence number after the header.
func TestHeadsOnlyChangesNoFigure(t *testing.T) {
	captures := map[string][]byte{}
	var b bytes.Buffer
	if err := callgen.WriteTCPBench(&b, 20000); err != nil {
		t.Fatal(err)
	}
	captures["TURN/TCP bench"] = bytes.Clone(b.Bytes())
	b.Reset()
	if err := callgen.WriteTCPCallsBench(&b, 8, 20000); err != nil {
		t.Fatal(err)
	}
	captures["8 TURN/TCP calls"] = bytes.Clone(b.Bytes())
	b.Reset()
	callgen.Write(pcapgen.NewPcap(&b, capture.LinkEthernet, false, false, 0), callgen.ExampleTURNTCPCall())
	captures["README example"] = bytes.Clone(b.Bytes())
	ice, _ := iceTCPCall()
	captures["ICE-TCP"] = pcapOf(t, ice)

	// Padded packets whose last byte counts the padding, with abs-send-time, and an RTX
	// stream repairing the video (its OSN follows the header), coalesced into segments of
	// 1200 bytes, one of them lost after the capture and one before.
	streams := tcpStreams(nil)
	for i := range streams {
		streams[i].ASTID = 3
		streams[i].Padded = func(k int) bool { return k%7 == 3 }
		streams[i].Fill = func(k int, p []byte) {
			if k%7 == 3 {
				p[len(p)-1] = 4
			}
		}
	}
	video := &streams[1]
	video.Lose = func(k int) bool { return k%10 == 5 }
	plain := *video // RTXPacket copies the fixed header only: no extension
	plain.ASTID, plain.Padded, plain.Fill = 0, nil, nil
	rtx := callgen.RTX{SSRC: 0x1b1b0001, PT: 98}
	var rtxWrites []callgen.TCPWrite
	for k := 5; k < video.Count; k += 10 {
		at := video.Start + time.Duration(k)*video.Interval + 70*time.Millisecond
		rtx.Sends = append(rtx.Sends, callgen.RTXSend{I: k, At: at, Seq: uint16(700 + k/10)})
		rtxWrites = append(rtxWrites, callgen.TCPWrite{T: at, Data: callgen.ChannelData(channel, plain.RTXPacket(rtx, len(rtx.Sends)-1))})
	}
	setup := callgen.TURNTCPSetup(10*time.Millisecond, 60*time.Millisecond, tcpRelayed, bob, channel)
	media := callgen.MediaWrites(func(p []byte) []byte { return callgen.ChannelData(channel, p) }, fromServer, streams...)
	call := impairedCall()
	call.Coalesce, call.SACK = 5*time.Millisecond, true
	captures["padded, RTX, coalesced"] = pcapOf(t, call.Packets(callgen.MergeWrites(setup, media, rtxWrites)))
	if s := streamBySSRC(analyze(t, captures["padded, RTX, coalesced"], Options{}), rtx.SSRC); s == nil || s.RTXOf == nil {
		t.Fatalf("the RTX stream was not read as one: %+v", s)
	}
	data, err := os.ReadFile("../testdata/turn-tcp-call.pcap.gz")
	if err != nil {
		t.Fatal(err)
	}
	captures["testdata"] = data

	for name, data := range captures {
		heads := reportJSON(t, data, Options{})
		whole := reportJSON(t, data, Options{wholeMessages: true})
		if diff := cmp.Diff(string(whole), string(heads)); diff != "" {
			t.Errorf("%s: holding RTP messages by their heads changed the report (-whole +heads):\n%s", name, diff)
		}
	}
}

func reportJSON(t *testing.T, data []byte, opts Options) []byte {
	t.Helper()
	b, err := json.Marshal(analyze(t, data, opts))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
