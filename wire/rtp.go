package wire

import (
	"encoding/binary"

	"github.com/pion/rtp"
)

// The RTP fixed header (RFC 3550, 5.1):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|V=2|P|X|  CC   |M|     PT      |       sequence number         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                           timestamp                           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|           synchronization source (SSRC) identifier            |
//	+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
//	|            contributing source (CSRC) identifiers             |
//	|                             ....                              |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|      defined by profile       |           length              |  if X (5.3.1)
//	|                        header extension                       |
//	|                             ....                              |
const (
	RTPFixedHeaderLen = 12
	RTPVersion        = 2 // RTP and RTCP alike (RFC 3550, 5.1 and 6.4.1)

	versionShift   = 6
	paddingBit     = 0x20
	extensionBit   = 0x10
	ccMask         = 0x0f
	markerBit      = 0x80
	maxCSRC        = ccMask
	csrcLen        = 4
	extHeaderLen   = 4 // profile (16 bits) and length in 32-bit words (16 bits)
	extLenOffset   = 2 // of the length within the extension header
	extensionWords = 4 // bytes per length unit
)

// RTP is an RTP header decoded by pion/rtp, with the lengths the accounting needs. The
// embedded Header is pion's, PaddingSize included (Header.Unmarshal leaves it to
// Packet.Unmarshal; Unmarshal here sets it, 0 when the count was not read).
//
// The padding count cannot always be read. With SRTP the last byte of the packet is the
// end of the authentication tag, and the padding with its count lies inside the encrypted
// portion (RFC 3711, 3.1): the byte RFC 3550's reading takes for the count is a random
// one. A header whose version, CSRC list and extension are valid is RTP whatever that byte
// says; when it cannot be a count (0, or beyond the payload: no sender writes that in the
// clear) the count is unreadable, and so it is when the caller knows the packet is SRTP
// (MarkSRTP). An unread count means PaddingSize 0, PaddingUnread, and every byte after
// the header counted as payload: where the padding begins is unknown.
//
// Decoded values point into the packet (ExtensionBody, the payloads of Header.Extensions):
// they are valid as long as it is. Keep one RTP for every packet: its CSRC and Extensions
// slices keep their capacity, so decoding allocates nothing once they have grown.
type RTP struct {
	rtp.Header
	HeaderLen  int // 12 + 4·CC + the header extension with its 4-byte header
	PayloadLen int // the bytes after the header, less the padding
	// ExtensionBody is the header extension after its profile and length, nil without one:
	// what Elements walks. pion's Header.Extensions holds the same elements, but in
	// unexported fields that only a search by id (GetExtension) or an allocating list of
	// ids (GetExtensionIDs) reads.
	ExtensionBody []byte
	// PaddingUnread is set when the P bit is set but its count was not taken: 0 or beyond
	// the payload, or MarkSRTP. (A packet the snap length cut has its count unread
	// too, but that is said by truncation, not here.)
	PaddingUnread bool
	// SRTP says the caller knows the packet is SRTP (MarkSRTP): everything after its
	// header is encrypted, an RTX packet's original sequence number included.
	SRTP bool
	// ExtLenCut says the snap length cut the header extension's length: HeaderLen is the
	// least the header can be (12 + 4·CC + 4), and PayloadLen holds the rest of it.
	ExtLenCut bool
}

// Unmarshal decodes the RTP header at the start of b. It fails when b is shorter than the
// fixed header, its version is not 2, or its CSRC list or header extension runs beyond b;
// never for its padding count alone: a count of 0 or longer than the payload is unread
// (PaddingUnread, see RTP). On failure r holds nothing meaningful.
//
// truncated says that the capture's snap length cut the packet: its last captured byte is
// then not the padding count, so padding is not read (PaddingSize 0) and every captured
// byte after the header counts as payload. A truncated packet whose cut falls inside the
// CSRC list or the extension is decoded from its fixed header (cut).
//
// The lengths are checked before pion parses (as stun.IsMessage is checked before a STUN
// decode): pion builds its errors with fmt.Errorf, and random payloads in the RTP range
// mostly fail here, where failing allocates nothing. What pion can still reject is a list
// of RFC 8285 elements that overruns its extension; such a header is whole and is
// accepted, as the elements before the bad one are (Elements stops there too), at the cost
// of pion's error value.
func (r *RTP) Unmarshal(b []byte, truncated bool) error {
	if len(b) < RTPFixedHeaderLen {
		return r.fail(ErrRTPShort)
	}
	if b[0]>>versionShift != RTPVersion {
		return r.fail(ErrRTPVersion)
	}
	n, ext := headerLen(b)
	if n > len(b) {
		if !truncated {
			return r.fail(ErrRTPHeaderLength)
		}
		return r.cut(b, n)
	}
	if cc := int(b[0] & ccMask); cc > cap(r.CSRC) {
		r.CSRC = make([]uint32, 0, maxCSRC) // once: pion would allocate each larger count
	}
	_, _ = r.Header.Unmarshal(b) // only an overrunning element list fails here: see above
	r.PaddingSize = 0
	r.PaddingUnread = false
	r.SRTP = false
	r.ExtLenCut = false
	r.ExtensionBody = ext
	r.HeaderLen = n
	rest := len(b) - n
	if r.Padding && !truncated {
		// The last octet counts the padding, itself included (RFC 3550, 5.1).
		// A count that cannot be one is the tail of an SRTP auth tag (see RTP): unread.
		if p := int(b[len(b)-1]); p == 0 || p > rest {
			r.PaddingUnread = true
		} else {
			r.PaddingSize = byte(p)
			rest -= p
		}
	}
	r.PayloadLen = rest
	return nil
}

