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
