package wire

import (
	"encoding/binary"
	"testing"
)

// serverHello builds a DTLS 1.2 record holding a ServerHello whose extensions are exts
// (type, then data), then more handshake messages if any: the record a DTLS-SRTP
// server sends (RFC 5764 4.1.1).
func serverHello(exts [][2][]byte, after ...[]byte) []byte {
	body := append([]byte{0xfe, 0xfd}, make([]byte, 32)...) // server_version, random
	body = append(body, 4, 1, 2, 3, 4)                      // session_id
	body = append(body, 0xc0, 0x2b, 0)                      // cipher_suite, compression_method
	var e []byte
	for _, x := range exts {
		e = append(e, x[0]...)
		e = binary.BigEndian.AppendUint16(e, uint16(len(x[1])))
		e = append(e, x[1]...)
	}
	body = binary.BigEndian.AppendUint16(body, uint16(len(e)))
	body = append(body, e...)
	msg := handshake(dtlsServerHello, body)
	for _, a := range after {
		msg = append(msg, a...)
	}
	rec := []byte{dtlsContentHandshake, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 1}
	rec = binary.BigEndian.AppendUint16(rec, uint16(len(msg)))
	return append(rec, msg...)
}

// handshake is a whole, unfragmented DTLS handshake message.
func handshake(typ byte, body []byte) []byte {
	n := len(body)
	h := []byte{typ, byte(n >> 16), byte(n >> 8), byte(n), 0, 0, 0, 0, 0, byte(n >> 16), byte(n >> 8), byte(n)}
	return append(h, body...)
}

// useSRTP is a use_srtp extension naming one protection profile, without MKI.
func useSRTP(profile uint16) [2][]byte {
	return [2][]byte{{0, extUseSRTP}, {0, 2, byte(profile >> 8), byte(profile), 0}}
}

func TestSRTPAuthTagLen(t *testing.T) {
	reneg := [2][]byte{{0xff, 0x01}, {0}}
	certificate := handshake(11, make([]byte, 40))
	app := []byte{DTLSContentApplicationData, 0xfe, 0xfd, 0, 1, 0, 0, 0, 0, 0, 2, 0, 2, 'x', 'y'}
	for _, tc := range []struct {
		name string
		in   []byte
		n    int
		ok   bool
	}{
		{"AES128_CM_HMAC_SHA1_80", serverHello([][2][]byte{reneg, useSRTP(0x0001)}), 10, true},
		{"AES128_CM_HMAC_SHA1_32", serverHello([][2][]byte{useSRTP(0x0002)}), 4, true},
		{"AEAD_AES_128_GCM", serverHello([][2][]byte{useSRTP(0x0007), reneg}), 16, true},
		{"AEAD_AES_256_GCM", serverHello([][2][]byte{useSRTP(0x0008)}), 16, true},
		{"NULL_HMAC_SHA1_80", serverHello([][2][]byte{useSRTP(0x0005)}), 10, true},
		{"a profile of unknown tag", serverHello([][2][]byte{useSRTP(0x0009)}), 0, false},
		{"no use_srtp (DTLS 1.3 sends it encrypted)", serverHello([][2][]byte{reneg}), 0, false},
		{"after another record", append(append([]byte{}, app...), serverHello([][2][]byte{useSRTP(0x0001)})...), 10, true},
		{"ServerHello then Certificate in one record", serverHello([][2][]byte{useSRTP(0x0007)}, certificate), 16, true},
		{"Certificate before it in the record", func() []byte {
			b := serverHello([][2][]byte{useSRTP(0x0001)})
			msg := append(append([]byte{}, certificate...), b[DTLSRecordHeaderLen:]...)
			rec := append([]byte{}, b[:11]...)
			rec = binary.BigEndian.AppendUint16(rec, uint16(len(msg)))
			return append(rec, msg...)
		}(), 10, true},
		{"cut inside the extension", func() []byte { b := serverHello([][2][]byte{useSRTP(0x0001)}); return b[:len(b)-3] }(), 0, false},
		{"a later fragment", func() []byte {
			b := serverHello([][2][]byte{useSRTP(0x0001)})
			b[DTLSRecordHeaderLen+8] = 1 // fragment_offset 1
			return b
		}(), 0, false},
		{"ClientHello", func() []byte {
			b := serverHello([][2][]byte{useSRTP(0x0001)})
			b[DTLSRecordHeaderLen] = 1
			return b
		}(), 0, false},
		{"application data only", app, 0, false},
		{"empty", nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n, ok := SRTPAuthTagLen(tc.in); n != tc.n || ok != tc.ok {
				t.Errorf("SRTPAuthTagLen = %d, %v; want %d, %v", n, ok, tc.n, tc.ok)
			}
		})
	}
}

// FuzzSRTPAuthTagLen: any datagram is read without a panic, and a tag length found is
// one a profile names.
func FuzzSRTPAuthTagLen(f *testing.F) {
	f.Add(serverHello([][2][]byte{useSRTP(0x0001)}))
	f.Add(serverHello([][2][]byte{{{0xff, 0x01}, {0}}, useSRTP(0x0007)}, handshake(11, make([]byte, 8))))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, ok := SRTPAuthTagLen(b); ok != (n > 0) || (ok && n != 4 && n != 10 && n != 16) {
			t.Fatalf("SRTPAuthTagLen = %d, %v", n, ok)
		}
	})
}
