package tcpframe

import "github.com/callpcap/callpcap/wire"

// TURN over TCP (RFC 8656): STUN messages interleaved with ChannelData messages.
//
// ChannelData, RFC 8656 12.4:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|         Channel Number        |            Length             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	/                       Application Data                        /
//	+-------------------------------+-------------------------------+
//
// Over TCP the message is padded to a multiple of 4 bytes (RFC 8656 12.5); the padding is
// not counted in Length. Channel numbers are 0x4000-0x4FFF (RFC 8656 12), and 0x5000-0x7FFF
// from RFC 5766 servers and libwebrtc (wire.IsLegacyChannel): inside TURN's TCP framing
// there is no QUIC to share those first bytes with, so a message in sync that starts with
// one is a channel. Detection and resynchronisation, which look for a header in bytes of
// unknown meaning (text, encrypted media), accept a legacy channel only when the next frame
// is on the same channel or STUN: 0x50-0x7F are the first bytes of most ASCII letters.
const channelDataHeaderLen = wire.ChannelDataHeaderLen

// TURNSplitter unframes TURN over TCP. It emits each message whole: a STUN message, or a
// ChannelData message with its 4-byte header (the demux unwraps ChannelData itself); the
// framing of a message is its padding only (the summary's FramingBytes adds the ChannelData
// headers).
//
// Some peers do not pad ChannelData over TCP. While undecided, a message whose length is not
// a multiple of 4 is read both ways and the reading whose next header validates wins; the
// decision then sticks for the direction. The zero value is ready to use.
type TURNSplitter struct {
	mode int8 // 0 undecided, 1 padded, -1 unpadded
}

// Split is the SplitFunc of TURN over TCP.
func (t *TURNSplitter) Split(data []byte, atEOF bool) (advance int, msg []byte, err error) {
	size, alt, ok, advance, err := head(probeTURNInSync, data, atEOF)
	if !ok {
		return advance, nil, err
	}
	msgLen, adv := size, size
	if alt != 0 {
		msgLen = alt
		switch t.mode {
		case -1:
			adv = alt
		case 0:
			var need bool
			adv, need = t.decide(data, size, alt, atEOF)
			if need {
				return 0, nil, nil
			}
		}
	}
	if len(data) < adv {
		if !atEOF {
			return 0, nil, nil
		}
		if len(data) >= msgLen {
			return len(data), data[:msgLen], nil // padding cut by the end of the stream
		}
		return len(data), nil, nil
	}
	return adv, data[:msgLen], nil
}

// decide picks the padded (size) or unpadded (alt) reading of an ambiguous ChannelData
// message by looking at the header that follows each.
func (t *TURNSplitter) decide(data []byte, size, alt int, atEOF bool) (adv int, need bool) {
	at := func(n int) probeResult {
		if len(data) < n {
			return probeNeedMore
		}
		if len(data) == n {
			if atEOF {
				return probeInvalid
			}
			return probeNeedMore
		}
		_, _, r := probeTURNInSync(data[n:])
		return r
	}
	p, u := at(size), at(alt)
	switch {
	case p == probeValid && u != probeValid:
		t.mode = 1
		return size, false
	case u == probeValid && p != probeValid:
		t.mode = -1
		return alt, false
	case (p == probeNeedMore || u == probeNeedMore) && !atEOF:
		return 0, true
	}
	if len(data) < size {
		return alt, false
	}
	return size, false
}

// probeTURN is the probe of detection and resynchronisation: a legacy channel's header
// counts only when the frame after it is on the same channel or STUN (so at the end of the
// data, a lone legacy frame waits, or is not taken).
func probeTURN(b []byte) (size, alt int, r probeResult) { return probeTURNHeader(b, false) }

// probeTURNInSync is the probe of a direction in sync, where the next byte is a frame
// boundary: every channel number RFC 5766 allows is a channel.
func probeTURNInSync(b []byte) (size, alt int, r probeResult) { return probeTURNHeader(b, true) }

func probeTURNHeader(b []byte, inSync bool) (size, alt int, r probeResult) {
	if len(b) < 1 {
		return 0, 0, probeNeedMore
	}
	switch {
	case wire.IsAnyChannelByte(b[0]):
		if len(b) < channelDataHeaderLen {
			return 0, 0, probeNeedMore
		}
		n := channelDataHeaderLen + be16(b[2:])
		size, alt = n, 0
		if p := (n + 3) &^ 3; p != n {
			size, alt = p, n
		}
		if inSync || !wire.IsLegacyChannelByte(b[0]) {
			return size, alt, probeValid
		}
		return size, alt, sameChannelNext(b, size, alt)
	case b[0]&0xC0 == 0: // STUN: the two most significant bits are zero (RFC 8489 5)
		if len(b) < wire.STUNCookieOffset+4 {
			return 0, 0, probeNeedMore
		}
		l := be16(b[2:])
		if l%4 != 0 || be32(b[wire.STUNCookieOffset:]) != wire.STUNMagicCookie {
			return 0, 0, probeInvalid
		}
		return wire.STUNHeaderLen + l, 0, probeValid
	}
	return 0, 0, probeInvalid
}

// sameChannelNext says whether the frame after the ChannelData message at b[0], of size or
// alt bytes, is ChannelData on the same channel or a STUN message (magic cookie).
func sameChannelNext(b []byte, size, alt int) probeResult {
	r := probeInvalid
	for _, s := range [2]int{size, alt} {
		switch {
		case s <= 0:
		case len(b) < s+2:
			r = probeNeedMore
		case b[s] == b[0] && b[s+1] == b[1]:
			return probeValid
		case b[s]&0xC0 != 0: // neither the channel nor STUN
		case len(b) < s+wire.STUNCookieOffset+4:
			r = probeNeedMore
		case be32(b[s+wire.STUNCookieOffset:]) == wire.STUNMagicCookie:
			return probeValid
		}
	}
	return r
}

// keyTURN is the key of a TURN-over-TCP frame whose header probeTURN accepted: the channel
// of ChannelData, whose datagram must then start as a relayed one does (RFC 7983: STUN,
// DTLS, RTP or RTCP; QUIC does not ride TURN in WebRTC); STUN (its magic cookie checked)
// is strong. A legacy channel's number (0x5000-0x7FFF) is no key: probeTURN accepted it
// only because the next frame repeats it, as text that repeats itself does; and its
// datagram must be STUN, RTP or RTCP, whose first bytes text does not use.
func keyTURN(b []byte) (uint32, keyKind) {
	if !wire.IsAnyChannelByte(b[0]) {
		return 0, keyStrong
	}
	if be16(b[2:]) == 0 {
		return 0, keyNone // an empty datagram
	}
	if len(b) < channelDataHeaderLen+1 {
		return 0, keyShort
	}
	legacy := wire.IsLegacyChannelByte(b[0])
	switch wire.FirstByte(b[channelDataHeaderLen]) {
	case wire.RangeSTUN, wire.RangeRTP:
	case wire.RangeDTLS:
		if legacy {
			return 0, keyBad // 0x20-0x3F: the spaces, digits and signs of text
		}
		return uint32(be16(b)), keyID // the channel is the key, whatever it carries
	default:
		return 0, keyBad
	}
	if legacy {
		return 0, keyNone
	}
	return uint32(be16(b)), keyID
}
