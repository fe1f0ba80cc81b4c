package tcpframe

// TLS record header, RFC 8446 5.1 (and RFC 5246 6.2):
//
//	struct {
//	    ContentType type;               // 20 change_cipher_spec, 21 alert, 22 handshake, 23 application_data
//	    ProtocolVersion legacy_record_version; // 0x0301-0x0304
//	    uint16 length;                  // at most 2^14 + 2048 (TLSCiphertext)
//	    opaque fragment[length];
//	} TLSPlaintext;
const (
	tlsHeaderLen   = 5
	tlsMaxRecord   = 1<<14 + 2048
	tlsTypeMin     = 20
	tlsTypeMax     = 23
	tlsVersionHigh = 3
	tlsMinorMin    = 1
	tlsMinorMax    = 4
)

// SplitTLS is the SplitFunc of TLS records (TURN over TLS). Each record is one opaque
// message: its fragment, with the 5-byte record header as framing. The media inside is
// encrypted; the records are only counted and sized.
func SplitTLS(data []byte, atEOF bool) (advance int, msg []byte, err error) {
	return splitFixed(probeTLS, tlsHeaderLen, data, atEOF)
}

func probeTLS(b []byte) (size, alt int, r probeResult) {
	if len(b) < tlsHeaderLen {
		if len(b) >= 1 && (b[0] < tlsTypeMin || b[0] > tlsTypeMax) {
			return 0, 0, probeInvalid
		}
		return 0, 0, probeNeedMore
	}
	if b[0] < tlsTypeMin || b[0] > tlsTypeMax || b[1] != tlsVersionHigh ||
		b[2] < tlsMinorMin || b[2] > tlsMinorMax {
		return 0, 0, probeInvalid
	}
	n := be16(b[3:])
	if n == 0 || n > tlsMaxRecord {
		return 0, 0, probeInvalid
	}
	return tlsHeaderLen + n, 0, probeValid
}

// OffersALPN reports whether hello, a TLS record's fragment, is a ClientHello offering
// the application protocol proto by ALPN (RFC 7301): "stun.turn" says TURN over TLS
// (RFC 7443), on whatever port. The fields before the extensions are walked by their
// lengths (RFC 8446 4.1.2):
//
//	msg_type(1)=1 length(3) legacy_version(2) random(32) session_id<0..32>
//	cipher_suites<2..2^16-2> legacy_compression_methods<1..2^8-1>
//	extensions<8..2^16-1>: type(2) length(2) data; ALPN (16): list<2..2^16-1> of name<1..2^8-1>
func OffersALPN(hello []byte, proto string) bool {
	b := hello
	if len(b) < 4 || b[0] != tlsClientHello {
		return false
	}
	b = b[4:]
	if len(b) < 2+32 {
		return false
	}
	b = b[2+32:]
	skip := func(lenBytes int) bool { // skips a vector whose length takes lenBytes
		if len(b) < lenBytes {
			return false
		}
		n := int(b[0])
		if lenBytes == 2 {
			n = int(be16(b))
		}
		if len(b) < lenBytes+n {
			return false
		}
		b = b[lenBytes+n:]
		return true
	}
	if !skip(1) || !skip(2) || !skip(1) || len(b) < 2 {
		return false
	}
	exts := b[2:min(len(b), 2+int(be16(b)))]
	for len(exts) >= 4 {
		typ, n := be16(exts), int(be16(exts[2:]))
		if len(exts) < 4+n {
			return false
		}
		if typ == tlsExtALPN {
			if n < 2 {
				return false
			}
			list := exts[6:min(4+n, 6+int(be16(exts[4:])))]
			for len(list) > 0 {
				m := int(list[0])
				if len(list) < 1+m {
					return false
				}
				if string(list[1:1+m]) == proto {
					return true
				}
				list = list[1+m:]
			}
			return false
		}
		exts = exts[4+n:]
	}
	return false
}

const (
	tlsClientHello = 1  // HandshakeType client_hello
	tlsExtALPN     = 16 // ExtensionType application_layer_protocol_negotiation
)
