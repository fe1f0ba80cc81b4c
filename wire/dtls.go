package wire

import "encoding/binary"

// DTLSRecordHeaderLen is a DTLS record header: type(1) version(2) epoch(2)
// sequence_number(6) length(2) (RFC 9147, 4; RFC 6347, 4.1).
const DTLSRecordHeaderLen = 13

// DTLSContentApplicationData is the record type of application data (RFC 6347, 4.1; TLS
// ContentType 23): in WebRTC, SCTP data channels, encrypted.
const DTLSContentApplicationData = 23

// DTLS content types of the classic record header run from change_cipher_spec (20) to
// heartbeat (24), and tls12_cid (25) and ack (26) in DTLS 1.3 (RFC 9147, 4).
const dtlsMinContent, dtlsMaxContent = 20, 26

const dtlsLenOffset = 11 // of the length within the record header

// NextDTLSRecord splits the first record with the classic 13-byte header off b (one
// datagram holds several): its content type, its fragment (cut to the bytes present when
// the length runs beyond b), and the records after it. ok is false when b does not start
// with a whole classic header (a DTLS 1.3 unified header among them): the walk stops there.
// The results point into b.
func NextDTLSRecord(b []byte) (typ byte, fragment, rest []byte, ok bool) {
	if len(b) < DTLSRecordHeaderLen || b[0] < dtlsMinContent || b[0] > dtlsMaxContent {
		return 0, nil, nil, false
	}
	end := DTLSRecordHeaderLen + int(binary.BigEndian.Uint16(b[dtlsLenOffset:]))
	if end > len(b) {
		return b[0], b[DTLSRecordHeaderLen:], nil, true
	}
	return b[0], b[DTLSRecordHeaderLen:end], b[end:], true
}
