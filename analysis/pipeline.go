package analysis

import (
	"context"
	"runtime"
	"time"

	"github.com/callpcap/callpcap/capture"
)

// The capture is read and decoded on one goroutine and analysed on another, so that the
// analysis uses both cores: the read(2) copy out of the page cache and the decode take about
// as long as the analysis does. Packets go across in batches, which are recycled, and point
// into the reader's own buffers, which the reader holds until the batch comes back
// (capture.Reader.Hold): nothing is copied. The reader also takes the dedup digests, while
// the packet's bytes are in its core's cache (see digests). Finished batches go back to
// the reader four at a time (pipe.release): the goroutine waiting for them is then woken
// once per group, not once per batch (a wake-up costs the waker a futex call), and each
// stage runs for a while without waiting for the other; four rather than more, so that
// the reader has each batch back sooner.
const (
	batchPackets = 256
	// batchBytes ends a batch early when its packets' bytes reach it, which bounds the
	// buffers held for the batches of jumbo or reassembled datagrams.
	batchBytes = 512 << 10
	// batches is how many batches exist; giveBack how many finished ones go back together.
	batches  = 16
	giveBack = 4
)

// batch is a run of decoded packets.
type batch struct {
	pkts    []capture.Packet
	digests []digests    // of each packet, for dedup
	held    capture.Held // the reader's buffers left behind while reading the batch
	err     error        // the reader's error after the last packet (io.EOF at the end), or nil
}

// pipe hands the batches of readBatches to the analysis and back.
type pipe struct {
	full <-chan *batch
	free chan<- *batch
	done []*batch // finished, not yet given back
	wait waiter
}

// readBatches reads rd on its own goroutine and hands out its batches through the pipe, the
// last one with the reader's error (io.EOF included). The goroutine ends after the last
// batch, or when ctx is done before it starts another. The reader's counters (Stats and the like) may be read once
// the last batch has been received.
func readBatches(ctx context.Context, rd *capture.Reader) *pipe {
	// Every batch ever made fits in either channel, so that neither side blocks on a send.
	fullc := make(chan *batch, batches)
	freec := make(chan *batch, batches)
	made := 0
	var w waiter
	rd.Hold()
	rd.GivenZero() // reclaim clears each batch whole
	go func() {
		defer close(fullc)
		for {
			var b *batch
			select {
			case b = <-freec:
			case <-ctx.Done():
				return
			default:
				if made < batches {
					made++
					b = &batch{pkts: make([]capture.Packet, 0, batchPackets), digests: make([]digests, 0, batchPackets)}
					break
				}
				var ok bool
				if b, ok = recv(&w, freec, ctx.Done()); !ok {
					return
				}
			}
			// The batch is done with, and so is every batch before it: the buffers left
			// behind while reading it can be reused.
			rd.Release(&b.held)
			reclaim(b.pkts)
			reclaim(b.digests)
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
			// Never blocks (see above); sent even when ctx is done, so that the packets read
			// before an interruption are analysed.
			fullc <- b
			if b.err != nil {
				return
			}
		}
	}()
	return &pipe{full: fullc, free: freec}
}

// next returns the next batch, or false after the last. When none is ready it first gives
// back the batches done with: the reader may be waiting for them.
func (p *pipe) next() (*batch, bool) {
	select {
	case b, ok := <-p.full:
		return b, ok
	default:
	}
	p.flush()
	return recv(&p.wait, p.full, nil)
}

// waiter is where one stage waits for batches (recv), with how long it yields there before
// it parks. A parked goroutine, once a send readies it, waits in the runnext slot of the
// sender's P, and the idle P takes it from there only after usleep(3) (runtime.runqgrab),
// which on a virtual machine can take 50-100 µs: longer than most batches take to
// analyse, and the stage woken then sits that long on a core that has nothing to do
// (docs/speed.md). Yielding instead, the waiting goroutine stays runnable and needs no
// wake-up. How long it yields adapts: halved after a wait that ended parked, doubled after
// one that did not, between spinMin and spinMax, so that a slow input (a live pipe), whose
// waits are long, costs little spinning.
type waiter struct{ spin time.Duration }

const (
	spinMin = 16 * time.Microsecond
	spinMax = time.Millisecond
)

// recv receives from ch, or returns false once ch is closed or done is.
func recv[T any](w *waiter, ch <-chan T, done <-chan struct{}) (T, bool) {
	if w.spin == 0 {
		w.spin = spinMax
	}
	var since time.Time
	for i := 0; ; i++ {
		// A select locks the channel: between looks, len (a load) says whether to look.
		if len(ch) > 0 || i%16 == 0 {
			select {
			case v, ok := <-ch:
				w.spin = min(2*w.spin, spinMax)
				return v, ok
			case <-done:
				var zero T
				return zero, false
			default:
			}
		}
		if i%16 == 0 {
			if i == 0 {
				since = time.Now()
			} else if time.Since(since) > w.spin {
				break
			}
		}
		runtime.Gosched()
	}
	w.spin = max(w.spin/2, spinMin)
	select {
	case v, ok := <-ch:
		return v, ok
	case <-done:
		var zero T
		return zero, false
	}
}

// release gives b back to the reader, with the batches before it, giveBack at a time.
// Batches are released in the order they came.
func (p *pipe) release(b *batch) {
	p.done = append(p.done, b)
	if len(p.done) >= giveBack {
		p.flush()
	}
}

func (p *pipe) flush() {
	for _, b := range p.done {
		p.free <- b
	}
	clear(p.done)
	p.done = p.done[:0]
}

// reclaim zeroes a recycled batch's whole backing array before the batch is filled again.
// The other goroutine read it on the other core, which still holds its cache lines: each
// line written back costs a round trip to that core first, and written field by field, one
// packet after another, the trips follow one another. Cleared at once, the lines are asked
// for together (BenchmarkTCP/pipe shows the difference; docs/speed.md).
func reclaim[T any](s []T) { clear(s[:cap(s)]) }
