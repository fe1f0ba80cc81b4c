package demux

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
)

// WebSocket frames (RFC 6455, 5.2), as far as the text they carry: after an HTTP upgrade a
// signalling connection sends its messages (JSON with SDP, most often) as frames.

// WebSocket opcodes (RFC 6455, 5.2).
const (
	wsContinuation = 0x0
	wsText         = 0x1
	wsBinary       = 0x2
	wsClose        = 0x8
	wsPing         = 0x9
	wsPong         = 0xa
)

// wsFrame is a frame's header.
type wsFrame struct {
	hdr, n int // header and payload lengths
	op     byte
	fin    bool
	// deflated is RSV1, which permessage-deflate (RFC 7692) sets on the first frame of a
	// compressed message.
	deflated bool
	masked   bool
	key      [4]byte
}

// readWSFrame reads the frame header at the start of b. It returns ok false when b does
// not hold the whole header yet, bad when it is no valid frame: a reserved opcode, RSV2
// or RSV3 set, a control frame fragmented or longer than 125 bytes, a 64-bit length with
// its top bit set, or a length in a longer form than it needs.
func readWSFrame(b []byte) (f wsFrame, ok, bad bool) {
	if len(b) < 2 {
		return f, false, false
	}
	f.fin = b[0]&0x80 != 0
	f.deflated = b[0]&0x40 != 0
	f.op = b[0] & 0x0f
	f.masked = b[1]&0x80 != 0
	switch f.op {
	case wsContinuation, wsText, wsBinary:
	case wsClose, wsPing, wsPong:
		if !f.fin || b[1]&0x7f > 125 {
			return f, false, true
		}
	default:
		return f, false, true
	}
	if b[0]&0x30 != 0 {
		return f, false, true
	}
	f.hdr = 2
	var n uint64
	switch l := b[1] & 0x7f; l {
	case 126:
		if len(b) < 4 {
			return f, false, false
		}
		n = uint64(binary.BigEndian.Uint16(b[2:]))
		f.hdr = 4
		if n < 126 {
			return f, false, true
		}
	case 127:
		if len(b) < 10 {
			return f, false, false
		}
		n = binary.BigEndian.Uint64(b[2:])
		f.hdr = 10
		if n>>63 != 0 || n <= 0xffff {
			return f, false, true
		}
	default:
		n = uint64(l)
	}
	if f.masked {
		if len(b) < f.hdr+4 {
			return f, false, false
		}
		copy(f.key[:], b[f.hdr:])
		f.hdr += 4
	}
	if n > maxSignal {
		return f, false, true // no signalling message is this long: not followed
	}
	f.n = int(n)
	return f, true, false
}

// unmask appends the payload p of frame f to out, unmasked (RFC 6455, 5.3).
func (f *wsFrame) unmask(out, p []byte) []byte {
	if !f.masked {
		return append(out, p...)
	}
	for i, c := range p {
		out = append(out, c^f.key[i&3])
	}
	return out
}

// inflater decompresses one direction's messages of permessage-deflate (RFC 7692, 7.2.2):
// each is raw DEFLATE (RFC 1951) ending with an empty stored block whose last four bytes
// the sender left out. Unless the extension said no_context_takeover, a message may refer
// to the last 32 KiB of those before it: they are kept, and given as the dictionary,
// which does no harm where it was said.
type inflater struct {
	r      io.ReadCloser // reused (flate.Resetter)
	window []byte        // the last 32 KiB the direction's compressed messages decompressed to
	out    bytes.Buffer
	broken bool // a message failed: the window is unknown, nothing more is read
}

// maxWindow is DEFLATE's window (RFC 1951, 2.1).
const maxWindow = 32 << 10

// message returns the decompressed message of the compressed bytes msg, or nil when it
// cannot be read: broken, or longer than maxSignal. skipped says msg was dropped (too
// long): its data, unknown, breaks the window.
func (z *inflater) message(msg []byte, skipped bool) []byte {
	if z.broken || skipped {
		z.broken = true
		return nil
	}
	in := io.MultiReader(bytes.NewReader(msg), bytes.NewReader([]byte{0, 0, 0xff, 0xff}))
	if z.r == nil {
		z.r = flate.NewReaderDict(in, z.window)
	} else if err := z.r.(flate.Resetter).Reset(in, z.window); err != nil {
		z.broken = true
		return nil
	}
	z.out.Reset()
	n, err := z.out.ReadFrom(io.LimitReader(z.r, maxSignal+1))
	if err != nil && err != io.ErrUnexpectedEOF || n > maxSignal {
		z.broken = true // corrupt, or a bomb: the window is lost either way
		return nil
	}
	out := z.out.Bytes()
	z.window = append(z.window, out...)
	if len(z.window) > maxWindow {
		z.window = append(z.window[:0], z.window[len(z.window)-maxWindow:]...)
	}
	return out
}
