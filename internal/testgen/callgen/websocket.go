package callgen

import "encoding/binary"

// WebSocketFrame is a WebSocket frame (RFC 6455, 5.2) of opcode op (its RSV bits
// included: 0x40 is permessage-deflate's RSV1), FIN fin, masked with key unless key is nil,
// its length in the shortest form, or the 64-bit form when long.
func WebSocketFrame(op byte, fin bool, key, payload []byte, long bool) []byte {
	b := []byte{op}
	if fin {
		b[0] |= 0x80
	}
	var mask byte
	if key != nil {
		mask = 0x80
	}
	switch n := len(payload); {
	case long:
		b = append(b, mask|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	case n < 126:
		b = append(b, mask|byte(n))
	default:
		b = append(b, mask|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	}
	if key == nil {
		return append(b, payload...)
	}
	b = append(b, key...)
	for i, c := range payload {
		b = append(b, c^key[i&3])
	}
	return b
}
