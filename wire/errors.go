package wire

import "errors"

// Why RTP.Unmarshal rejected a packet. Each is a malformed packet, which the caller counts
// and skips; ErrRTPHeaderLength on a truncated packet means the snap length cut the header.
var (
	ErrRTPShort        = errors.New("wire: RTP packet shorter than the fixed header")
	ErrRTPVersion      = errors.New("wire: RTP version is not 2")
	ErrRTPHeaderLength = errors.New("wire: RTP CSRC list or header extension beyond the packet")
)
