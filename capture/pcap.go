package capture

import (
	"encoding/binary"
	"fmt"
	"io"
)

// openPcap reads the classic pcap file header (wiki.wireshark.org/Development/LibpcapFileFormat):
//
//	magic(4) version_major(2) version_minor(2) thiszone(4) sigfigs(4) snaplen(4) network(4)
//
// network's upper bits carry FCS information (draft-ietf-opsawg-pcap, section 4); the link
// type is its low 26 bits.
func (r *Reader) openPcap(magic uint32) error {
	h, err := r.br.Peek(pcapHeaderLen)
	if len(h) < pcapHeaderLen {
		return r.openErr(err, "pcap file header")
	}
	r.le = magic == magicMicroLE || magic == magicNanoLE
	r.fracMul = 1000
	if magic == magicNanoBE || magic == magicNanoLE {
		r.fracMul = 1
	}
	major, minor := r.u16(h[4:]), r.u16(h[6:])
	if major != 2 {
		return fmt.Errorf("%w: pcap version %d.%d", ErrUnsupported, major, minor)
	}
	// Before version 2.3 the record's two length fields came in the other order; 2.3 files
	// exist in both orders (libpcap sf-pcap.c).
	r.swapLens = minor < 3
	r.maybeSwapLens = minor == 3
	snap := r.u32(h[16:])
	r.maxCap = min(max(snap, pcapMinMaxCap), maxBlock)
	r.link = LinkType(r.u32(h[20:]) & linkTypeMask)
	r.ifaces = []iface{{link: r.link, snap: snap}}
	r.br.Discard(pcapHeaderLen)
	return nil
}

// nextPcap reads one record:
//
//	ts_sec(4) ts_usec_or_nsec(4) incl_len(4) orig_len(4) data(incl_len)
func (r *Reader) nextPcap(p *Packet) error {
	// The record usually lies whole in the chunk: taken from there at once, its header and
	// data cost one look at the buffer instead of two Peeks.
	h := r.br.Buffered()
	if len(h) < pcapRecHdrLen {
		var err error
		h, err = r.br.Peek(pcapRecHdrLen)
		if len(h) < pcapRecHdrLen {
			if len(h) == 0 && err == io.EOF && r.src.err == nil {
				return io.EOF
			}
			return r.readErr(err, "record header")
		}
	}
	sec, frac, caplen, orig := r.u32(h), r.u32(h[4:]), r.u32(h[8:]), r.u32(h[12:])
	if r.swapLens || r.maybeSwapLens && caplen > orig {
		caplen, orig = orig, caplen
	}
	if caplen > r.maxCap {
		return fmt.Errorf("%w: record length %d above the limit %d", ErrCorrupt, caplen, r.maxCap)
	}
	var data []byte
	if rest := h[pcapRecHdrLen:]; uint64(len(rest)) >= uint64(caplen) {
		data = rest[:caplen]
		r.br.Discard(pcapRecHdrLen + int(caplen))
	} else {
		r.br.Discard(pcapRecHdrLen)
		var err error
		if data, err = r.readN(int(caplen), "record"); err != nil {
			return err
		}
	}
	r.dataOff = r.br.consumed - int64(caplen)
	// Unsigned seconds and a fractional part up to 2^32 units cannot overflow or go
	// negative: at most 4.3e18 + 4.3e12 ns.
	t := int64(sec)*1e9 + int64(frac)*r.fracMul
	r.decode(p, t, 0, r.link, data, int(orig))
	return nil
}

func (r *Reader) u16(b []byte) uint16 {
	if r.le {
		return binary.LittleEndian.Uint16(b)
	}
	return binary.BigEndian.Uint16(b)
}

func (r *Reader) u32(b []byte) uint32 {
	if r.le {
		return binary.LittleEndian.Uint32(b)
	}
	return binary.BigEndian.Uint32(b)
}
