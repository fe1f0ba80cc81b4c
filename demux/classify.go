package demux

import (
	"encoding/binary"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/wire"
)

// Class is what a datagram or unframed TCP message carries, decided from its first bytes.
type Class uint8

const (
	ClassOther       Class = iota // failed validation, or a first byte no protocol claims
	ClassSTUN                     // RFC 8489 (and RFC 3489 classic STUN, see Classify)
	ClassZRTP                     // RFC 6189
	ClassDTLS                     // RFC 9147, RFC 6347
	ClassChannelData              // RFC 8656, 12.4
	ClassQUIC                     // RFC 9000, multiplexed per RFC 9443
	ClassRTP                      // RFC 3550
	ClassRTCP                     // RFC 3550, multiplexed per RFC 5761
)

var classNames = [...]string{
	ClassOther:       "other",
	ClassSTUN:        "stun",
	ClassZRTP:        "zrtp",
	ClassDTLS:        "dtls",
	ClassChannelData: "channeldata",
	ClassQUIC:        "quic",
	ClassRTP:         "rtp",
	ClassRTCP:        "rtcp",
}

// String returns the name the report uses in a flow's content list.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "other"
}

const (
	zrtpMagicCookie = 0x5A525450 // "ZRTP", RFC 6189, 5
	zrtpMinSize     = 16         // 12-byte header and the 4-byte CRC
	// quicShortMinSize: a short header packet has a header protection sample of 16 bytes
	// starting 4 bytes after the packet number offset (RFC 9001, 5.4.2), so at least
	// 1 + 4 + 16 bytes even with an empty connection ID.
	quicShortMinSize = 21
	quicLongMinSize  = 7 // flags, version, DCID length, SCID length
)

// Classify says what b carries, by its first byte as RFC 7983 (updated by RFC 9443) assigns
// the ranges, then by a validation of the candidate's header:
//
//	  0-3    STUN: at least 20 bytes, the magic cookie, a length that is a multiple of 4
//	         and fits in b
//	 16-19   ZRTP: the "ZRTP" magic cookie
//	 20-63   DTLS: a 13-byte record header with version 1.0/1.2/1.3 and a length that fits,
//	         or a DTLS 1.3 unified header (001CSLEE)
//	 64-79   TURN ChannelData: channel 0x4000-0x4FFF, length fitting, at most 3 bytes of
//	         padding after it
//	 80-127  QUIC short header (or RFC 5766's channels 0x5000-0x7FFF, which only the TURN
//	         state can tell: Tracker.Refine)
//	128-191  RTP (RTCP when the second byte is 192-223, RFC 5761): the header decodes
//	         (wire.RTP: version 2, CSRC list and header extension fitting; not the
//	         padding count, which SRTP encrypts, RFC 3711 3.1)
//	192-255  QUIC long header
//
// A classic RFC 3489 STUN message has no magic cookie, so its first byte is the only hint
// it shares with every other protocol: it is taken as STUN only when its length field
// accounts for exactly the rest of b and its attributes walk to exactly that end. Old ICE
// stacks and MS-TURN still send it, and the exact fit makes random payloads very unlikely to
// pass.
//
// Anything that fails validation is ClassOther. Classify is a new Classifier's Classify:
// it allocates nothing, except to decode the CSRC list or header extension of an RTP
// packet, for which the per-packet path keeps a Classifier.
func Classify(b []byte) Class {
	var c Classifier
	return c.Classify(b, false)
}

// Classifier classifies messages as Classify does and keeps the RTP header it decoded to
// validate one, so that the next stage reads that header instead of decoding the packet
// again: the validation of an RTP packet is its decoding. The zero value is ready; it is
// not safe for concurrent use. Once its header's CSRC and extension lists have grown to
// the largest seen, a Classifier allocates nothing.
type Classifier struct {
	rtp   wire.RTP
	rtpOK bool
}

// Classify says what b carries (see the package function Classify); truncated says that
// the capture's snap length cut it: the checks that need the end of the message (length
// fits) are then skipped, the header checks kept.
func (c *Classifier) Classify(b []byte, truncated bool) Class {
	c.rtpOK = false
	if len(b) == 0 {
		return ClassOther
	}
	switch wire.FirstByte(b[0]) {
	case wire.RangeSTUN:
		return validSTUN(b, truncated)
	case wire.RangeZRTP:
		return validZRTP(b)
	case wire.RangeDTLS:
		return validDTLS(b, truncated)
	case wire.RangeChannelData:
		if validChannelData(b, truncated) {
			return ClassChannelData
		}
	case wire.RangeQUICShort:
		if len(b) >= quicShortMinSize || truncated {
			return ClassQUIC
		}
	case wire.RangeRTP:
		if wire.IsRTCP(b) {
			return validRTCP(b, truncated)
		}
		err := c.rtpHeader(b, truncated)
		// A truncated packet cut inside its fixed header is still RTP by its first byte;
		// only its header cannot be read (one cut after it is read: wire.RTP.Unmarshal).
		if err == nil || truncated && err == wire.ErrRTPShort {
			return ClassRTP
		}
	case wire.RangeQUICLong:
		return validQUICLong(b, truncated)
	}
	return ClassOther
}

// DecodeRTP decodes b's RTP header whatever its first byte says, for a message whose class
// the user forced (--decode-as rtp); RTP returns the result. truncated is as for Classify.
func (c *Classifier) DecodeRTP(b []byte, truncated bool) {
	c.rtpHeader(b, truncated)
}

func (c *Classifier) rtpHeader(b []byte, truncated bool) error {
	err := c.rtp.Unmarshal(b, truncated)
	c.rtpOK = err == nil
	return err
}

