package capture

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
)

// pcapng block types (draft-ietf-opsawg-pcapng, section 11.1).
const (
	blockSHB = 0x0a0d0d0a // Section Header
	blockIDB = 1          // Interface Description
	blockOPB = 2          // Packet (obsolete)
	blockSPB = 3          // Simple Packet
	blockISB = 5          // Interface Statistics
	blockEPB = 6          // Enhanced Packet

	bomMagic = 0x1a2b3c4d

	optEndOfOpt = 0
	optTSResol  = 9  // if_tsresol
	optTSOffset = 14 // if_tsoffset
	optIfDrop   = 5  // isb_ifdrop
)

// openPcapNG reads the first Section Header Block and the Interface Description Blocks that
// follow it, so that LinkTypes is known before the first packet.
func (r *Reader) openPcapNG() error {
	bt, body, err := r.readBlock()
	if err != nil {
		if err == io.EOF || errorsIsTruncated(err) {
			return fmt.Errorf("%w: section header cut short", ErrCorrupt)
		}
		return err
	}
	if bt != blockSHB {
		return fmt.Errorf("%w: no section header", ErrCorrupt)
	}
	if err := r.section0(body); err != nil {
		return err
	}
	for {
		h, _ := r.br.Peek(4)
		if len(h) < 4 || r.u32(h) != blockIDB {
			return nil
		}
		_, body, err := r.readBlock()
		if err != nil {
			if errorsIsTruncated(err) {
				return nil // Next reports it
			}
			return err
		}
		if err := r.addIface(body); err != nil {
			return err
		}
	}
}

// readBlock reads one block and returns its type and body (between the length fields),
// valid until the next read. Every length is checked before use:
//
//	block_type(4) block_total_length(4) body(...) block_total_length(4)
//
// For a Section Header Block the byte order comes from its byte-order magic and becomes the
// reader's (r.le).
func (r *Reader) readBlock() (uint32, []byte, error) {
	h, err := r.br.Peek(12)
	if len(h) < 8 {
		if len(h) == 0 && err == io.EOF && r.src.err == nil {
			return 0, nil, io.EOF
		}
		return 0, nil, r.readErr(err, "block header")
	}
	bt := r.u32(h)
	minLen := uint32(12)
	if binary.BigEndian.Uint32(h) == blockSHB {
		bt = blockSHB
		if len(h) < 12 {
			return 0, nil, r.readErr(err, "section header")
		}
		switch {
		case binary.LittleEndian.Uint32(h[8:]) == bomMagic:
			r.le = true
		case binary.BigEndian.Uint32(h[8:]) == bomMagic:
			r.le = false
		default:
			return 0, nil, fmt.Errorf("%w: bad byte-order magic in section header", ErrCorrupt)
		}
		minLen = 28
	}
	n := r.u32(h[4:])
	if n < minLen || n%4 != 0 || n > maxBlock {
		return 0, nil, fmt.Errorf("%w: block type %#x with length %d", ErrCorrupt, bt, n)
	}
	b, err := r.readN(int(n), "block")
	if err != nil {
		return 0, nil, err
	}
	r.blockOff = r.br.consumed - int64(n)
	if r.u32(b[n-4:]) != n {
		return 0, nil, fmt.Errorf("%w: block type %#x: trailing length %d, leading %d", ErrCorrupt, bt, r.u32(b[n-4:]), n)
	}
	return bt, b[8 : n-4], nil
}

// section0 applies a Section Header Block body:
//
//	byte_order_magic(4) major(2) minor(2) section_length(8) options
func (r *Reader) section0(body []byte) error {
	major, minor := r.u16(body[4:]), r.u16(body[6:])
	// 1.0 is the format; 1.2 was written by some early tools and readers accept it.
	if major != 1 || (minor != 0 && minor != 2) {
		return fmt.Errorf("%w: pcapng version %d.%d", ErrUnsupported, major, minor)
	}
	if err := r.options(body[16:], nil); err != nil {
		return fmt.Errorf("%w: section header: %w", ErrCorrupt, err)
	}
	// A new section describes its interfaces anew (IDs from 0): the table starts again,
	// the global indices go on, and what the report needs of the old one is kept (a file of
	// 100,000 sections, pcapng files concatenated, ended at 65,536 "interfaces").
	r.section += len(r.ifaces)
	for _, ifc := range r.ifaces {
		if !slices.Contains(r.pastLinks, ifc.link) {
			r.pastLinks = append(r.pastLinks, ifc.link)
		}
		if ifc.hasDrops {
			r.pastDrops += ifc.drops
			r.pastOK = true
		}
	}
	r.ifaces = r.ifaces[:0]
	return nil
}

