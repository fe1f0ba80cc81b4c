package callgen

// The writes a TCPCall carries: framed media, TURN set-up over TCP, and lists merged by time.

import (
	"encoding/binary"
	"net/netip"
	"sort"
	"time"

	"github.com/pion/stun/v3"
)

// Frame4571 frames a packet for ICE-TCP (RFC 4571): a 16-bit length, then the packet.
func Frame4571(b []byte) []byte {
	out := binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(b)), uint16(len(b)))
	return append(out, b...)
}

// MediaWrites turns streams into writes: every packet sent at the same instant in the same
// direction goes in one write, in the order of streams, framed by frame (ChannelData on a
// channel, or Frame4571). dir says which direction a stream's packets travel. Each packet
// is sent at Start + i*Interval; Lose(i) skips it (the sender never wrote it: a drop before
// TCP). Delay and Dup are ignored.
func MediaWrites(frame func(rtp []byte) []byte, dir func(s *Stream) int, streams ...Stream) []TCPWrite {
	type key struct {
		t   time.Duration
		dir int
	}
	var keys []key
	byKey := map[key][]byte{}
	for k := range streams {
		s := &streams[k]
		for i := 0; i < s.Count; i++ {
			if s.Lose != nil && s.Lose(i) {
				continue
			}
			kk := key{s.Start + time.Duration(i)*s.Interval, dir(s)}
			if _, ok := byKey[kk]; !ok {
				keys = append(keys, kk)
			}
			byKey[kk] = append(byKey[kk], frame(s.RTP(i))...)
		}
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].t < keys[j].t })
	out := make([]TCPWrite, 0, len(keys))
	for _, k := range keys {
		out = append(out, TCPWrite{T: k.t, Dir: k.dir, Data: byKey[k]})
	}
	return out
}

// TURNTCPSetup returns the writes of a TURN allocation over TCP starting at start: an
// Allocate request, its success response RTT later with relayed as XOR-RELAYED-ADDRESS and
// a 600 s lifetime, a ChannelBind of channel to peer, and its response RTT after that.
func TURNTCPSetup(start, rtt time.Duration, relayed, peer netip.AddrPort, channel uint16) []TCPWrite {
	return turnTCPSetup(0, start, rtt, relayed, peer, channel)
}

// TURNTCPSetupOfCall is TURNTCPSetup for call (0-based) of several in one capture: each
// call's transactions have IDs of their own, as real clients' random ones are.
func TURNTCPSetupOfCall(call int, start, rtt time.Duration, relayed, peer netip.AddrPort, channel uint16) []TCPWrite {
	return turnTCPSetup(call, start, rtt, relayed, peer, channel)
}

// turnTCPSetup is TURNTCPSetup for one of several calls in a capture (see callStunMsg).
func turnTCPSetup(call int, start, rtt time.Duration, relayed, peer netip.AddrPort, channel uint16) []TCPWrite {
	req, ok := stun.ClassRequest, stun.ClassSuccessResponse
	ch := rawAttr(stun.AttrChannelNumber, byte(channel>>8), byte(channel), 0, 0)
	return []TCPWrite{
		{T: start, Dir: 0, Data: callStunMsg(call, 1, stun.MethodAllocate, req)},
		{T: start + rtt, Dir: 1, Data: callStunMsg(call, 1, stun.MethodAllocate, ok,
			xor(stun.AttrXORRelayedAddress, relayed), rawAttr(stun.AttrLifetime, 0, 0, 2, 0x58))},
		{T: start + rtt + time.Millisecond, Dir: 0, Data: callStunMsg(call, 2, stun.MethodChannelBind, req, ch,
			xor(stun.AttrXORPeerAddress, peer))},
		{T: start + 2*rtt + time.Millisecond, Dir: 1, Data: callStunMsg(call, 2, stun.MethodChannelBind, ok)},
	}
}

// MergeWrites merges lists of writes by time, stably.
func MergeWrites(lists ...[]TCPWrite) []TCPWrite {
	var out []TCPWrite
	for _, l := range lists {
		out = append(out, l...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}
