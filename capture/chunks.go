package capture

import (
	"bufio"
	"io"
)

// chunkReader is the Reader's read buffer: bufio.Reader's Peek and Discard, but over a
// series of chunks instead of one buffer that slides. Bytes it has handed out are never
// moved or overwritten while their chunk is in use: when a record crosses the end of a
// chunk, the unread bytes are copied to the start of the next chunk (one partial record per
// chunk) and the old chunk is retired. A retired chunk is reused at once, or, when the
// Reader holds its buffers (Reader.Hold), kept until it is given back with Reader.Release,
// so that packets can go to another goroutine without copying their bytes.
type chunkReader struct {
	src   io.Reader
	size  int
	buf   []byte // the current chunk; buf[r:w] is unread
	r, w  int
	err   error    // sticky: the first error of src
	free  [][]byte // retired chunks to reuse
	hold  bool
	held  [][]byte // retired chunks not to reuse until released
	empty int      // consecutive empty reads
	// consumed counts the bytes handed out (Discard and Read): the offset in src of the
	// next unread byte, for Reader.DataOffset.
	consumed int64
}

// maxEmptyReads is how many (0, nil) reads in a row are taken as io.ErrNoProgress, as
// bufio does.
const maxEmptyReads = 100

func newChunkReader(src io.Reader, size int) *chunkReader {
	return &chunkReader{src: src, size: size}
}

// Size returns the chunk size: the most that Peek can return.
func (c *chunkReader) Size() int { return c.size }

// Peek returns the next n bytes without consuming them; they stay valid until their chunk
// is reused. With fewer than n bytes left it returns those and the error that ended them;
// n above Size returns bufio.ErrBufferFull.
func (c *chunkReader) Peek(n int) ([]byte, error) {
	if c.w-c.r >= n {
		return c.buf[c.r : c.r+n], nil
	}
	if n > c.size {
		return c.buf[c.r:c.w], bufio.ErrBufferFull
	}
	if c.r+n > len(c.buf) {
		c.next()
	}
	for c.w-c.r < n && c.err == nil {
		c.fill()
	}
	if c.w-c.r < n {
		return c.buf[c.r:c.w], c.err
	}
	return c.buf[c.r : c.r+n], nil
}

// Buffered returns the bytes read and not yet consumed, without reading more; they stay
// valid as a Peek's do.
func (c *chunkReader) Buffered() []byte { return c.buf[c.r:c.w] }

// Discard skips n bytes that a Peek has returned.
func (c *chunkReader) Discard(n int) { c.r += n; c.consumed += int64(n) }

// Read reads like bufio.Reader.Read: from the chunk, or, when it is empty and p is at least
// a chunk long, straight from the source.
func (c *chunkReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if c.r == c.w {
		if c.err != nil {
			return 0, c.err
		}
		if len(p) >= c.size {
			n, err := c.src.Read(p)
			if err != nil {
				c.err = err
			}
			c.consumed += int64(n)
			return n, err
		}
		if c.w == len(c.buf) {
			c.next()
		}
		c.fill()
		if c.r == c.w {
			return 0, c.err
		}
	}
	n := copy(p, c.buf[c.r:c.w])
	c.r += n
	c.consumed += int64(n)
	return n, nil
}

// next moves the unread bytes to a fresh chunk and retires the current one.
func (c *chunkReader) next() {
	var nb []byte
	if k := len(c.free); k > 0 {
		nb, c.free = c.free[k-1], c.free[:k-1]
	} else {
		nb = make([]byte, c.size)
	}
	c.w = copy(nb, c.buf[c.r:c.w])
	c.r = 0
	if c.buf != nil {
		if c.hold {
			c.held = append(c.held, c.buf)
		} else {
			c.free = append(c.free, c.buf)
		}
	}
	c.buf = nb
}

// fill reads once into the free end of the chunk.
func (c *chunkReader) fill() {
	n, err := c.src.Read(c.buf[c.w:])
	c.w += n
	switch {
	case err != nil:
		c.err = err
	case n > 0:
		c.empty = 0
	default:
		if c.empty++; c.empty >= maxEmptyReads {
			c.err = io.ErrNoProgress
		}
	}
}
