package wire

// TURN channels (RFC 8656, 12): a ChannelData message is a 4-byte header, then the data.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|         Channel Number        |            Length             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	/                       Application Data                        /
//	+-------------------------------+-------------------------------+
//
// Channel numbers are 0x4000 through 0x4FFF, which is why ChannelData's first byte is
// 64-79 (RangeChannelData). RFC 5766 (11), which RFC 8656 replaced, allowed 0x4000 through
// 0x7FFF, and RFC 5766 servers and libwebrtc's TURN code still bind and send the numbers
// 0x5000-0x7FFF (LegacyChannelMin-LegacyChannelMax). Their first byte, 80-127, is QUIC's by
// RFC 9443: over UDP such a message is ChannelData only where a ChannelBind for its number
// succeeded, while over TURN's TCP framing, where QUIC cannot run, it is always a channel.
const (
	ChannelMin           = 0x4000
	ChannelMax           = 0x4FFF
	LegacyChannelMin     = ChannelMax + 1 // RFC 5766, 11
	LegacyChannelMax     = 0x7FFF         // RFC 5766, 11
	ChannelDataHeaderLen = 4              // RFC 8656, 12.4
)

// IsAnyChannel reports whether n is a channel number RFC 8656 or RFC 5766 allows:
// 0x4000-0x7FFF.
func IsAnyChannel(n uint16) bool { return n >= ChannelMin && n <= LegacyChannelMax }

// IsLegacyChannelByte reports whether b is the first byte of a channel number only RFC 5766
// allows (0x5000-0x7FFF): 80-127, inside RangeQUICShort.
func IsLegacyChannelByte(b byte) bool { return b >= LegacyChannelMin>>8 && b <= LegacyChannelMax>>8 }

// IsAnyChannelByte reports whether b is the first byte of a channel number RFC 8656 or
// RFC 5766 allows (IsAnyChannel): 64-127.
func IsAnyChannelByte(b byte) bool { return b >= ChannelMin>>8 && b <= LegacyChannelMax>>8 }
