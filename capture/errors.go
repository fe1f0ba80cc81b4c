package capture

import "errors"

// Errors returned by Open and Reader.Next, wrapped with a short reason; test them with
// errors.Is.
var (
	// ErrNotCapture: the input is not a pcap or pcapng capture (unknown magic, too short, a
	// zero-byte file).
	ErrNotCapture = errors.New("capture: not a capture file")
	// ErrUnsupported: a capture format version this package does not read.
	ErrUnsupported = errors.New("capture: unsupported capture format version")
	// ErrCorrupt: a damaged header or block. After the file header it ends the reading; the
	// packets already returned stay valid.
	ErrCorrupt = errors.New("capture: damaged capture file")
	// ErrTruncated: the file ends in the middle of a record, as when a capture was cut short
	// or copied while being written. The packets already returned stay valid.
	ErrTruncated = errors.New("capture: capture file ends mid-record")
)