// cut decodes a header that the capture cut inside its CSRC list or extension, whose
// length is n (at least 12 + 4·CC + 4 when the extension's own length was cut too): the
// fixed header's fields are captured, and with them the packet's stream, sequence number
// and timestamp (DESIGN: what the captured bytes allow is still computed). pion's
// Unmarshal rejects a header that runs beyond its buffer, so the fixed header is read
// here, by hand; neither the CSRCs nor the extension's elements are read. PayloadLen, the
// captured bytes after the header, is then negative: PacketOf adds what the snap length
// cut.
func (r *RTP) cut(b []byte, n int) error {
	r.Header = rtp.Header{
		Version:          RTPVersion,
		Padding:          b[0]&paddingBit != 0,
		Extension:        b[0]&extensionBit != 0,
		Marker:           b[1]&markerBit != 0,
		PayloadType:      b[1] &^ markerBit,
		SequenceNumber:   binary.BigEndian.Uint16(b[2:]),
		Timestamp:        binary.BigEndian.Uint32(b[4:]),
		SSRC:             binary.BigEndian.Uint32(b[8:]),
		CSRC:             r.CSRC[:0],
		Extensions:       r.Extensions[:0],
		ExtensionProfile: 0,
	}
	if at := RTPFixedHeaderLen + int(b[0]&ccMask)*csrcLen; r.Extension && at+extLenOffset <= len(b) {
		r.ExtensionProfile = binary.BigEndian.Uint16(b[at:])
	}
	r.PaddingUnread, r.SRTP = false, false
	r.ExtLenCut = r.Extension && RTPFixedHeaderLen+int(b[0]&ccMask)*csrcLen+extHeaderLen > len(b)
	r.ExtensionBody = nil
	r.HeaderLen = n
	r.PayloadLen = len(b) - n
	return nil
}

// RTPHeaderLen returns the length of the RTP header at the start of b (12 + 4·CC + the
// header extension with its 4-byte header), which may run beyond b when b holds only its
// first bytes. b holds at least the fixed header.
func RTPHeaderLen(b []byte) int {
	n, _ := headerLen(b)
	return n
}

// headerLen returns the length of b's header (12 + 4·CC + extension) and the extension's
// body, without reading beyond b: a length beyond b means the header does not fit.
func headerLen(b []byte) (n int, ext []byte) {
	n = RTPFixedHeaderLen + int(b[0]&ccMask)*csrcLen
	if b[0]&extensionBit == 0 {
		return n, nil
	}
	if n+extHeaderLen > len(b) {
		return n + extHeaderLen, nil
	}
	l := int(binary.BigEndian.Uint16(b[n+extLenOffset:])) * extensionWords
	n += extHeaderLen
	if n+l > len(b) {
		return n + l, nil
	}
	return n + l, b[n : n+l]
}

// fail resets r, keeping its slices' capacity, and returns err.
func (r *RTP) fail(err error) error {
	*r = RTP{Header: rtp.Header{CSRC: r.CSRC[:0], Extensions: r.Extensions[:0]}}
	return err
}

// MarkSRTP marks a packet the caller knows to be SRTP (its flow carried the DTLS that
// keyed it, RFC 5764): its payload is encrypted (SRTP), and its padding count unread: a
// count that looks valid is a random byte of the auth tag all the same, so the bytes it
// claimed count as payload again.
func (r *RTP) MarkSRTP() {
	r.SRTP = true
	if !r.Padding {
		return
	}
	r.PayloadLen += int(r.PaddingSize)
	r.PaddingSize = 0
	r.PaddingUnread = true
}

// PaddingLen is the padding count as an int: 0 without padding or when it was not read.
func (r *RTP) PaddingLen() int { return int(r.PaddingSize) }
