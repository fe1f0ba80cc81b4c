package wire

// DTLSRecordHeaderLen is a DTLS record header: type(1) version(2) epoch(2)
// sequence_number(6) length(2) (RFC 9147, 4; RFC 6347, 4.1).
const DTLSRecordHeaderLen = 13
