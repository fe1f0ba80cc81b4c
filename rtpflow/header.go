package rtpflow

import "encoding/binary"

// RTP fixed header layout (RFC 3550, 5.1):
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
const (
	fixedHeaderLen = 12
	versionShift   = 6
	paddingMask    = 0x20
	extensionMask  = 0x10
	ccMask         = 0x0f
	markerMask     = 0x80
	ptMask         = 0x7f
	seqOffset      = 2
	tsOffset       = 4
	ssrcOffset     = 8
	csrcLen        = 4
	extHeaderLen   = 4 // profile (16 bits) and length in 32-bit words (16 bits), RFC 3550 5.3.1
)

// header is an RTP header decoded in place: extBody points into the packet. The zero value
// is ready; unmarshal resets every field. Hand-written rather than pion/rtp's Header: this
// runs for every packet and must not allocate, must read a packet cut by the snap length
// (its padding count is then not in the captured bytes), and needs only these fields.
type header struct {
	padding, extension, marker bool
	pt                         uint8
	seq                        uint16
	ts                         uint32
	ssrc                       uint32
	extProfile                 uint16
	extBody                    []byte // the extension's data, after its 4-byte header
	headerLen                  int    // 12 + 4·CC + extension
	payloadLen                 int    // without padding
	padLen                     int
}

// unmarshal decodes b's RTP header. It returns false when the header does not parse:
// version other than 2, or CSRC list, extension or padding longer than the packet.
// When snapped is true the packet was cut by the capture's snap length, so its last byte is
// not the padding count: padding is not interpreted and the rest counts as payload.
func (h *header) unmarshal(b []byte, snapped bool) bool {
	*h = header{}
	if len(b) < fixedHeaderLen || b[0]>>versionShift != 2 {
		return false
	}
	h.padding = b[0]&paddingMask != 0
	h.extension = b[0]&extensionMask != 0
	h.marker = b[1]&markerMask != 0
	h.pt = b[1] & ptMask
	h.seq = binary.BigEndian.Uint16(b[seqOffset:])
	h.ts = binary.BigEndian.Uint32(b[tsOffset:])
	h.ssrc = binary.BigEndian.Uint32(b[ssrcOffset:])
	n := fixedHeaderLen + int(b[0]&ccMask)*csrcLen
	if n > len(b) {
		return false
	}
	if h.extension {
		if n+extHeaderLen > len(b) {
			return false
		}
		h.extProfile = binary.BigEndian.Uint16(b[n:])
		l := int(binary.BigEndian.Uint16(b[n+2:])) * 4
		n += extHeaderLen
		if n+l > len(b) {
			return false
		}
		h.extBody = b[n : n+l]
		n += l
	}
	h.headerLen = n
	rest := len(b) - n
	if h.padding && !snapped {
		// RFC 3550 5.1: the last octet counts the padding, itself included.
		p := int(b[len(b)-1])
		if p == 0 || p > rest {
			return false
		}
		h.padLen = p
		rest -= p
	}
	h.payloadLen = rest
	return true
}

// RFC 8285 header extension profiles.
const (
	profileOneByte     = 0xBEDE // 4.2
	profileTwoByteMask = 0xFFF0 // 4.3: 0x100 followed by 4 application bits
	profileTwoByte     = 0x1000
	oneByteStopID      = 15
)

// extIter walks the elements of an RFC 8285 extension block without allocating.
type extIter struct {
	b   []byte
	two bool
}

// newExtIter returns an iterator over an RFC 8285 block; ok is false for other profiles.
func newExtIter(profile uint16, body []byte) (it extIter, ok bool) {
	switch {
	case profile == profileOneByte:
		return extIter{b: body}, true
	case profile&profileTwoByteMask == profileTwoByte:
		return extIter{b: body, two: true}, true
	}
	return extIter{}, false
}

// next returns the next element; ok is false at the end or at a malformed element.
func (it *extIter) next() (id uint8, data []byte, ok bool) {
	for len(it.b) > 0 {
		if it.b[0] == 0 { // padding byte, both forms
			it.b = it.b[1:]
			continue
		}
		if !it.two {
			id = it.b[0] >> 4
			l := int(it.b[0]&0x0f) + 1
			if id == oneByteStopID || 1+l > len(it.b) {
				it.b = nil
				return 0, nil, false
			}
			data = it.b[1 : 1+l]
			it.b = it.b[1+l:]
			return id, data, true
		}
		if len(it.b) < 2 {
			it.b = nil
			return 0, nil, false
		}
		id = it.b[0]
		l := int(it.b[1])
		if 2+l > len(it.b) {
			it.b = nil
			return 0, nil, false
		}
		data = it.b[2 : 2+l]
		it.b = it.b[2+l:]
		return id, data, true
	}
	return 0, nil, false
}
