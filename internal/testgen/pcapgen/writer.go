package pcapgen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/callpcap/callpcap/capture"
)

// Iface describes one pcapng interface (an Interface Description Block).
type Iface struct {
	Link    capture.LinkType
	SnapLen int // 0: no limit (the IDB says 0)
	// TSResol is the if_tsresol option: 6 (µs) or 9 (ns) as powers of ten, or a power of two
	// with the high bit set (0x80|n means units of 2^-n s). 0 omits the option, which
	// means microseconds.
	TSResol uint8
	// TSOffset is the if_tsoffset option in seconds, added by readers to every timestamp.
	TSOffset int64
}

// Writer writes one capture file. The first error sticks: every later call returns it.
type Writer struct {
	w      io.Writer
	ng     bool
	bo     byteOrder
	nano   bool    // classic pcap: nanosecond timestamps
	snap   int     // classic pcap snap length
	ifaces []Iface // pcapng: interfaces of the current section
	buf    []byte
	err    error
}

// NewPcap starts a classic pcap file: magic a1b2c3d4 (µs) or a1b23c4d (nano), version 2.4,
// written in big-endian order when bigEndian. Frames longer than snaplen (when > 0) are cut
// to it, keeping their original length; the header says 262144 when snaplen is 0.
func NewPcap(w io.Writer, link capture.LinkType, nano bool, bigEndian bool, snaplen int) *Writer {
	wr := &Writer{w: w, bo: order(bigEndian), nano: nano, snap: snaplen}
	magic := uint32(0xa1b2c3d4)
	if nano {
		magic = 0xa1b23c4d
	}
	hdrSnap := snaplen
	if hdrSnap <= 0 {
		hdrSnap = 262144
	}
	b := wr.bo.AppendUint32(nil, magic)
	b = wr.bo.AppendUint16(b, 2) // major
	b = wr.bo.AppendUint16(b, 4) // minor
	b = wr.bo.AppendUint32(b, 0) // thiszone
	b = wr.bo.AppendUint32(b, 0) // sigfigs
	b = wr.bo.AppendUint32(b, uint32(hdrSnap))
	b = wr.bo.AppendUint32(b, uint32(link))
	wr.write(b)
	return wr
}

// NewPcapNG starts a little-endian pcapng file with one section holding ifaces.
func NewPcapNG(w io.Writer, ifaces []Iface) *Writer {
	return NewPcapNGOrder(w, false, ifaces)
}

// NewPcapNGOrder is NewPcapNG with a choice of byte order.
func NewPcapNGOrder(w io.Writer, bigEndian bool, ifaces []Iface) *Writer {
	wr := &Writer{w: w, ng: true}
	wr.err = wr.NewSection(bigEndian, ifaces)
	return wr
}

// NewSection starts a new pcapng section (a Section Header Block, then one Interface
// Description Block per iface). Interface ids restart at 0 in the new section.
func (w *Writer) NewSection(bigEndian bool, ifaces []Iface) error {
	if !w.ng {
		return w.fail(errors.New("pcapgen: NewSection on a classic pcap writer"))
	}
	w.bo = order(bigEndian)
	w.ifaces = append([]Iface(nil), ifaces...)
	body := w.bo.AppendUint32(nil, 0x1A2B3C4D) // byte-order magic
	body = w.bo.AppendUint16(body, 1)          // major
	body = w.bo.AppendUint16(body, 0)          // minor
	body = w.bo.AppendUint64(body, ^uint64(0)) // section length: unknown
	body = appendOpt(w.bo, body, 4, []byte("pcapgen"))
	body = appendOpt(w.bo, body, 0, nil)
	if err := w.WriteBlock(0x0A0D0D0A, body); err != nil {
		return err
	}
	for _, ifc := range ifaces {
		body = w.bo.AppendUint16(body[:0], uint16(ifc.Link))
		body = w.bo.AppendUint16(body, 0)
		body = w.bo.AppendUint32(body, uint32(ifc.SnapLen))
		if ifc.TSResol != 0 {
			body = appendOpt(w.bo, body, 9, []byte{ifc.TSResol})
		}
		if ifc.TSOffset != 0 {
			body = appendOpt(w.bo, body, 14, w.bo.AppendUint64(nil, uint64(ifc.TSOffset)))
		}
		body = appendOpt(w.bo, body, 0, nil)
		if err := w.WriteBlock(1, body); err != nil {
			return err
		}
	}
	return nil
}

