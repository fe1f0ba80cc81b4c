package demux

import (
	"encoding/binary"

	"github.com/callpcap/callpcap/wire"
)

// parseChannelData reads a TURN ChannelData message (RFC 8656, 12.4):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|         Channel Number        |            Length             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	/                       Application Data                        /
//	+-------------------------------+-------------------------------+
//
// payload points into b. framing is every byte of b that is not payload: the 4-byte header
// and the padding after the data, so that len(payload)+framing == len(b). Over TCP the
// message is padded to a multiple of 4 (12.5); over UDP padding is optional. b may hold at
// most that padding after the data (3 bytes over UDP, exactly what completes the multiple
// of 4 over TCP, or none when the unframer left it out); more, a channel outside
// 0x4000-0x7FFF (wire.IsAnyChannel), or a length that does not fit gives ok == false.
// Whether a message on a channel of 0x5000-0x7FFF is ChannelData at all is not the parser's
// to say: the first-byte demux calls it QUIC unless the TURN state says otherwise
// (Tracker.Refine).
// With truncated set it accepts a length beyond b (the capture's snap length cut the
// message): payload is then what was captured. It allocates nothing.
func parseChannelData(b []byte, tcp, truncated bool) (channel uint16, payload []byte, framing int, ok bool) {
	if len(b) < wire.ChannelDataHeaderLen {
		return 0, nil, 0, false
	}
	channel = binary.BigEndian.Uint16(b[0:2])
	if !wire.IsAnyChannel(channel) {
		return 0, nil, 0, false
	}
	n := int(binary.BigEndian.Uint16(b[2:4]))
	end := wire.ChannelDataHeaderLen + n
	if end > len(b) {
		if !truncated {
			return 0, nil, 0, false
		}
		return channel, b[wire.ChannelDataHeaderLen:], wire.ChannelDataHeaderLen, true
	}
	maxPad := 3
	if tcp {
		maxPad = pad4(n) - n
	}
	if len(b)-end > maxPad {
		return 0, nil, 0, false
	}
	return channel, b[wire.ChannelDataHeaderLen:end], len(b) - n, true
}
