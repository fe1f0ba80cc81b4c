package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

const (
	// bufSize is the read chunk: large, so that read(2) is called rarely (a 4 KiB buffer is
	// three times slower), but not so large that the chunks the batches in flight hold
	// (analysis/pipeline.go) fall out of the cores' caches. Records larger than a chunk are
	// read into a buffer of their own.
	bufSize = 256 << 10
	// maxBlock bounds a pcapng block and a pcap record: nothing larger is read or allocated.
	maxBlock = 64 << 20
	// maxZstdWindow bounds the zstd decoder's window (zstd --long=27 writes 128 MiB windows).
	maxZstdWindow = 128 << 20
)

// Magic numbers, read as big-endian words from the first four bytes.
const (
	magicGzip      = 0x1f8b0000 // two bytes only, masked
	magicZstd      = 0x28b52ffd
	magicMicroBE   = 0xa1b2c3d4
	magicMicroLE   = 0xd4c3b2a1
	magicNanoBE    = 0xa1b23c4d
	magicNanoLE    = 0x4d3cb2a1
	magicModBE     = 0xa1b2cd34 // Kuznetzov's modified pcap
	magicModLE     = 0x34cdb2a1
	magicPcapNG    = 0x0a0d0d0a // Section Header Block type, a palindrome
	pcapHeaderLen  = 24
	pcapRecHdrLen  = 16
	pcapMinMaxCap  = 256 << 10 // libpcap's largest snap length for most link types
	linkTypeMask   = 0x03ffffff
	defaultTSResol = 6
)

// A zstd skippable frame (RFC 8878, 3.1.2) starts with one of 16 magic numbers,
// 0x184D2A50-5F little-endian: masked. pzstd writes one first, to say how its frames are
// laid out.
const (
	magicZstdSkippable = 0x502a4d18
	zstdSkippableMask  = 0xf0ffffff
)

// Reader reads one capture. It is not safe for concurrent use.
type Reader struct {
	br          *chunkReader
	src         *srcReader
	zdec        *zstd.Decoder
	compression string
	ng          bool

	// Classic pcap.
	le      bool  // little-endian file (pcap) or section (pcapng)
	fracMul int64 // nanoseconds per unit of the fractional timestamp
	link    LinkType
	maxCap  uint32
	// swapLens: incl_len and orig_len come swapped (pcap before 2.3); maybeSwapLens: 2.3,
	// swapped when incl_len > orig_len.
	swapLens, maybeSwapLens bool

	// pcapng.
	ifaces   []iface // the current section's (pcap: the one)
	section  int     // global index of the current section's first interface (Packet.Iface)
	lastTime int64
	timed    bool  // a packet block with a time stamp was read (an SPB has none)
	blockOff int64 // offset of the last block read in the decompressed file

	// pastLinks and pastDrops keep what LinkTypes and InterfaceDrops need of the sections
	// before: each section's table is dropped at the next, as its interface IDs are its own.
	pastLinks []LinkType
	pastDrops int64
	pastOK    bool

	// dataOff is the offset of the last packet's Data in the decompressed file (DataOffset).
	dataOff int64

	big  []byte // records that do not fit a chunk
	hold bool   // see Hold
	zero bool   // see GivenZero
	held Held   // buffers left behind since the last TakeHeld
	err  error  // sticky: once Next fails, it keeps failing the same way
	frag reassembler

	udpBeyond  int64 // Stats.UDPBeyond
	origBeyond int64 // Stats.OrigBeyond
	// statsOfNone is Stats.StatsOfNone.
	statsOfNone int64
}

// iface is one pcapng interface, or the single interface of a classic pcap file.
type iface struct {
	link     LinkType
	snap     uint32
	tsDec    int8  // if_tsresol as a power of 10, or -1
	tsBin    uint8 // if_tsresol as a power of 2 when tsDec is -1
	tsOffset int64 // if_tsoffset, seconds
	drops    int64
	hasDrops bool
}

// srcReader remembers an error of the underlying reader, to tell it from a decompressor's
// complaint about the data.
type srcReader struct {
	r   io.Reader
	err error
}

