// Package transport holds the values that cross from the transport layer (UDP datagrams and
// unframed TCP messages) into the demux and the RTP analysis: one Message type for both, so
// that every stream metric works unchanged for media carried over TCP.
//
// Times are capture times in nanoseconds since the Unix epoch (int64): cheap to compare and
// subtract on the per-packet path, and exact for nanosecond captures.
package transport