// RTP returns the RTP header decoded by the last Classify, if it said ClassRTP, or by
// DecodeRTP; nil otherwise, and when it did not decode (a truncated packet cut inside its
// fixed header).
// The header points into the message, and is valid until the next call of Classify or
// DecodeRTP.
func (c *Classifier) RTP() *wire.RTP {
	if !c.rtpOK {
		return nil
	}
	return &c.rtp
}

// validSTUN checks the RFC 8489 header:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|0 0|     STUN Message Type     |         Message Length        |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                         Magic Cookie                          |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                     Transaction ID (96 bits)                  |
func validSTUN(b []byte, truncated bool) Class {
	if len(b) < wire.STUNHeaderLen {
		return ClassOther
	}
	n := int(binary.BigEndian.Uint16(b[2:4]))
	if n%4 != 0 {
		return ClassOther
	}
	if stun.IsMessage(b) { // the magic cookie
		if wire.STUNHeaderLen+n <= len(b) || truncated {
			return ClassSTUN
		}
		return ClassOther
	}
	// RFC 3489: the 128-bit transaction ID takes the cookie's place.
	if wire.STUNHeaderLen+n == len(b) && attributesFit(b[wire.STUNHeaderLen:]) {
		return ClassSTUN
	}
	return ClassOther
}

// attributesFit reports whether the STUN attributes in b (type, length, value padded to 4)
// end exactly at the end of b.
func attributesFit(b []byte) bool {
	for len(b) > 0 {
		if len(b) < 4 {
			return false
		}
		n := 4 + pad4(int(binary.BigEndian.Uint16(b[2:4])))
		if n > len(b) {
			return false
		}
		b = b[n:]
	}
	return true
}

func pad4(n int) int { return (n + 3) &^ 3 }

func validZRTP(b []byte) Class {
	if len(b) >= zrtpMinSize && binary.BigEndian.Uint32(b[4:8]) == zrtpMagicCookie {
		return ClassZRTP
	}
	return ClassOther
}

// validDTLS checks a DTLSPlaintext or DTLSCiphertext record header (RFC 9147, 4):
//
//	type(1) version(2) epoch(2) sequence_number(6) length(2)      20-31, plaintext
//	0 0 1 C S L E E  [connection id] seq(1|2) [length(2)]         32-63, unified header
func validDTLS(b []byte, truncated bool) Class {
	if wire.IsDTLSUnified(b[0]) {
		// DTLS 1.3 unified header (RFC 9147 4). Its first byte alone is any byte of 0x20-0x3F,
		// a quarter of random traffic (DNS transaction IDs, say), so only a header whose
		// length is present and accounts for the datagram exactly (or is followed by another
		// record) counts. Headers with a connection ID, whose length the packet does not
		// carry, or without a length are not told apart from noise; WebRTC does not
		// negotiate connection IDs.
		const cBit, sBit, lBit = 0x10, 0x08, 0x04
		if b[0]&cBit != 0 || b[0]&lBit == 0 {
			return ClassOther
		}
		h := 1 + 1 + 2
		if b[0]&sBit != 0 {
			h++
		}
		if len(b) < h {
			return ClassOther
		}
		end := h + int(binary.BigEndian.Uint16(b[h-2:h]))
		if end == len(b) || truncated && end > len(b) || end < len(b) && b[end] >= 20 && b[end] <= 63 {
			return ClassDTLS
		}
		return ClassOther
	}
	if len(b) < wire.DTLSRecordHeaderLen {
		return ClassOther
	}
	switch binary.BigEndian.Uint16(b[1:3]) {
	case 0xFEFF, 0xFEFD, 0xFEFC: // DTLS 1.0, 1.2, 1.3 (RFC 9147 keeps 1.2 on the wire)
	default:
		return ClassOther
	}
	if wire.DTLSRecordHeaderLen+int(binary.BigEndian.Uint16(b[11:13])) <= len(b) || truncated {
		return ClassDTLS
	}
	return ClassOther
}

// validChannelData checks the RFC 8656 12.4 header: a channel number in 0x4000-0x4FFF
// (implied by the first byte) and a length that fits, followed by at most 3 bytes of
// padding (required over TCP, allowed over UDP).
func validChannelData(b []byte, truncated bool) bool {
	if len(b) < wire.ChannelDataHeaderLen {
		return false
	}
	rest := len(b) - wire.ChannelDataHeaderLen - int(binary.BigEndian.Uint16(b[2:4]))
	return (rest >= 0 || truncated) && rest <= 3
}

// validRTCP checks the first packet's header (RFC 3550, 6.4.1); the rest of a compound
// packet is not walked because SRTCP appends its index and tag after it.
//
//	|V=2|P|    RC   |   PT=SR=200   |             length            |
func validRTCP(b []byte, truncated bool) Class {
	if len(b) < wire.RTCPClearLen || b[0]>>6 != wire.RTPVersion {
		return ClassOther
	}
	if wire.RTCPLen(b) <= len(b) || truncated {
		return ClassRTCP
	}
	return ClassOther
}

// validQUICLong checks a long header (RFC 9000, 17.2): the version, then the destination and
// source connection IDs, each after its length byte, must fit.
func validQUICLong(b []byte, truncated bool) Class {
	if len(b) < quicLongMinSize {
		return ClassOther
	}
	i := 5 + 1 + int(b[5]) // past the DCID
	if i >= len(b) {
		if truncated {
			return ClassQUIC
		}
		return ClassOther
	}
	if i+1+int(b[i]) > len(b) && !truncated {
		return ClassOther
	}
	return ClassQUIC
}
