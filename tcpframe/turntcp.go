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
// from RFC 5766 servers and libwebrtc (wire.IsLegacyChannelByte): inside TURN's TCP framing
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
// a multiple of 4 is read both ways and the reading whose next header is the likelier wins
// (decide); a decision on clear evidence then sticks for the direction, so that the rest of
// it costs nothing. The zero value is ready to use.
type TURNSplitter struct {
	mode int8 // 0 undecided, 1 padded, -1 unpadded
}

// Split is the SplitFunc of TURN over TCP.
func (t *TURNSplitter) Split(data []byte, atEOF bool) (advance int, msg []byte, err error) {
	return t.split(data, atEOF, nil)
}

// split is Split for a Conn, which also knows the channels the connection carried in step
// (chans, nil if none): decide reads them. (A pointer in TURNSplitter, which would spare
// the argument, made every in-order segment slower: the dir's fields moved.)
func (t *TURNSplitter) split(data []byte, atEOF bool, chans *known[uint16]) (advance int, msg []byte, err error) {
	size, alt, ok, advance, err := head(probeTURNInSync, data, atEOF)
	if !ok {
		return advance, nil, err
	}
	if chans != nil && wire.IsAnyChannelByte(data[0]) && !chans.has(uint16(be16(data))) {
		switch relayedStart(data, channelDataHeaderLen+be16(data[2:])) {
		case probeInvalid:
			return 0, nil, ErrBadHeader
		case probeNeedMore:
			if !atEOF {
				return 0, nil, nil
			}
		}
	}
	msgLen, adv := size, size
	if alt != 0 {
		msgLen = alt
		switch t.mode {
		case -1:
			adv = alt
		case 0:
			var need bool
			adv, need = t.decide(data, size, alt, atEOF, chans)
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

// Which reading of the padding. Read as padded, an unpadded peer's next header is looked for
// 1 to 3 bytes into it: on a channel's low byte (Length 3 mod 4), a Length's high byte (2 mod
// 4) or its low byte (1 mod 4; a STUN message's length low byte too). In sync, any byte
// 0x40-0x7F there is a channel (RFC 5766's range), so both readings often validate: Length
// 0x71, RTP of 113 bytes (Opus near 100 bytes), reads as channel 0x71xx, and the padded
// reading, kept on a tie, lost the direction in a false frame of tens of kilobytes.
// Validity does not choose, then; what a true boundary shows and a misread byte seldom does
// is a STUN message (its magic cookie) or ChannelData on a channel the connection carried
// (this message's own, or one the Conn cut in step before, chans): a 16-bit match. So each
// reading's next header is graded, and the stronger wins; on a tie, the frame after each is
// graded too (on its channel as well, for a channel the capture has not seen before). A
// decision won on a strong header, or against a reading that does not validate, sticks.

// grade is what the header a reading puts at a frame boundary says of that reading.
type grade int8

const (
	gradeNone   grade = iota // not a header: the reading is wrong
	gradeMore                // too few bytes to tell
	gradeEnd                 // the end of the data at EOF: nothing against the reading
	gradeWeak                // ChannelData on a channel not carried before
	gradeStrong              // STUN, or ChannelData on a channel carried before
)

// decide picks the padded (size) or unpadded (alt) reading of an ambiguous ChannelData
// message by grading the header that follows each, and the one after that on a tie.
func (t *TURNSplitter) decide(data []byte, size, alt int, atEOF bool, chans *known[uint16]) (adv int, need bool) {
	ch := be16(data)
	p, ps, pa := gradeAt(data, size, ch, -1, atEOF, chans)
	u, us, ua := gradeAt(data, alt, ch, -1, atEOF, chans)
	if p == gradeMore || u == gradeMore {
		return 0, true
	}
	if p == u && p >= gradeWeak {
		p, u = gradeAfter(data, size, ps, pa, ch, atEOF, chans), gradeAfter(data, alt, us, ua, ch, atEOF, chans)
		if (p == gradeMore || u == gradeMore) && max(p, u) != gradeStrong {
			return 0, true
		}
	}
	switch {
	case p > u:
		t.settle(1, p, u)
		return size, false
	case u > p:
		t.settle(-1, u, p)
		return alt, false
	}
	if len(data) < size {
		return alt, false
	}
	return size, false
}

// settle makes mode stick when the reading won clearly: on a strong header, or against one
// that is no header.
func (t *TURNSplitter) settle(mode int8, won, lost grade) {
	if won == gradeStrong || won >= gradeWeak && lost == gradeNone {
		t.mode = mode
	}
}

// gradeAt grades the header at data[n:], where a frame on channel ch (and one on ch2, or -1)
// would put the next one, and returns its readings.
func gradeAt(data []byte, n, ch, ch2 int, atEOF bool, chans *known[uint16]) (g grade, size, alt int) {
	switch {
	case len(data) < n && atEOF:
		return gradeNone, 0, 0
	case len(data) == n && atEOF:
		return gradeEnd, 0, 0
	case len(data) <= n:
		return gradeMore, 0, 0
	}
	b := data[n:]
	size, alt, r := probeTURNInSync(b)
	switch {
	case r == probeNeedMore && !atEOF:
		return gradeMore, 0, 0
	case r != probeValid:
		return gradeNone, 0, 0
	}
	if !wire.IsAnyChannelByte(b[0]) {
		return gradeStrong, size, alt // STUN: probeTURNHeader checked the cookie
	}
	if c := be16(b); c == ch || c == ch2 || chans != nil && chans.has(uint16(c)) {
		return gradeStrong, size, alt
	}
	return gradeWeak, size, alt
}

// gradeAfter grades the frame after the one at data[n:], read with size (or alt): the better
// of its readings.
func gradeAfter(data []byte, n, size, alt, ch int, atEOF bool, chans *known[uint16]) grade {
	ch2 := -1
	if wire.IsAnyChannelByte(data[n]) {
		ch2 = be16(data[n:])
	}
	g, _, _ := gradeAt(data, n+size, ch, ch2, atEOF, chans)
	if alt != 0 {
		ga, _, _ := gradeAt(data, n+alt, ch, ch2, atEOF, chans)
		g = max(g, ga)
	}
	return g
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

// relayedStart says whether a ChannelData message on a channel the connection has not
// carried, n bytes with its header at b[0], can be one: empty, or carrying a datagram that
// starts as a relayed one does (RFC 7983: STUN with its magic cookie, ZRTP, DTLS, RTP or
// RTCP). In sync, garbage
// whose first bytes read as a new channel's header ("AB" is channel 0x4142) claimed 17,220
// bytes, and every frame after it (h157: 21 of 25 packets lost, nothing skipped).
func relayedStart(b []byte, n int) probeResult {
	switch {
	case n == channelDataHeaderLen:
		return probeValid
	case len(b) == channelDataHeaderLen:
		return probeNeedMore
	}
	d := b[channelDataHeaderLen:]
	switch wire.FirstByte(d[0]) {
	case wire.RangeSTUN: // with its magic cookie (h163: 0x00 after a header swallowed 99 frames)
		switch {
		case n < channelDataHeaderLen+wire.STUNHeaderLen:
			return probeInvalid
		case len(d) < wire.STUNCookieOffset+4:
			return probeNeedMore
		case be32(d[wire.STUNCookieOffset:]) == wire.STUNMagicCookie:
			return probeValid
		}
	case wire.RangeZRTP, wire.RangeDTLS, wire.RangeRTP:
		return probeValid
	}
	return probeInvalid
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
