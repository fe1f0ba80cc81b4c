package scrub

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/callpcap/callpcap/analysis"
	"github.com/callpcap/callpcap/report"
)

// Stats says what Scrub rewrote.
type Stats struct {
	Packets     int64 // records read (as the analysis counts packets)
	RTPPackets  int64 // RTP packets whose payload was zeroed (each copy of a TCP message counts once)
	DTLSRecords int64 // DTLS application_data records whose fragment was zeroed
	// ZeroedBytes counts the file's bytes in the ranges set to zero (zeros already, such as
	// RTP padding, included): a byte that TCP carried twice counts twice.
	ZeroedBytes int64
	// UnplacedBytes is the part of ZeroedBytes that no message carried: TCP bytes between
	// two messages of a media connection, skipped by the unframer.
	UnplacedBytes int64
	// Fragmented counts the reassembled UDP datagrams, kept as they are.
	Fragmented int64
	// Checksums of rewritten packets: set to 0 (UDP over IPv4), recomputed (TCP, UDP over
	// IPv6), or left stale because the snap length cut the segment.
	ChecksumsCleared, ChecksumsRecomputed, ChecksumsStale int64
	// Damaged says the capture is damaged after its header (a cut or corrupt record, a cut
	// or corrupt compressed stream), as the analysis' report does (truncated): the copy
	// holds the Packets read before the damage, and the bytes that followed them.
	Damaged bool
}

// Scrub writes to w a copy of the capture that open returns (name is for messages), with its media payload
// rewritten to zeros (see the package documentation), in the same container, uncompressed.
// open is called three times and must return the same bytes each time (a file, not a
// pipe); each reader is closed. A capture that cannot be read fails as analysis.Analyze
// fails (errors.Is analysis.ErrUnreadable) before anything is written; a capture cut short
// or damaged after its header is copied up to its end, damage included, as the reader
// reads it.
func Scrub(ctx context.Context, name string, open func() (io.ReadCloser, error), w io.Writer) (Stats, error) {
	var st Stats
	facts, err := learn(ctx, name, open, &st)
	if err != nil {
		return st, err
	}
	if ctx.Err() != nil {
		return st, context.Cause(ctx)
	}
	pl := newPlanner(facts, &st)
	comp, err := withInput(open, pl.run)
	if err != nil {
		return st, err
	}
	if ctx.Err() != nil {
		return st, context.Cause(ctx)
	}
	_, err = withInput(open, func(r io.Reader) (string, error) {
		return "", copyPatched(w, r, comp, pl.patches, &st)
	})
	return st, err
}

func withInput(open func() (io.ReadCloser, error), f func(io.Reader) (string, error)) (string, error) {
	rc, err := open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	return f(rc)
}

// facts is what the analysis of the capture says that the plan needs: which SSRCs are RTX
// streams and which TCP connections carry media.
type facts struct {
	rtx   map[uint32]bool
	media map[connKey]bool
}

// learn analyses the capture. Streams of any size count (MinPackets 1): an RTX stream too
// short to be reported still repairs packets of a reported one.
func learn(ctx context.Context, name string, open func() (io.ReadCloser, error), st *Stats) (facts, error) {
	f := facts{rtx: map[uint32]bool{}, media: map[connKey]bool{}}
	var c report.Capture
	_, err := withInput(open, func(r io.Reader) (string, error) {
		var err error
		c, err = analysis.Analyze(ctx, name, r, analysis.Options{MinPackets: 1})
		return "", err
	})
	if err != nil {
		return f, err
	}
	st.Damaged = c.Truncated
	for _, s := range c.Streams {
		if s.Kind != "rtx" && s.RTXOf == nil {
			continue
		}
		v, err := strconv.ParseUint(s.SSRC, 0, 32)
		if err != nil {
			return f, fmt.Errorf("scrub: stream %s: SSRC %q: %w", s.ID, s.SSRC, err)
		}
		f.rtx[uint32(v)] = true
	}
	for _, fl := range c.Flows {
		if fl.Proto != "tcp" || fl.Framing == nil ||
			(*fl.Framing != report.FramingRFC4571 && *fl.Framing != report.FramingTURN) {
			continue
		}
		k, err := parseConnKey(fl.A, fl.B)
		if err != nil {
			return f, fmt.Errorf("scrub: flow %s: %w", fl.ID, err)
		}
		f.media[k] = true
	}
	return f, nil
}
