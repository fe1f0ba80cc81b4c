// Command analyze turns a packet capture of a real-time call into a report: how the media
// travelled, what that cost on the wire, loss, lateness, ramp-up and a diagnosis.
//
//	analyze [flags] FILE...
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}
