package wire

import (
	"encoding/binary"
	"testing"
)

// refRTP is the hand-written RTP decoder the stages had before RTP (rtpflow's header
// unmarshal, and demux's validRTP for the classification), kept as the reference that
// FuzzRTPReference holds RTP to: decoding by pion must accept, reject and measure exactly
// what it did, but for the padding count, which no longer rejects a packet: a count of 0
// or beyond the payload is unread (an SRTP auth tag's last byte), the bytes all payload.
type refRTP struct {
	padding, extension, marker bool
	pt                         uint8
	seq                        uint16
	ts, ssrc                   uint32
	extProfile                 uint16
	extBody                    []byte
	headerLen, payloadLen      int
	padLen                     int
}

func (h *refRTP) unmarshal(b []byte, snapped bool) bool {
	*h = refRTP{}
	if len(b) < 12 || b[0]>>6 != 2 {
		return false
	}
	h.padding = b[0]&0x20 != 0
	h.extension = b[0]&0x10 != 0
	h.marker = b[1]&0x80 != 0
	h.pt = b[1] & 0x7f
	h.seq = binary.BigEndian.Uint16(b[2:])
	h.ts = binary.BigEndian.Uint32(b[4:])
	h.ssrc = binary.BigEndian.Uint32(b[8:])
	n := 12 + int(b[0]&0x0f)*4
	if n > len(b) {
		if h.extension {
			n += 4 // the extension's header at least
		}
		return h.cut(b, n, snapped)
	}
	if h.extension {
		if n+2 <= len(b) {
			h.extProfile = binary.BigEndian.Uint16(b[n:])
		}
		if n+4 > len(b) {
			return h.cut(b, n+4, snapped)
		}
		l := int(binary.BigEndian.Uint16(b[n+2:])) * 4
		n += 4
		if n+l > len(b) {
			return h.cut(b, n+l, snapped)
		}
		h.extBody = b[n : n+l]
		n += l
	}
	h.headerLen = n
	rest := len(b) - n
	if h.padding && !snapped {
		if p := int(b[len(b)-1]); p != 0 && p <= rest {
			h.padLen = p
			rest -= p
		}
	}
	h.payloadLen = rest
	return true
}

// cut is a header of length n that runs beyond b: rejected, unless the snap length cut it,
// when the fixed header's fields stand and the captured bytes after the header number
// len(b) − n (negative). The CSRCs and the extension's body are not read.
func (h *refRTP) cut(b []byte, n int, snapped bool) bool {
	if !snapped {
		return false
	}
	h.extBody, h.headerLen, h.payloadLen = nil, n, len(b)-n
	return true
}

// refValid is demux's validRTP: true when the packet classified as RTP (the padding count
// is not checked: SRTP encrypts it).
func refValid(b []byte, truncated bool) bool {
	if len(b) < 12 || b[0]>>6 != 2 {
		return false
	}
	h := 12 + 4*int(b[0]&0x0F)
	if b[0]&0x10 != 0 {
		if h+4 > len(b) {
			return truncated
		}
		h += 4 + 4*int(binary.BigEndian.Uint16(b[h+2:h+4]))
	}
	if h > len(b) {
		return truncated
	}
	return true
}

// FuzzRTPReference checks RTP against refRTP and refValid on arbitrary packets, whole and
// truncated: the same packets accepted, the same fields and lengths, the same extension
// body (which ExtIter walks), and a truncated packet rejected only where the demux still
// called it RTP (its header cut).
func FuzzRTPReference(f *testing.F) {
	for _, b := range [][]byte{
		{0x80, 0xe0, 0x12, 0x34, 0, 0, 0, 0x10, 0xde, 0xad, 0xbe, 0xef, 1, 2},
		{0xb1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0xbe, 0xde, 0, 1, 0x12, 0xaa, 0xbb, 0, 5, 0, 0, 3},
		{0xa0, 0x61, 0, 7, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 4},
		{0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x10, 0x05, 0, 1, 0x01, 0x00, 0xc8, 0x00},
		{0x90, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0xbe, 0xde, 0, 1, 0x10, 0xaa, 0x33, 0xbb},
		{0x90, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0xbe, 0xde, 0, 1, 0x05, 0xaa, 0xf3, 0xbb},
		{0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE, 0xDE, 0, 9},
		{0x8f, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1},
	} {
		f.Add(b)
	}
	var r RTP // reused across inputs, as on the per-packet path
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, truncated := range []bool{false, true} {
			var ref refRTP
			refOK := ref.unmarshal(b, truncated)
			err := r.Unmarshal(b, truncated)
			if (err == nil) != refOK {
				t.Fatalf("truncated=%v: err %v, reference ok %v", truncated, err, refOK)
			}
			cut := truncated && err == ErrRTPHeaderLength
			if refValid(b, truncated) != (err == nil || cut) {
				t.Fatalf("truncated=%v: err %v, reference classification %v", truncated, err, !refOK)
			}
			if err != nil {
				continue
			}
			got := refRTP{padding: r.Padding, extension: r.Extension, marker: r.Marker, pt: r.PayloadType,
				seq: r.SequenceNumber, ts: r.Timestamp, ssrc: r.SSRC, extBody: r.ExtensionBody,
				headerLen: r.HeaderLen, payloadLen: r.PayloadLen, padLen: r.PaddingLen()}
			if r.Extension {
				got.extProfile = r.ExtensionProfile
			}
			if unread := r.Padding && !truncated && r.PaddingSize == 0; r.PaddingUnread != unread {
				t.Fatalf("truncated=%v: PaddingUnread %v, want %v", truncated, r.PaddingUnread, unread)
			}
			if !equalRef(got, ref) {
				t.Fatalf("truncated=%v:\n got %+v\nwant %+v", truncated, got, ref)
			}
			if cc := int(b[0] & 0x0f); len(r.CSRC) != cc && r.PayloadLen >= 0 {
				t.Fatalf("%d CSRCs, want %d", len(r.CSRC), cc)
			}
		}
	})
}

func equalRef(a, b refRTP) bool {
	if string(a.extBody) != string(b.extBody) || (a.extBody == nil) != (b.extBody == nil) {
		return false
	}
	type fixed struct {
		padding, extension, marker bool
		pt                         uint8
		seq                        uint16
		ts, ssrc                   uint32
		extProfile                 uint16
		headerLen, payloadLen      int
		padLen                     int
	}
	f := func(h refRTP) fixed {
		return fixed{h.padding, h.extension, h.marker, h.pt, h.seq, h.ts, h.ssrc, h.extProfile,
			h.headerLen, h.payloadLen, h.padLen}
	}
	return f(a) == f(b)
}
