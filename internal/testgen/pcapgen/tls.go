package pcapgen

import "encoding/binary"

// TLSClientHello builds a ClientHello handshake message (RFC 8446 4.1.2) with a 32-byte
// session id, two cipher suites, one compression method, an SNI extension and, when alpn
// is not nil, an ALPN extension (RFC 7301, type 16) offering those names: a TLS record's
// fragment (handshake type 1).
func TLSClientHello(alpn ...string) []byte {
	var ext []byte
	sni := []byte("turn.example.org")
	ext = binary.BigEndian.AppendUint16(ext, 0) // server_name
	ext = binary.BigEndian.AppendUint16(ext, uint16(5+len(sni)))
	ext = binary.BigEndian.AppendUint16(ext, uint16(3+len(sni)))
	ext = append(ext, 0)
	ext = binary.BigEndian.AppendUint16(ext, uint16(len(sni)))
	ext = append(ext, sni...)
	if alpn != nil {
		var list []byte
		for _, p := range alpn {
			list = append(append(list, byte(len(p))), p...)
		}
		ext = binary.BigEndian.AppendUint16(ext, 16)
		ext = binary.BigEndian.AppendUint16(ext, uint16(2+len(list)))
		ext = binary.BigEndian.AppendUint16(ext, uint16(len(list)))
		ext = append(ext, list...)
	}
	body := []byte{3, 3}
	body = append(body, make([]byte, 32)...)             // random
	body = append(append(body, 32), make([]byte, 32)...) // session id
	body = append(body, 0, 4, 0x13, 0x01, 0x13, 0x02)    // cipher suites
	body = append(body, 1, 0)                            // compression: null
	body = binary.BigEndian.AppendUint16(body, uint16(len(ext)))
	body = append(body, ext...)
	return append([]byte{1, 0, byte(len(body) >> 8), byte(len(body))}, body...)
}
