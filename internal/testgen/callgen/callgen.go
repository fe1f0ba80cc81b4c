// Package callgen writes synthetic captures of calls whose every figure is known by
// construction: RTP streams with a chosen loss pattern, delays, duplicates and reordering,
// over UDP directly or through TURN ChannelData. Tests assert exact figures on them and the
// benchmarks run on the large captures it writes.
package callgen

import (
	"encoding/binary"
	"net/netip"
	"sort"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// Stream is one RTP stream to synthesize. Packet i (0-based) has sequence number
// StartSeq+i and timestamp StartTS + i*ClockRate*Interval, is sent at Start + i*Interval and
// captured Delay(i) after that, unless Lose(i).
type Stream struct {
	Src, Dst    netip.AddrPort
	SSRC        uint32
	PT          uint8
	ClockRate   int
	Interval    time.Duration
	PayloadSize int
	Count       int
	StartSeq    uint16
	StartTS     uint32
	Start       time.Duration // offset from the capture's start

	Lose  func(i int) bool          // nil: nothing lost
	Delay func(i int) time.Duration // nil: no extra delay
	Dup   func(i int) bool          // also capture a second copy of packet i, 1 µs later

	// Channel, when set, wraps every packet in TURN ChannelData with this channel number
	// (the flow then runs between Src and Dst, which are the TURN client and server).
	Channel uint16
}

// Packet is one frame of the capture, before sorting by time.
type Packet struct {
	T     int64
	Frame []byte
}

// Epoch is the capture start of every synthesized call: 2026-11-29T10:00:00Z.
var Epoch = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC).UnixNano()

// RTP builds the RTP packet for stream s's packet i.
func (s *Stream) RTP(i int) []byte {
	b := make([]byte, 12+s.PayloadSize)
	b[0] = 0x80
	b[1] = s.PT & 0x7f
	binary.BigEndian.PutUint16(b[2:], s.StartSeq+uint16(i))
	ts := uint64(s.StartTS) + uint64(i)*uint64(s.ClockRate)*uint64(s.Interval)/uint64(time.Second)
	binary.BigEndian.PutUint32(b[4:], uint32(ts))
	binary.BigEndian.PutUint32(b[8:], s.SSRC)
	for j := 12; j < len(b); j++ {
		b[j] = byte(i + j)
	}
	return b
}

// Packets returns the frames of stream s (Ethernet, IPv4 or IPv6, UDP).
func (s *Stream) Packets() []Packet {
	var out []Packet
	for i := 0; i < s.Count; i++ {
		if s.Lose != nil && s.Lose(i) {
			continue
		}
		t := Epoch + int64(s.Start) + int64(i)*int64(s.Interval)
		if s.Delay != nil {
			t += int64(s.Delay(i))
		}
		payload := s.RTP(i)
		if s.Channel != 0 {
			payload = ChannelData(s.Channel, payload)
		}
		frame := etherUDP(s.Src, s.Dst, payload)
		out = append(out, Packet{T: t, Frame: frame})
		if s.Dup != nil && s.Dup(i) {
			out = append(out, Packet{T: t + 1000, Frame: frame})
		}
	}
	return out
}

// ChannelData wraps payload in a TURN ChannelData message (RFC 8656, 12.4), padded to 4 bytes.
func ChannelData(channel uint16, payload []byte) []byte {
	b := make([]byte, 4, 4+len(payload)+3)
	binary.BigEndian.PutUint16(b, channel)
	binary.BigEndian.PutUint16(b[2:], uint16(len(payload)))
	b = append(b, payload...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// Write sorts the packets by time (stable, so equal times keep their order) and writes them.
func Write(w *pcapgen.Writer, pkts []Packet) error {
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	for _, p := range pkts {
		if err := w.Write(p.T, 0, p.Frame, 0); err != nil {
			return err
		}
	}
	return w.Err()
}

func etherUDP(src, dst netip.AddrPort, payload []byte) []byte {
	return pcapgen.EtherUDP(src, dst, payload)
}