// Write writes one frame captured at tNanos (nanoseconds since the epoch) on interface iface
// (pcapng: an id of the current section; ignored for classic pcap). origLen 0 means
// len(frame). A frame longer than the snap length is cut to it. In pcapng the frame goes
// into an Enhanced Packet Block.
func (w *Writer) Write(tNanos int64, iface int, frame []byte, origLen int) error {
	if w.err != nil {
		return w.err
	}
	if origLen == 0 {
		origLen = len(frame)
	}
	if !w.ng {
		if w.snap > 0 && len(frame) > w.snap {
			frame = frame[:w.snap]
		}
		sec, frac := tNanos/1e9, tNanos%1e9
		if !w.nano {
			frac /= 1000
		}
		b := w.bo.AppendUint32(w.buf[:0], uint32(sec))
		b = w.bo.AppendUint32(b, uint32(frac))
		b = w.bo.AppendUint32(b, uint32(len(frame)))
		b = w.bo.AppendUint32(b, uint32(origLen))
		b = append(b, frame...)
		w.buf = b
		return w.write(b)
	}
	if iface < 0 || iface >= len(w.ifaces) {
		return w.fail(fmt.Errorf("pcapgen: interface %d not in section", iface))
	}
	ifc := w.ifaces[iface]
	if ifc.SnapLen > 0 && len(frame) > ifc.SnapLen {
		frame = frame[:ifc.SnapLen]
	}
	ts := units(tNanos-ifc.TSOffset*1e9, ifc.TSResol)
	body := w.bo.AppendUint32(nil, uint32(iface))
	body = w.bo.AppendUint32(body, uint32(ts>>32))
	body = w.bo.AppendUint32(body, uint32(ts))
	body = w.bo.AppendUint32(body, uint32(len(frame)))
	body = w.bo.AppendUint32(body, uint32(origLen))
	body = append(body, frame...)
	body = pad4(body)
	return w.WriteBlock(6, body)
}

// WriteSPB writes a Simple Packet Block (pcapng only): no timestamp, the section's first
// interface.
func (w *Writer) WriteSPB(frame []byte, origLen int) error {
	if !w.ng {
		return w.fail(errors.New("pcapgen: WriteSPB on a classic pcap writer"))
	}
	if origLen == 0 {
		origLen = len(frame)
	}
	if len(w.ifaces) > 0 && w.ifaces[0].SnapLen > 0 && len(frame) > w.ifaces[0].SnapLen {
		frame = frame[:w.ifaces[0].SnapLen]
	}
	body := w.bo.AppendUint32(nil, uint32(origLen))
	body = append(body, frame...)
	return w.WriteBlock(3, pad4(body))
}

// WriteISB writes an Interface Statistics Block (pcapng only) for iface with isb_ifdrop set
// to drops. The counter is cumulative, as in the format: a later ISB replaces an earlier one.
func (w *Writer) WriteISB(iface int, drops uint64) error {
	if !w.ng {
		return w.fail(errors.New("pcapgen: WriteISB on a classic pcap writer"))
	}
	body := w.bo.AppendUint32(nil, uint32(iface))
	body = w.bo.AppendUint32(body, 0) // timestamp high
	body = w.bo.AppendUint32(body, 0) // timestamp low
	body = appendOpt(w.bo, body, 5, w.bo.AppendUint64(nil, drops))
	body = appendOpt(w.bo, body, 0, nil)
	return w.WriteBlock(5, body)
}

// WriteBlock writes a pcapng block of any type around body (padded to 4 bytes), for example
// a Decryption Secrets Block (0x0000000A) or a custom block a reader must skip.
func (w *Writer) WriteBlock(blockType uint32, body []byte) error {
	if w.err != nil {
		return w.err
	}
	body = pad4(body)
	n := uint32(12 + len(body))
	b := w.bo.AppendUint32(w.buf[:0], blockType)
	b = w.bo.AppendUint32(b, n)
	b = append(b, body...)
	b = w.bo.AppendUint32(b, n)
	w.buf = b
	return w.write(b)
}

// WriteRaw writes bytes as they are, to build damaged files.
func (w *Writer) WriteRaw(b []byte) error { return w.write(b) }

// Err returns the first error met.
func (w *Writer) Err() error { return w.err }

func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = err
	}
	return w.err
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return w.err
}

// byteOrder is what both binary.LittleEndian and binary.BigEndian implement.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func order(bigEndian bool) byteOrder {
	if bigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// appendOpt appends one pcapng option: code, length, value padded to 4 bytes.
func appendOpt(bo byteOrder, b []byte, code uint16, val []byte) []byte {
	b = bo.AppendUint16(b, code)
	b = bo.AppendUint16(b, uint16(len(val)))
	b = append(b, val...)
	return pad4(b)
}

func pad4(b []byte) []byte {
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// units converts nanoseconds to if_tsresol units (0 means the default, 10^-6).
func units(ns int64, resol uint8) uint64 {
	if resol == 0 {
		resol = 6
	}
	v := uint64(ns)
	if resol&0x80 != 0 {
		n := uint(resol & 0x7f)
		sec, rem := v/1e9, v%1e9
		hi, lo := bits.Mul64(rem, 1<<n)
		q, _ := bits.Div64(hi, lo, 1e9) // rem < 1e9, so hi < 1e9 for n < 64
		return sec<<n + q
	}
	for r := uint8(9); r > resol; r-- {
		v /= 10
	}
	for r := uint8(9); r < resol; r++ {
		v *= 10
	}
	return v
}
