package main

import (
	"context"
	"io"
	"os"
	"syscall"
)

// interruption is the signal that stopped the reading: the cause of the run's context, and
// run's error once the report of what was read is written.
type interruption struct{ sig os.Signal }

// Error names the signal as a person sends it (kill -INT, Ctrl-C): "SIGINT".
func (e interruption) Error() string {
	if e.sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// exitCode is 128 plus the signal's number, as shells report a process a signal ended.
func (e interruption) exitCode() int {
	if e.sig == syscall.SIGTERM {
		return 128 + 15
	}
	return 128 + 2
}

const (
	relayChunk  = 256 << 10 // as large as the capture reader's reads
	relayChunks = 4
)

// relay reads r on a goroutine of its own, so that a read can be abandoned: Read returns
// context.Cause(ctx) as soon as ctx is done, even while the read it waits for is blocked
// (standard input from a pipe that sends nothing). That goroutine then stays blocked until
// its read returns, or the process ends, which follows soon after an interruption.
type relay struct {
	ctx  context.Context
	full chan []byte // chunks read, in order
	free chan []byte // chunks to read into
	cur  []byte      // the chunk being consumed, from off
	off  int
	err  error // the source's error; set before full is closed
}

func newRelay(ctx context.Context, r io.Reader) *relay {
	// Both channels hold every chunk, so that neither side blocks on a send.
	rl := &relay{ctx: ctx, full: make(chan []byte, relayChunks), free: make(chan []byte, relayChunks)}
	for range relayChunks {
		rl.free <- make([]byte, relayChunk)
	}
	go rl.read(r)
	return rl
}

func (rl *relay) read(r io.Reader) {
	defer close(rl.full)
	for {
		if rl.ctx.Err() != nil {
			return
		}
		var b []byte
		select {
		case b = <-rl.free:
		case <-rl.ctx.Done():
			return
		}
		n, err := r.Read(b[:cap(b)])
		if n > 0 {
			rl.full <- b[:n]
		} else {
			rl.free <- b
		}
		if err != nil {
			rl.err = err
			return
		}
	}
}

func (rl *relay) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for rl.off == len(rl.cur) {
		if rl.cur != nil {
			rl.free <- rl.cur
			rl.cur = nil
		}
		// What was read before ctx was done is handed out first (at most relayChunks
		// chunks): the report then covers every packet that arrived.
		var b []byte
		var ok bool
		select {
		case b, ok = <-rl.full:
		default:
			select {
			case b, ok = <-rl.full:
			case <-rl.ctx.Done():
				return 0, context.Cause(rl.ctx)
			}
		}
		if !ok {
			if rl.err == nil { // the goroutine stopped for ctx
				return 0, context.Cause(rl.ctx)
			}
			return 0, rl.err
		}
		rl.cur, rl.off = b, 0
	}
	n := copy(p, rl.cur[rl.off:])
	rl.off += n
	return n, nil
}
