package analysis

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// sipInvite is bob's INVITE to alice, offering AMR on payload type 97 at mediaAddr: where
// bob receives the audio.
func sipInvite(mediaAddr netip.AddrPort) []byte {
	body := strings.ReplaceAll(fmt.Sprintf(`v=0
o=bob 2890844526 2890844526 IN IP4 %[1]s
s=-
c=IN IP4 %[1]s
t=0 0
m=audio %[2]d RTP/AVP 97 101
a=rtpmap:97 AMR/8000
a=fmtp:97 octet-align=1
a=rtpmap:101 telephone-event/8000
a=sendrecv
`, mediaAddr.Addr(), mediaAddr.Port()), "\n", "\r\n")
	head := strings.ReplaceAll(fmt.Sprintf(`INVITE sip:alice@%[1]s SIP/2.0
Via: SIP/2.0/UDP %[2]s;branch=z9hG4bK776asdhds
Max-Forwards: 70
To: <sip:alice@%[1]s>
From: <sip:bob@%[2]s>;tag=1928301774
Call-ID: a84b4c76e66710
CSeq: 1 INVITE
Contact: <sip:bob@%[2]s>
Content-Type: application/sdp
Content-Length: %[3]d

`, alice.Addr(), bob.Addr(), len(body)), "\n", "\r\n")
	return []byte(head + body)
}

// amrCall is a SIP INVITE sent at sipAt, then 500 packets of payload type 97 at 8 kHz
// from alice to bob's port 50000, 20 ms apart.
func amrCall(t *testing.T, sdpAddr netip.AddrPort, sipAt time.Duration) []byte {
	t.Helper()
	s := audio()
	s.PT, s.Start = 97, 100*time.Millisecond
	sipSrc := netip.AddrPortFrom(bob.Addr(), 5060)
	sipDst := netip.AddrPortFrom(alice.Addr(), 5060)
	pkts := append(s.Packets(), callgen.Packet{T: callgen.Epoch + int64(sipAt),
		Frame: pcapgen.EtherUDP(sipSrc, sipDst, sipInvite(sdpAddr))})
	return pcapOf(t, pkts)
}

// TestSDPNamesThePayloadType: SDP in the INVITE before the media names payload type 97 at
// bob's address: the stream takes its codec and clock rate from it, not inferred.
func TestSDPNamesThePayloadType(t *testing.T) {
	type figures struct {
		Codec         string
		ClockRate     int
		Inferred      bool
		Kind          string
		Jitter, Delay bool
	}
	tests := []struct {
		name    string
		sdpAddr netip.AddrPort
		sipAt   time.Duration
		want    figures
	}{
		{"hint before the media", bob, 0, figures{"AMR", 8000, false, "audio", true, true}},
		// The clock was inferred from the first second before the hint came: the codec is
		// named, the inferred clock stays.
		{"hint after the clock decision", bob, 5 * time.Second, figures{"AMR", 8000, true, "audio", true, true}},
		{"hint for another port", netip.AddrPortFrom(bob.Addr(), 50002), 0, figures{"", 8000, true, "audio", true, true}},
		{"hint for another address", netip.MustParseAddrPort("198.51.100.10:50000"), 0, figures{"", 8000, true, "audio", true, true}},
		// Only the sender's own SDP names 97 (an answer that dropped it, as a real one did
		// for the Opus sipp then sent): it means what its sender named it.
		{"hint at the sender's own address", alice, 0, figures{"AMR", 8000, false, "audio", true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := analyze(t, amrCall(t, tt.sdpAddr, tt.sipAt), Options{})
			st := onlyStream(t, c)
			got := figures{Inferred: st.ClockRateInferred, Kind: st.Kind, ClockRate: derefI(st.ClockRate),
				Jitter: st.JitterMS != nil, Delay: st.DelayMS != nil}
			if st.Codec != nil {
				got.Codec = *st.Codec
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("stream (-want +got):\n%s", d)
			}
			if st.PayloadType != 97 || st.Dst != bob.String() {
				t.Errorf("stream pt %d to %s, want 97 to %s", st.PayloadType, st.Dst, bob)
			}
		})
	}
}

// TestSDPOverTCP: SIP over TCP (RFC 3261 18.3) carries the INVITE of TestSDPNamesThePayloadType
// after a keep-alive (CRLF CRLF, RFC 5626), written in two parts 10 ms apart: its SDP names
// payload type 97 as over UDP, and the connection is listed as a SIP flow. Before, a TCP
// direction no framing explains was only counted: the stream's clock was inferred, its
// codec unknown.
func TestSDPOverTCP(t *testing.T) {
	s := audio()
	s.PT, s.Start = 97, 200*time.Millisecond
	invite := sipInvite(bob)
	half := len(invite) / 2
	sip := callgen.TCPCall{Client: netip.AddrPortFrom(bob.Addr(), 5060), Server: netip.AddrPortFrom(alice.Addr(), 5060),
		RTT: 20 * time.Millisecond, ISN: [2]uint32{1000, 5000}}
	pkts := append(s.Packets(), sip.Packets([]callgen.TCPWrite{
		{T: 40 * time.Millisecond, Data: append([]byte("\r\n\r\n"), invite[:half]...)},
		{T: 50 * time.Millisecond, Data: invite[half:]},
	})...)
	c := analyze(t, pcapOf(t, pkts), Options{})
	st := onlyStream(t, c)
	if st.Codec == nil || *st.Codec != "AMR" || derefI(st.ClockRate) != 8000 || st.ClockRateInferred {
		t.Errorf("stream codec %v, clock %d (inferred %v); want AMR at 8000 from the SDP", st.Codec, derefI(st.ClockRate), st.ClockRateInferred)
	}
	var sipFlow bool
	for _, f := range c.Flows {
		sipFlow = sipFlow || f.Proto == "tcp" && slices.Contains(f.Content, "sip")
	}
	if !sipFlow {
		t.Errorf("flows %+v: no TCP flow of SIP", c.Flows)
	}
}