func (s *srcReader) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// Open reads the file header of a capture in r (and, for pcapng, the interface
// descriptions that follow it). The format is found from the first bytes: gzip or zstd
// around pcap or pcapng. It returns an error wrapping ErrNotCapture, ErrUnsupported or
// ErrCorrupt when r cannot be read as a capture.
func Open(r io.Reader) (*Reader, error) {
	src := &srcReader{r: r}
	size := bufSize
	if l, ok := r.(interface{ Len() int }); ok { // bytes.Reader and the like: no need for more
		size = min(size, max(l.Len(), 64))
	}
	rd := &Reader{src: src, compression: "none", br: newChunkReader(src, size)}
	rd.frag.init()
	m, err := rd.peekMagic()
	if err != nil {
		return nil, err
	}
	switch {
	case m&0xffff0000 == magicGzip:
		gz, err := gzip.NewReader(rd.br)
		if err != nil {
			return nil, rd.openErr(err, "gzip header")
		}
		rd.compression = "gzip"
		rd.br = newChunkReader(gz, bufSize)
	case m == magicZstd || m&zstdSkippableMask == magicZstdSkippable:
		zd, err := zstd.NewReader(rd.br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return nil, rd.openErr(err, "zstd header")
		}
		rd.zdec = zd
		rd.compression = "zstd"
		rd.br = newChunkReader(zd, bufSize)
	}
	if rd.compression != "none" {
		if m, err = rd.peekMagic(); err != nil {
			rd.Close()
			return nil, err
		}
	}
	switch m {
	case magicMicroBE, magicMicroLE, magicNanoBE, magicNanoLE:
		err = rd.openPcap(m)
	case magicModBE, magicModLE:
		err = fmt.Errorf("%w: modified (Kuznetzov) pcap", ErrUnsupported)
	case magicPcapNG:
		rd.ng = true
		err = rd.openPcapNG()
	default:
		err = fmt.Errorf("%w: unknown magic number %08x", ErrNotCapture, m)
	}
	if err != nil {
		rd.Close()
		return nil, err
	}
	return rd, nil
}

func (r *Reader) peekMagic() (uint32, error) {
	b, err := r.br.Peek(4)
	if len(b) < 4 {
		if r.src.err != nil {
			return 0, r.src.err
		}
		if err != nil && err != io.EOF && (r.compression != "none" || err != io.ErrUnexpectedEOF) {
			return 0, r.openErr(err, r.compression+" stream")
		}
		if len(b) == 0 {
			return 0, fmt.Errorf("%w: empty file", ErrNotCapture)
		}
		return 0, fmt.Errorf("%w: only %d bytes", ErrNotCapture, len(b))
	}
	return binary.BigEndian.Uint32(b), nil
}

// openErr classifies a failure while reading the file header.
func (r *Reader) openErr(err error, what string) error {
	if r.src.err != nil {
		return r.src.err
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: %s cut short", ErrCorrupt, what)
	}
	return fmt.Errorf("%w: %s: %w", ErrCorrupt, what, codecError{err})
}

