package capture

import (
	"errors"
	"strings"
)

// Errors returned by Open and Reader.Next, wrapped with a short reason; test them with
// errors.Is. Their words already name the capture, so unlike the other packages' errors
// they carry no "capture:" prefix: the line a person reads is the file's name and then
// this, each said once ("call.pcap: not a capture file: empty file"). An error of the
// underlying reader is returned unchanged.
var (
	// ErrNotCapture: the input is not a pcap or pcapng capture (unknown magic, too short, a
	// zero-byte file).
	ErrNotCapture = errors.New("not a capture file")
	// ErrUnsupported: a capture format version this package does not read.
	ErrUnsupported = errors.New("unsupported capture format")
	// ErrCorrupt: a damaged header or block. After the file header it ends the reading; the
	// packets already returned stay valid.
	ErrCorrupt = errors.New("damaged capture file")
	// ErrTruncated: the file ends in the middle of a record, as when a capture was cut short
	// or copied while being written. The packets already returned stay valid.
	ErrTruncated = errors.New("capture file ends mid-record")
)

// codecError is a decompressor's complaint. Its message drops the prefix the decompressor
// puts on it ("gzip: invalid checksum", "flate: corrupt input"): the words around it name
// the stream already.
type codecError struct{ err error }

func (e codecError) Error() string {
	s := e.err.Error()
	for _, p := range []string{"gzip: ", "flate: ", "zstd: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

func (e codecError) Unwrap() error { return e.err }
