package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/golden"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/report"
)

// FuzzAnalyze runs the whole pipeline on arbitrary bytes: whatever the input, Analyze returns
// a report or an error and never panics; the report keeps the JSON contract; and its wire
// bytes are those counted without the analyzer (checkWire): the capture's total is the sum
// of its records' lengths read by pcapgo, each listed flow holds the bytes of the packets of
// its 5-tuple decoded by gopacket (exactly, or within what duplicates, undecodable packets,
// fragments and packets the two decoders read differently account for), and every
// direction's overhead is non-negative and adds up to its wire bytes.
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
	f.Add(mixedLinks(f))
	f.Add(legacyChannelSeed(f))
	// WebRTC signalling over HTTP and a WebSocket (signalling), then the audio it names.
	var sig bytes.Buffer
	s.SSRC = 0xA1
	callgen.Write(pcapgen.NewPcap(&sig, capture.LinkEthernet, false, false, 0),
		append(signalling(f, webrtcSDP(0xA1, 0xE1, 0xE2), webrtcSDP(0xB1, 0, 0)), s.Packets()...))
	f.Add(sig.Bytes())

	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := Analyze(ctx, "fuzz", bytes.NewReader(data), Options{MinPackets: 3})
		if err == nil {
			checkWire(t, data, c)
		}
		checkContract(t, c)
	})
}

// checkContract checks the report of c against the JSON contract, report/schema.json.
func checkContract(t *testing.T, c report.Capture) {
	t.Helper()
	b, err := json.Marshal(schematest.Wrap(c))
	if err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, b)
}

// mixedLinks is a seed for the paths around the flows: a pcapng with an Ethernet interface
// and an SLL2 one, RTP tagged with a VLAN on the first and each packet recorded again on the
// second 10 µs later (capture duplicates), a UDP datagram in three IPv4 fragments whose
// first and last are written twice (repeats), RTP over IPv6 behind hop-by-hop and
// destination options, and a TCP SYN.
func mixedLinks(t testing.TB) []byte {
	s := audio()
	s.Count, s.PayloadSize = 4, 40
	var b bytes.Buffer
	w := pcapgen.NewPcapNG(&b, []pcapgen.Iface{{Link: capture.LinkEthernet}, {Link: capture.LinkLinuxSLL2, TSResol: 9}})
	for i := range s.Count {
		ip := pcapgen.IPv4(alice.Addr(), bob.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(alice, bob, s.RTP(i)))
		at := callgen.Epoch + int64(i)*20e6
		w.Write(at, 0, pcapgen.Ether(ip, pcapgen.EtherTypeIPv4, 7), 0)
		w.Write(at+10e3, 1, pcapgen.SLL2(ip, pcapgen.EtherTypeIPv4, 2), 0)
	}
	big := pcapgen.UDP(alice, bob, append(s.RTP(s.Count), make([]byte, 100)...))
	frags := pcapgen.IPv4Fragments(alice.Addr(), bob.Addr(), pcapgen.ProtoUDP, 9, big, 48)
	for i, frag := range frags {
		w.Write(callgen.Epoch+100e6+int64(i)*1e3, 0, pcapgen.Ether(frag, pcapgen.EtherTypeIPv4), 0)
		if i == 0 || i == len(frags)-1 {
			w.Write(callgen.Epoch+100e6+int64(i)*1e3+100, 0, pcapgen.Ether(frag, pcapgen.EtherTypeIPv4), 0)
		}
	}
	a6, b6 := netip.MustParseAddrPort("[2001:db8::1]:5004"), netip.MustParseAddrPort("[2001:db8::2]:5006")
	ip6 := pcapgen.IPv6(a6.Addr(), b6.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(a6, b6, s.RTP(0)),
		pcapgen.ExtHeader{Type: pcapgen.ProtoHopByHop}, pcapgen.ExtHeader{Type: pcapgen.ProtoDestOpts})
	w.Write(callgen.Epoch+120e6, 0, pcapgen.Ether(ip6, pcapgen.EtherTypeIPv6), 0)
	w.Write(callgen.Epoch+130e6, 0, pcapgen.EtherTCP(alice, turnServer, 1, 0, capture.FlagSYN, 65535, nil), 0)
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// legacyChannelSeed is a TURN-over-UDP call on RFC 5766's channel 0x5001 (the ChannelBind and
// 8 packets of media) beside the same bytes from a client with no binding, then a
// TURN-over-TCP call on 0x7FFE (6 audio packets each way): testdata/fuzz/FuzzAnalyze/legacy-channels
// (TestLegacyChannelSeed).
func legacyChannelSeed(tb testing.TB) []byte {
	pkts := turnCallOn(tb, legacyUDPChannel)[:6+8]
	s := audio()
	s.Src, s.Dst, s.SSRC, s.Channel, s.Count = netip.MustParseAddrPort("10.0.0.3:40000"), turnServer, 0x0c0c0c0c, legacyUDPChannel, 4
	pkts = append(pkts, s.Packets()...)
	ts := tcpStreams(nil)
	ts = []callgen.Stream{ts[0], ts[2]} // the audio each way
	for i := range ts {
		ts[i].Count = 6
	}
	setup := callgen.TURNTCPSetup(10*time.Millisecond, 60*time.Millisecond, tcpRelayed, bob, legacyTCPChannel)
	media := callgen.MediaWrites(func(b []byte) []byte { return callgen.ChannelData(legacyTCPChannel, b) }, fromServer, ts...)
	call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1, 2}}
	pkts = append(pkts, call.Packets(callgen.MergeWrites(setup, media))...)
	var b bytes.Buffer
	if err := callgen.Write(pcapgen.NewPcap(&b, capture.LinkEthernet, false, false, 0), pkts); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// TestLegacyChannelSeed keeps the seed file of legacyChannelSeed; -update rewrites it.
func TestLegacyChannelSeed(t *testing.T) {
	golden.Check(t, filepath.Join("testdata", "fuzz", "FuzzAnalyze", "legacy-channels"), golden.FuzzSeed(legacyChannelSeed(t)))
}
