package wire

import "github.com/pion/rtp"

// RFC 8285 header extension profiles and the one-byte form's reserved id.
const (
	extProfileTwoByteMask = 0xFFF0 // 4.3: 0x100, then 4 application bits
	extIDStop             = 15     // 4.2: ends the one-byte elements; its length is ignored
)

// ExtIter walks the elements of an RFC 8285 header extension, pointing into the packet.
//
//	one-byte (4.2, profile 0xBEDE):            two-byte (4.3, profile 0x100x):
//	 0                   1                     0                   1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+         +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  ID   |  len  |  data (len+1) ...       |      ID       |    length     | data ...
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+         +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// A zero byte between elements is padding in both forms. It walks the extension body
// itself rather than pion's Header.Extensions, whose id and payload are unexported (see
// RTP.ExtensionBody); it keeps the application bits of the two-byte profile, which pion
// reads as an opaque RFC 3550 extension.
type ExtIter struct {
	b   []byte
	two bool
}

// NewExtIter returns an iterator over an RFC 8285 extension body; ok is false for the
// other profiles.
func NewExtIter(profile uint16, body []byte) (it ExtIter, ok bool) {
	switch {
	case profile == rtp.ExtensionProfileOneByte:
		return ExtIter{b: body}, true
	case profile&extProfileTwoByteMask == rtp.ExtensionProfileTwoByte:
		return ExtIter{b: body, two: true}, true
	}
	return ExtIter{}, false
}

// Cryptex profiles (RFC 9335, 5.1): the one-byte and two-byte forms with their elements
// encrypted.
const (
	ExtensionProfileCryptexOneByte = 0xC0DE
	ExtensionProfileCryptexTwoByte = 0xC2DE
)

// IsCryptex reports whether an extension block of this profile is encrypted whole
// (RFC 9335): its ids and elements cannot be read.
func IsCryptex(profile uint16) bool {
	return profile == ExtensionProfileCryptexOneByte || profile == ExtensionProfileCryptexTwoByte
}

// TwoByte reports whether the elements have the two-byte form.
func (it *ExtIter) TwoByte() bool { return it.two }

// Next returns the next element; ok is false at the end, at id 15 of the one-byte form,
// and at an element that overruns the body (the walk stops there).
func (it *ExtIter) Next() (id uint8, data []byte, ok bool) {
	for len(it.b) > 0 {
		if it.b[0] == 0 { // padding byte, both forms
			it.b = it.b[1:]
			continue
		}
		if !it.two {
			id = it.b[0] >> 4
			l := int(it.b[0]&0x0f) + 1
			if id == extIDStop || 1+l > len(it.b) {
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
