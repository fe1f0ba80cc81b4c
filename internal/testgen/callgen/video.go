package callgen

import (
	"encoding/binary"
	"net/netip"
	"time"
)

// Video is a synthetic video stream: 30 frames a second, each frame as many packets of at most
// MTU payload bytes as its size needs (same timestamp, marker on the last), the frame size
// following Kbps(t) where t is the time since the stream's start.
type Video struct {
	Src, Dst netip.AddrPort
	SSRC     uint32
	PT       uint8
	Start    time.Duration
	Duration time.Duration
	Kbps     func(t time.Duration) float64
	MTU      int

	Lose    func(seq int) bool                                   // nil: nothing lost
	Delay   func(seq int) time.Duration                          // extra capture delay of packet seq
	Channel uint16                                               // wrap in ChannelData when set
	Frame   func(src, dst netip.AddrPort, payload []byte) []byte // nil: Ethernet/IP/UDP
}

// Packets returns the captured frames of the video stream.
func (v *Video) Packets() []Packet {
	const fps = 30
	frameGap := time.Second / fps
	var out []Packet
	seq := 0
	for f := 0; time.Duration(f)*frameGap < v.Duration; f++ {
		at := time.Duration(f) * frameGap
		size := int(v.Kbps(at) * 1000 / 8 / fps)
		ts := uint32(f * 90000 / fps)
		n := (size + v.MTU - 1) / v.MTU
		for k := 0; k < n; k++ {
			pl := min(v.MTU, size-k*v.MTU)
			b := make([]byte, 12+pl)
			b[0] = 0x80
			b[1] = v.PT & 0x7f
			if k == n-1 {
				b[1] |= 0x80
			}
			binary.BigEndian.PutUint16(b[2:], uint16(seq))
			binary.BigEndian.PutUint32(b[4:], ts)
			binary.BigEndian.PutUint32(b[8:], v.SSRC)
			// Packets of a frame leave 200 µs apart, as a pacer sends them.
			t := Epoch + int64(v.Start+at) + int64(k)*200_000
			if v.Delay != nil {
				t += int64(v.Delay(seq))
			}
			lost := v.Lose != nil && v.Lose(seq)
			seq++
			if lost {
				continue
			}
			payload := b
			if v.Channel != 0 {
				payload = ChannelData(v.Channel, b)
			}
			out = append(out, Packet{T: t, Frame: v.frame(payload)})
		}
	}
	return out
}

func (v *Video) frame(payload []byte) []byte {
	if v.Frame != nil {
		return v.Frame(v.Src, v.Dst, payload)
	}
	return etherUDP(v.Src, v.Dst, payload)
}
