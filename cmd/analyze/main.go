// Command analyze turns a packet capture of a real-time call into a report: how the media
// travelled, what that cost on the wire, loss, lateness, ramp-up and a diagnosis.
//
//	analyze [flags] FILE...
//	analyze scrub [-o OUT] FILE   (a file named scrub is ./scrub)
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// SIGINT or SIGTERM stops the reading, and the report of what was read is still written
	// (exit 130 or 143); a second signal ends the process at once.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		cancel(interruption{sig})
		os.Exit(interruption{<-sigs}.exitCode())
	}()
	if largeInput(os.Args[1:]) {
		_ = hugeHeap(hugeHeapBytes) // best effort: without huge pages, the heap is as before
	}
	deferFirstGC()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	os.Exit(exitCode(err, os.Stderr))
}
