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

// DTLS handshake: the record content type, the ServerHello's message type and the
// handshake header (msg_type(1) length(3) message_seq(2) fragment_offset(3)
// fragment_length(3), RFC 6347 4.2.2), and the use_srtp extension (RFC 5764 4.1.1).
const (
	dtlsContentHandshake = 22
	dtlsServerHello      = 2
	dtlsHandshakeLen     = 12
	extUseSRTP           = 14
)

// SRTPAuthTagLen reads the SRTP protection profile that a DTLS ServerHello chose (its
// use_srtp extension, RFC 5764 4.1.1) among the records of b, one datagram or message, and
// returns the length of the authentication tag that profile appends to every SRTP packet
// (RFC 5764 4.1.2, RFC 7714 14.2): 10 bytes for the HMAC-SHA1-80 profiles, 4 for
// HMAC-SHA1-32, 16 for AES-GCM. ok is false when b holds no such ServerHello whole enough
// to read, or names a profile of unknown tag length: DTLS 1.3 sends use_srtp encrypted,
// in EncryptedExtensions, and so does not say it.
func SRTPAuthTagLen(b []byte) (n int, ok bool) {
	for len(b) > 0 {
		typ, frag, rest, ok := NextDTLSRecord(b)
		if !ok {
			return 0, false
		}
		// A record may hold several handshake messages (ServerHello, Certificate, ...).
		for typ == dtlsContentHandshake && len(frag) >= dtlsHandshakeLen {
			if n, ok := serverHelloTag(frag); ok {
				return n, true
			}
			frag = frag[min(len(frag), dtlsHandshakeLen+int(uint32(frag[9])<<16|uint32(frag[10])<<8|uint32(frag[11]))):]
		}
		b = rest
	}
	return 0, false
}

// serverHelloTag reads the tag length of the use_srtp profile in a handshake fragment that
// starts a ServerHello.
func serverHelloTag(h []byte) (int, bool) {
	if len(h) < dtlsHandshakeLen || h[0] != dtlsServerHello || h[6] != 0 || h[7] != 0 || h[8] != 0 {
		return 0, false // another message, or a fragment that does not start it
	}
	b := h[dtlsHandshakeLen:]
	const fixed = 2 + 32 // server_version, random
	if len(b) < fixed+1 {
		return 0, false
	}
	sid := int(b[fixed])
	off := fixed + 1 + sid + 2 + 1 // session_id, cipher_suite, compression_method
	if len(b) < off+2 {
		return 0, false
	}
	exts := b[off+2:]
	if n := int(binary.BigEndian.Uint16(b[off:])); n < len(exts) {
		exts = exts[:n]
	}
	for len(exts) >= 4 {
		typ, n := binary.BigEndian.Uint16(exts), int(binary.BigEndian.Uint16(exts[2:]))
		data := exts[4:]
		if n > len(data) {
			return 0, false
		}
		if typ == extUseSRTP {
			// SRTPProtectionProfiles (a 2-byte length, then the one the server chose),
			// then srtp_mki.
			if n < 4 || binary.BigEndian.Uint16(data) < 2 {
				return 0, false
			}
			return srtpTagLen(binary.BigEndian.Uint16(data[2:]))
		}
		exts = data[n:]
	}
	return 0, false
}

// srtpTagLen is the authentication tag length of an SRTP protection profile.
func srtpTagLen(profile uint16) (int, bool) {
	switch profile {
	case 0x0001, 0x0005: // SRTP_AES128_CM_HMAC_SHA1_80, SRTP_NULL_HMAC_SHA1_80
		return 10, true
	case 0x0002, 0x0006: // SRTP_AES128_CM_HMAC_SHA1_32, SRTP_NULL_HMAC_SHA1_32
		return 4, true
	case 0x0007, 0x0008: // SRTP_AEAD_AES_128_GCM, SRTP_AEAD_AES_256_GCM
		return 16, true
	}
	return 0, false
}
