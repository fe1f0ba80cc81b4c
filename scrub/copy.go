package scrub

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/callpcap/callpcap/wire"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// copyPatched copies the capture in r, decompressed (comp is what capture.Reader said:
// none, gzip or zstd), to w, applying the patches (sorted by offset) on the way.
func copyPatched(w io.Writer, r io.Reader, comp string, patches []patch, st *Stats) error {
	switch comp {
	case "gzip":
		gz, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("scrub: %w", err)
		}
		defer gz.Close()
		r = gz
	case "zstd":
		zd, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(128<<20)) // as capture.Open
		if err != nil {
			return fmt.Errorf("scrub: %w", err)
		}
		defer zd.Close()
		r = zd
	}
	br := bufio.NewReaderSize(r, 1<<20)
	bw := bufio.NewWriterSize(w, 1<<20)
	var pos int64
	var buf []byte
	for i := range patches {
		pt := &patches[i]
		if _, err := io.CopyN(bw, br, pt.off-pos); err != nil {
			return copyErr(err)
		}
		n := pt.extent()
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		b := buf[:n]
		if _, err := io.ReadFull(br, b); err != nil {
			return copyErr(err)
		}
		// A packet whose bytes were zeros already (padding) is left alone, checksum included.
		changed := false
		for _, z := range pt.zeros {
			for _, c := range b[z.lo:z.hi] {
				if c != 0 {
					changed = true
					break
				}
			}
			clear(b[z.lo:z.hi])
			st.ZeroedBytes += int64(z.hi - z.lo)
		}
		if changed {
			pt.sum.apply(b, st)
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
		pos = pt.off + int64(n)
	}
	// The rest, and whatever follows the last whole record (a record cut by the end). A
	// compressed stream that is cut or damaged there ends the copy where it stopped
	// decompressing, as the analysis ends its report there: the copy holds what was read.
	if _, err := io.Copy(bw, br); err != nil && !isCut(err) && comp == "none" {
		return err
	}
	return bw.Flush()
}

// extent is how many bytes of the packet data the patch touches.
func (pt *patch) extent() int {
	n := 0
	for _, z := range pt.zeros {
		n = max(n, z.hi)
	}
	switch pt.sum.kind {
	case sumClear:
		n = max(n, pt.sum.field+2)
	case sumRecompute:
		n = max(n, pt.sum.l4+pt.sum.n)
	}
	return n
}

// apply fixes the checksum of the rewritten packet data b.
func (c *checksum) apply(b []byte, st *Stats) {
	switch c.kind {
	case sumClear:
		b[c.field], b[c.field+1] = 0, 0
		st.ChecksumsCleared++
	case sumRecompute:
		b[c.field], b[c.field+1] = 0, 0
		v := ^wire.ChecksumFold(wire.ChecksumAdd(c.pseudo, b[c.l4:c.l4+c.n]))
		if v == 0 && c.udp {
			v = 0xffff
		}
		binary.BigEndian.PutUint16(b[c.field:], v)
		st.ChecksumsRecomputed++
	case sumStale:
		st.ChecksumsStale++
	}
}

// isCut says that the decompressed stream ended early: a file cut short, which the copy
// reproduces as the reader read it.
func isCut(err error) bool { return err == io.ErrUnexpectedEOF || err == io.EOF }

func copyErr(err error) error {
	if isCut(err) {
		return fmt.Errorf("scrub: the capture changed between two readings")
	}
	return err
}
