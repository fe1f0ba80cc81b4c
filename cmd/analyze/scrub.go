package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/spf13/pflag"

	"github.com/callpcap/callpcap/scrub"
)

const scrubUsage = "usage: analyze scrub [-o OUT] [-q] FILE"

// runScrub is `analyze scrub [-o OUT] FILE`: a copy of the capture with its media payload
// zeroed (package scrub), to OUT (gzip-compressed when OUT ends in .gz) or standard output,
// never a terminal and never the input.
func runScrub(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("analyze scrub", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(true)
	var output string
	var quiet bool
	fs.StringVarP(&output, "output", "o", "", "write the scrubbed capture to this file (- is standard output; .gz compresses); never the input")
	fs.BoolVarP(&quiet, "quiet", "q", false, "no summary on standard error")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\n\nWrites a copy of the capture with its media payload (RTP payload, DTLS application data,\n"+
			"over UDP, TURN and TCP) rewritten to zeros, keeping every header, length and timestamp:\n"+
			"analyze gives the same report on it. FILE is a capture (optionally gzip or zstd) or - for\n"+
			"standard input; the copy is in the same container, uncompressed unless OUT ends in .gz.\n\n", scrubUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return usageError{msg: fmt.Sprintf("scrub: %v\n%s", err, scrubUsage), bare: true}
	}
	if fs.NArg() != 1 {
		return usageError{msg: fmt.Sprintf("scrub: want one capture file, got %d\n%s", fs.NArg(), scrubUsage), bare: true}
	}
	name := fs.Arg(0)
	if output == "-" {
		output = ""
	}
	if output == "" && isTerminal(stdout) {
		return usageError{msg: "scrub: refusing to write a capture to a terminal: give -o FILE or redirect standard output", bare: true}
	}
	if err := checkOutput(output, []string{name}, stdin); err != nil {
		return usageError{msg: strings.Replace(err.Error(), "with its report", "with its scrubbed copy", 1), bare: true}
	}

	open, cleanup, err := reopenable(name, stdin)
	if err != nil {
		return fmt.Errorf("scrub: %s: %w", name, err)
	}
	defer cleanup()

	var out io.Writer = stdout
	var tmp *os.File
	if output != "" {
		// Into a file beside OUT, renamed at the end: a failure leaves no half capture.
		tmp, err = os.CreateTemp(filepath.Dir(output), "."+filepath.Base(output)+".*")
		if err != nil {
			return fmt.Errorf("scrub: %w", err)
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		out = tmp
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	var zw *gzip.Writer
	var dst io.Writer = bw
	if strings.HasSuffix(output, ".gz") {
		zw = gzip.NewWriter(bw)
		dst = zw
	}
	st, err := scrub.Scrub(ctx, name, open, dst)
	if err != nil {
		return fmt.Errorf("scrub: %w", err) // an unreadable input names itself: exit 1
	}
	if zw != nil {
		err = zw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && tmp != nil {
		err = tmp.Chmod(0o644) // CreateTemp's 0600 is for the half-written file only
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), output)
		}
	}
	if err != nil {
		return fmt.Errorf("scrub: writing the copy: %w", err)
	}
	if !quiet {
		fmt.Fprintf(stderr, "analyze scrub: %s: %d packets; zeroed %d bytes: %d RTP payloads, %d DTLS application data records"+
			" (%d TCP bytes between messages); checksums %d cleared, %d recomputed, %d left stale (snapped); %d fragmented datagrams kept\n",
			name, st.Packets, st.ZeroedBytes, st.RTPPackets, st.DTLSRecords, st.UnplacedBytes,
			st.ChecksumsCleared, st.ChecksumsRecomputed, st.ChecksumsStale, st.Fragmented)
		if st.Damaged {
			fmt.Fprintf(stderr, "analyze scrub: %s: the capture is damaged after its %d packets: the copy holds them; `analyze` on the original says where the damage is\n",
				name, st.Packets)
		}
	}
	return nil
}

// reopenable returns a function that opens the input again at each call, as scrub reads it
// three times: a regular file by its name; standard input or a pipe spooled to a temporary
// file first (removed by cleanup).
func reopenable(name string, stdin io.Reader) (open func() (io.ReadCloser, error), cleanup func(), err error) {
	nop := func() {}
	if name != "-" {
		st, err := os.Stat(name)
		if err != nil {
			return nil, nop, err
		}
		if st.IsDir() {
			return nil, nop, errors.New("is a directory")
		}
		if st.Mode().IsRegular() {
			return func() (io.ReadCloser, error) { return os.Open(name) }, nop, nil
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, nop, err
		}
		defer f.Close()
		stdin = f
	}
	tmp, err := os.CreateTemp("", "analyze-scrub-*")
	if err != nil {
		return nil, nop, err
	}
	cleanup = func() { tmp.Close(); os.Remove(tmp.Name()) }
	if _, err := io.Copy(tmp, stdin); err != nil {
		cleanup()
		return nil, nop, err
	}
	return func() (io.ReadCloser, error) { return os.Open(tmp.Name()) }, cleanup, nil
}
