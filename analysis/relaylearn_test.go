package analysis

import (
	"encoding/binary"
	"testing"

	"github.com/callpcap/callpcap/transport"
)

// TestRelayLearnerGivesUp: a TURN client's capture that began mid-call holds ChannelData
// on a channel it never saw bound and no other copy of what the relay forwards: the
// learner looks at the first maxLook packets of the flow, each a candidate, and no more, so
// that the rest of the call costs nothing.
func TestRelayLearnerGivesUp(t *testing.T) {
	var l relayLearner
	f := &flow{idx: 3, a: alice, b: turnServer, proto: transport.UDP}
	l.watch(turnServer)
	for i := range 3 * maxLook {
		rtp := make([]byte, 172)
		rtp[0] = 0x80
		binary.BigEndian.PutUint16(rtp[2:], uint16(i))
		binary.BigEndian.PutUint32(rtp[8:], 0xA1)
		at := int64(i) * 1e6
		l.channelData(nil, f, alice, &transport.Message{Src: alice, Dst: turnServer, Payload: rtp, Channel: 0x4000,
			Via: transport.ChannelData, FirstSeen: at, Delivered: at})
	}
	if n := len(l.cur) + len(l.old); l.looked[3] != maxLook || n > maxLook {
		t.Errorf("looked at %d packets, %d candidates held; want %d at most", l.looked[3], n, maxLook)
	}
}