// addIface applies an Interface Description Block body:
//
//	link_type(2) reserved(2) snap_len(4) options
func (r *Reader) addIface(body []byte) error {
	if len(body) < 8 {
		return fmt.Errorf("%w: interface description too short", ErrCorrupt)
	}
	if len(r.ifaces) >= maxIfaces {
		return fmt.Errorf("%w: more than %d interfaces", ErrCorrupt, maxIfaces)
	}
	ifc := iface{link: LinkType(r.u16(body)), snap: r.u32(body[4:]), tsDec: defaultTSResol}
	err := r.options(body[8:], func(code uint16, val []byte) error {
		switch code {
		case optTSResol:
			if len(val) < 1 {
				return fmt.Errorf("if_tsresol of length %d", len(val))
			}
			v := val[0]
			switch {
			case v&0x80 != 0: // 2^-0 to 2^-127: all that pcapng allows
				ifc.tsDec, ifc.tsBin = -1, v&0x7f
			default: // 10^-0 to 10^-127
				ifc.tsDec = int8(v)
			}
		case optTSOffset:
			if len(val) != 8 {
				return fmt.Errorf("if_tsoffset of length %d", len(val))
			}
			ifc.tsOffset = int64(r.u64(val))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: interface description: %w", ErrCorrupt, err)
	}
	r.ifaces = append(r.ifaces, ifc)
	return nil
}

// maxIfaces bounds a section's interface table against a file made of nothing but IDBs.
const maxIfaces = 1 << 16

// options walks a pcapng option list, checking every length:
//
//	code(2) length(2) value(length) padding to 4 bytes ... opt_endofopt
func (r *Reader) options(b []byte, fn func(code uint16, val []byte) error) error {
	for len(b) > 0 {
		if len(b) < 4 {
			return fmt.Errorf("option header cut (%d bytes left)", len(b))
		}
		code, n := r.u16(b), int(r.u16(b[2:]))
		if code == optEndOfOpt {
			return nil
		}
		padded := (n + 3) &^ 3
		if 4+padded > len(b) {
			return fmt.Errorf("option %d of length %d overruns its block", code, n)
		}
		if fn != nil {
			if err := fn(code, b[4:4+n]); err != nil {
				return err
			}
		}
		b = b[4+padded:]
	}
	return nil
}

// nextPcapNG reads blocks until one carries a packet.
func (r *Reader) nextPcapNG(p *Packet) error {
	for {
		bt, body, err := r.readBlock()
		if err != nil {
			return err
		}
		switch bt {
		case blockEPB:
			// interface_id(4) timestamp_high(4) timestamp_low(4) captured_len(4)
			// original_len(4) data options
			if len(body) < 20 {
				return fmt.Errorf("%w: enhanced packet block too short", ErrCorrupt)
			}
			return r.timedPacket(p, r.u32(body), body)
		case blockSPB:
			// original_len(4) data: the captured length is what the block holds, cut to the
			// first interface's snap length.
			if len(body) < 4 {
				return fmt.Errorf("%w: simple packet block too short", ErrCorrupt)
			}
			r.dataOff = r.blockOff + 8 + 4
			ifc, err := r.iface(0)
			if err != nil {
				r.undescribed(p, body[4:], int(r.u32(body)))
				return nil
			}
			orig := r.u32(body)
			caplen := min(orig, uint32(len(body)-4))
			if ifc.snap > 0 {
				caplen = min(caplen, ifc.snap)
			}
			// No timestamp: the previous packet's time keeps series from jumping to 1970.
			r.decode(p, r.lastTime, r.section, ifc.link, body[4:4+caplen], int(orig))
			return nil
		case blockOPB:
			// interface_id(2) drops_count(2) timestamp_high(4) timestamp_low(4)
			// captured_len(4) original_len(4) data options
			if len(body) < 20 {
				return fmt.Errorf("%w: packet block too short", ErrCorrupt)
			}
			return r.timedPacket(p, uint32(r.u16(body)), body)
		case blockSHB:
			if err := r.section0(body); err != nil {
				return err
			}
		case blockIDB:
			if err := r.addIface(body); err != nil {
				return err
			}
		case blockISB:
			if err := r.stats(body); err != nil {
				return err
			}
		}
		// Other blocks (name resolution, decryption secrets, custom, journal...) are skipped.
	}
}

// stats applies an Interface Statistics Block body:
//
//	interface_id(4) timestamp_high(4) timestamp_low(4) options
func (r *Reader) stats(body []byte) error {
	if len(body) < 12 {
		return fmt.Errorf("%w: interface statistics block too short", ErrCorrupt)
	}
	ifc, err := r.iface(r.u32(body))
	if err != nil {
		// A block well framed, about no interface: its counts are no one's, and the
		// packets after it are read (h161: the read stopped there, 40 of 50 unread).
		r.statsOfNone++
		return nil
	}
	err = r.options(body[12:], func(code uint16, val []byte) error {
		if code == optIfDrop && len(val) == 8 {
			ifc.drops = int64(min(r.u64(val), math.MaxInt64))
			ifc.hasDrops = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: interface statistics: %w", ErrCorrupt, err)
	}
	return nil
}

// iface returns the interface with section-local id.
func (r *Reader) iface(id uint32) (*iface, error) {
	if uint64(id) >= uint64(len(r.ifaces)) {
		return nil, fmt.Errorf("%w: interface %d not described in its section", ErrCorrupt, id)
	}
	return &r.ifaces[id], nil
}

// nanos converts a timestamp in the interface's units to nanoseconds since the epoch,
// clamped to [0, MaxInt64] so that damaged values never go negative or wrap.
func (r *Reader) nanos(ts uint64, ifc *iface) int64 {
	var hi, lo uint64
	switch {
	case ifc.tsDec == 9:
		lo = ts
	case ifc.tsDec >= 0 && ifc.tsDec < 9:
		hi, lo = bits.Mul64(ts, pow10[9-ifc.tsDec])
	case ifc.tsDec > 9:
		if d := int(ifc.tsDec - 9); d < len(pow10) {
			lo = ts / pow10[d]
		} // else finer than 10^-28 s: a uint64 of them is under a nanosecond
	default: // units of 2^-tsBin seconds
		hi, lo = bits.Mul64(ts, 1e9)
		switch n := ifc.tsBin; {
		case n >= 64:
			hi, lo = 0, hi>>(n-64)
		case n > 0:
			lo = lo>>n | hi<<(64-n)
			hi >>= n
		}
	}
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	t := int64(lo)
	if off := ifc.tsOffset; off != 0 {
		if off > math.MaxInt64/int64(1e9) || off < -math.MaxInt64/int64(1e9) {
			return 0
		}
		if off > 0 && t > math.MaxInt64-off*1e9 {
			return math.MaxInt64
		}
		t += off * 1e9
		if t < 0 {
			t = 0
		}
	}
	return t
}

var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

func (r *Reader) u64(b []byte) uint64 {
	if r.le {
		return binary.LittleEndian.Uint64(b)
	}
	return binary.BigEndian.Uint64(b)
}

// undescribed makes p the packet of a block whose interface its section did not describe
// (a damaged or hand-made file): its link type, and so its bytes, cannot be read, but the
// block's length held, so the blocks after it can: counted as undecodable, at the time of
// the packet before, rather than taken for the end of what the file holds.
func (r *Reader) undescribed(p *Packet, data []byte, orig int) {
	if !r.zero {
		*p = Packet{}
	}
	w := r.wireLen(orig, len(data))
	p.Time, p.Iface, p.WireLen, p.FrameLen = r.lastTime, r.section, w, w
	p.CapLen, p.Data = len(data), data
	p.Kind = KindUndecodable
}

// timedPacket decodes the packet of an EPB or an obsolete packet block, whose bodies share
// the layout after their interface id: timestamp_high(4) timestamp_low(4) at 4,
// captured_len(4) at 12, original_len(4) at 16, data at 20. len(body) >= 20.
func (r *Reader) timedPacket(p *Packet, id uint32, body []byte) error {
	caplen := r.u32(body[12:])
	r.dataOff = r.blockOff + 8 + 20
	ifc, err := r.iface(id)
	if caplen > uint32(len(body)-20) {
		// A captured length beyond the block, whose own length held (readBlock): a
		// malformed packet, undecodable, and the blocks after it can still be read (DESIGN,
		// "Bad input": counted and skipped, never fatal). Its lengths are no more to be
		// trusted than its captured one: it is the bytes its block holds.
		r.undescribed(p, body[20:], 0)
		return nil
	}
	if err != nil {
		r.undescribed(p, body[20:20+caplen], int(r.u32(body[16:])))
		return nil
	}
	ts := uint64(r.u32(body[4:]))<<32 | uint64(r.u32(body[8:]))
	t := r.nanos(ts, ifc)
	r.lastTime, r.timed = t, true
	r.decode(p, t, r.section+int(id), ifc.link, body[20:20+caplen], int(r.u32(body[16:])))
	return nil
}
