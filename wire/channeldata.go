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
// 64-79 (RangeChannelData).
const (
	ChannelMin           = 0x4000
	ChannelMax           = 0x4FFF
	ChannelDataHeaderLen = 4 // RFC 8656, 12.4
)

// IsChannel reports whether n is a channel number a client may bind.
func IsChannel(n uint16) bool { return n >= ChannelMin && n <= ChannelMax }