// readErr classifies a failure to read a record after the file header.
func (r *Reader) readErr(err error, what string) error {
	if r.src.err != nil {
		return r.src.err
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF || err == nil {
		return fmt.Errorf("%w: %s cut short", ErrTruncated, what)
	}
	// A decompressor rejecting its input.
	return fmt.Errorf("%w: %s stream: %w", ErrCorrupt, r.compression, codecError{err})
}

// readN returns the next n bytes. They are valid until the next read.
func (r *Reader) readN(n int, what string) ([]byte, error) {
	if n <= r.br.Size() {
		b, err := r.br.Peek(n)
		if len(b) < n {
			return nil, r.readErr(err, what)
		}
		r.br.Discard(n)
		return b, nil
	}
	// Grow by what arrives, so that a length field alone never allocates.
	if r.hold {
		r.big = nil // packets handed out may still point into the last one
	}
	r.big = r.big[:0]
	for len(r.big) < n {
		k := min(n-len(r.big), bufSize)
		if cap(r.big)-len(r.big) < k {
			nb := make([]byte, len(r.big), len(r.big)+max(k, len(r.big)))
			copy(nb, r.big)
			r.big = nb
		}
		m, err := io.ReadFull(r.br, r.big[len(r.big):len(r.big)+k])
		r.big = r.big[:len(r.big)+m]
		if err != nil {
			return nil, r.readErr(err, what)
		}
	}
	return r.big, nil
}

// Next reads the next packet into p, overwriting every field (after GivenZero, p must be
// zero: only the fields it decodes are set). It returns io.EOF at the end
// of the capture, an error wrapping ErrTruncated when the file ends mid-record and one
// wrapping ErrCorrupt when a block is damaged. p's slices are valid until the next call.
func (r *Reader) Next(p *Packet) error {
	if r.hold {
		if r.frag.last != nil {
			r.held.frags = append(r.held.frags, r.frag.last)
			r.frag.last = nil
		}
	} else {
		r.frag.release()
	}
	if r.err != nil {
		return r.err
	}
	var err error
	if r.ng {
		err = r.nextPcapNG(p)
	} else {
		err = r.nextPcap(p)
	}
	if err != nil {
		r.err = err // incomplete datagrams stay counted in Stats().Pending
	}
	return err
}

// GivenZero tells the reader that every Packet given to Next from now on is zero (new, or
// cleared with its batch): Next then sets only the fields it decodes instead of clearing
// the whole struct first, which for a batch cleared whole is the same work done twice.
func (r *Reader) GivenZero() { r.zero = true }

// Held is memory that packets read while the Reader holds its buffers may point into: read
// chunks and reassembled datagrams.
type Held struct {
	chunks, frags [][]byte
}

// Hold makes the reader keep every buffer its packets point into, instead of reusing it on
// the next call to Next, until it is given back with Release: so that packets can be handed
// to another goroutine in batches without copying their bytes. After reading a batch, move
// the buffers its packets may point into to a Held with TakeHeld; once the batch is done
// with, give them back with Release. Memory grows until buffers are released.
func (r *Reader) Hold() {
	r.hold = true
	r.br.hold = true
}

// TakeHeld moves the buffers left behind since the last call into h, which must be empty
// (new or released). The buffer the next packet will be read from is not among them: it is
// left behind, with the packets read into it so far, at a later call.
func (r *Reader) TakeHeld(h *Held) {
	h.chunks = append(h.chunks, r.br.held...)
	h.frags = append(h.frags, r.held.frags...)
	clear(r.br.held)
	r.br.held = r.br.held[:0]
	clear(r.held.frags)
	r.held.frags = r.held.frags[:0]
}

// Release gives h's buffers back for reuse and empties h, keeping its capacity. Release a
// Held only when every packet read before it was taken is done with (batches released in
// the order they were read), on the goroutine that calls Next.
func (r *Reader) Release(h *Held) {
	r.br.free = append(r.br.free, h.chunks...)
	for _, b := range h.frags {
		r.frag.putBuf(b)
	}
	clear(h.chunks)
	clear(h.frags)
	h.chunks, h.frags = h.chunks[:0], h.frags[:0]
}

// Close releases the decompressor's resources. It does not close the underlying reader.
func (r *Reader) Close() error {
	if r.zdec != nil {
		r.zdec.Close()
		r.zdec = nil
	}
	return nil
}

// DataOffset returns where the Data of the packet Next returned last starts in the capture
// file as decompressed: the bytes there, len(Data) of them, are the packet's. A tool that
// rewrites packets in place (scrub) copies the file and patches it at these offsets, which
// keeps every other byte of the container as it was.
func (r *Reader) DataOffset() int64 { return r.dataOff }

// Format returns "pcap" or "pcapng".
func (r *Reader) Format() string {
	if r.ng {
		return "pcapng"
	}
	return "pcap"
}

// Compression returns "none", "gzip" or "zstd".
func (r *Reader) Compression() string { return r.compression }

// LinkTypes returns the distinct link types of the interfaces read so far, in interface
// order. Open reads the interfaces described at the start of the file; a pcapng file can
// describe more later, so the list is complete once Next has returned an error.
func (r *Reader) LinkTypes() []LinkType {
	if !r.ng {
		return []LinkType{r.link}
	}
	out := slices.Clone(r.pastLinks)
	for _, ifc := range r.ifaces {
		if !slices.Contains(out, ifc.link) {
			out = append(out, ifc.link)
		}
	}
	return out
}

// Timed says whether the packets read so far carry their capture times: false when every
// one came in a pcapng Simple Packet Block, which has no time stamp (each then takes the
// time of the packet before, or 0).
func (r *Reader) Timed() bool { return !r.ng || r.timed }

// InterfaceDrops returns the packets the interfaces dropped, from the isb_ifdrop option of
// pcapng Interface Statistics Blocks: the last value given for each interface (the counter
// is cumulative), summed over the interfaces. ok is false when no block gave one.
func (r *Reader) InterfaceDrops() (n int64, ok bool) {
	n, ok = r.pastDrops, r.pastOK
	for _, ifc := range r.ifaces {
		if ifc.hasDrops {
			n += ifc.drops
			ok = true
		}
	}
	return n, ok
}

// Stats counts what happened to IP fragments.
type Stats struct {
	Fragments   int64 // IP fragment frames seen
	Reassembled int64 // datagrams rebuilt from fragments
	Expired     int64 // datagrams still incomplete 30 s (capture time) after their first fragment
	// Dropped counts datagrams abandoned: overlapping or inconsistent fragments, more than
	// 64 KiB, too many fragments, or evicted to keep within the limits.
	Dropped    int64
	Duplicates int64 // fragments repeating the offset and length of one already filed: not filed again
	Pending    int   // datagrams incomplete now; at the end of the file, never completed
	// UDPBeyond counts UDP datagrams whose length field claimed more than their IP packet
	// holds: read to the packet's end.
	UDPBeyond int64
	// OrigBeyond counts records whose original length claimed more than 256 KiB and more
	// than they hold: their captured length was counted on the wire.
	OrigBeyond int64
	// StatsOfNone counts pcapng interface statistics blocks naming an interface their
	// section did not describe: skipped, their drops counted for none.
	StatsOfNone int64
}

// Stats returns the fragment counters so far, UDPBeyond, OrigBeyond and StatsOfNone.
func (r *Reader) Stats() Stats {
	s := r.frag.stats
	s.Pending, s.UDPBeyond, s.OrigBeyond, s.StatsOfNone = r.frag.pending, r.udpBeyond, r.origBeyond, r.statsOfNone
	return s
}

func errorsIsTruncated(err error) bool { return errors.Is(err, ErrTruncated) }
