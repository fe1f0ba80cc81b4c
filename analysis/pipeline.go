package analysis

import (
	"context"

	"github.com/callpcap/callpcap/capture"
)

// The capture is read and decoded on one goroutine and analysed on another, so that the
// analysis uses both cores: the read(2) copy out of the page cache and the decode take about
// as long as the analysis does. Packets go across in batches, which are recycled, and point
// into the reader's own buffers, which the reader holds until the batch comes back
// (capture.Reader.Hold): nothing is copied. The reader also takes the dedup digests, while
// the packet's bytes are in its core's cache (see digests).
//
// Measured on 2 cores, whole process, medians of 21 rounds, as multiples of cat's time on
// the same file in the same round. 1M-packet 1.07 GB UDP call (callgen.WriteUDPBench): one
// goroutine 3.6×; batches with the packets' bytes copied into them 2.75× (the copy made the
// reading goroutine the slower stage); batches pointing into the reader's buffers, digests
// taken by the reader 2.2×, CPU 0.54 s as with one goroutine; the bare pcapgo read loop
// 1.6×. 1M-packet 0.61 GB TURN-over-TCP call (callgen.WriteTCPBench): one goroutine 7.9×,
// pipelined 5.8×: the analysing goroutine is the slower stage, tcpframe most of it. With
// tcpframe unframing in-order segments from the batch's packets (tcpframe.Config.BorrowPayload,
// detached before a batch goes back) 3.2× (0.28 s, cat 0.089 s, medians of 21); the
// analysing goroutine is still the slower stage: per run about 0.19 s in tcpframe and 0.13 s
// in demux and rtpflow, against 0.23 s for reading and decoding (half of it read(2)).
// tcpframe no longer moves the dead bytes of borrowed messages when its buffer slides, and
// rtpflow's per-second median strides by mask: about 10 ms of CPU less per run in the
// profile; whole-process 2.99-3.11× against 3.16-3.73× in the same rounds, but the 2-core
// VM swung ±15% between rounds (one round of 21 the other way), so read it as ~3.1×.
// No gain from 256 KiB or 512 KiB chunks, 2 or 8 batches ahead, 1024-packet batches; 4 MiB
// chunks and 64-packet batches were slower.
const (
	batchPackets = 256
	// batchBytes ends a batch early when its packets' bytes reach it, which bounds the
	// buffers held for the batches of jumbo or reassembled datagrams.
	batchBytes = 512 << 10
	// batchesAhead is how many batches the reader may fill before the analysis takes them.
	batchesAhead = 4
)

// batch is a run of decoded packets.
type batch struct {
	pkts    []capture.Packet
	digests []digests    // of each packet, for dedup
	held    capture.Held // the reader's buffers left behind while reading the batch
	err     error        // the reader's error after the last packet (io.EOF at the end), or nil
}

// readBatches reads rd on its own goroutine and sends batches on full, the last one with the
// reader's error (io.EOF included); batches given back on free are reused. The goroutine
// ends after the last batch, or when ctx is done. The reader's counters (Stats and the
// like) may be read once the last batch has been received.
func readBatches(ctx context.Context, rd *capture.Reader) (full <-chan *batch, free chan<- *batch) {
	fullc := make(chan *batch, batchesAhead)
	// Every batch ever made fits in freec, so that giving one back never blocks.
	freec := make(chan *batch, batchesAhead+2)
	made := 0
	rd.Hold()
	go func() {
		defer close(fullc)
		for {
			var b *batch
			select {
			case b = <-freec:
			case <-ctx.Done():
				return
			default:
				if made < cap(freec) {
					made++
					b = &batch{pkts: make([]capture.Packet, 0, batchPackets), digests: make([]digests, 0, batchPackets)}
					break
				}
				select {
				case b = <-freec:
				case <-ctx.Done():
					return
				}
			}
			// The batch is done with, and so is every batch before it: the buffers left
			// behind while reading it can be reused.
			rd.Release(&b.held)
			b.pkts, b.digests, b.err = b.pkts[:0], b.digests[:0], nil
			for n := 0; len(b.pkts) < batchPackets && n < batchBytes; {
				b.pkts = b.pkts[:len(b.pkts)+1]
				p := &b.pkts[len(b.pkts)-1]
				if err := rd.Next(p); err != nil {
					b.pkts = b.pkts[:len(b.pkts)-1]
					b.err = err
					break
				}
				b.digests = append(b.digests, digestsOf(p))
				n += len(p.Data) + len(p.Payload)
			}
			rd.TakeHeld(&b.held)
			select {
			case fullc <- b:
			case <-ctx.Done():
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	return fullc, freec
}
