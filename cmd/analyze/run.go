package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/callpcap/callpcap/analysis"
	"github.com/callpcap/callpcap/render"
	"github.com/callpcap/callpcap/report"
)

// version is the tool's version, as the JSON report and --version give it.
const version = "0.1.0"

// Errors that map to exit codes (see exitCode).
var (
	errUsage      = errors.New("usage")                       // exit 2
	errUnreadable = errors.New("some inputs were unreadable") // exit 1, already reported per file
)

// usageError is a command line the tool will not run. bare: the message says all there is
// to say, without the usage hint.
type usageError struct {
	msg  string
	bare bool
}

func (e usageError) Error() string { return e.msg }
func (e usageError) Unwrap() error { return errUsage }

func usagef(format string, args ...any) error { return usageError{msg: fmt.Sprintf(format, args...)} }

// exitCode maps run's error to the documented exit code, printing it on stderr.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "analyze: %v\n", err)
		if ue := (usageError{}); !errors.As(err, &ue) || !ue.bare {
			fmt.Fprintf(stderr, "usage: analyze [flags] FILE...  (analyze --help for the flags)\n")
		}
		return 2
	case errors.Is(err, errUnreadable):
		return 1
	}
	// Interrupted: the report of what was read is written, and its warning says so.
	if i := (interruption{}); errors.As(err, &i) {
		return i.exitCode()
	}
	fmt.Fprintf(stderr, "analyze: %v\n", err)
	return 1
}

type config struct {
	format   string
	output   string
	charts   string
	quiet    bool
	opts     analysis.Options
	files    []string
	showVers bool
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := pflag.NewFlagSet("analyze", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(true) // flags may come before or after the files
	var (
		cfg        config
		lateBudget = fs.Duration("late-budget", report.DefaultLateBudget, "a media packet delayed more than this above its stream's baseline is late")
		rampTarget = fs.String("ramp-target", "", "the bitrate the ramp is measured against (2500kbps, 2.5Mbps); default: the plateau")
		minPackets = fs.Int("min-packets", report.DefaultMinPackets, "the fewest packets an RTP stream needs to be reported")
		decodeAs   = fs.StringArray("decode-as", nil, "treat a port as carrying rtp, rtcp, stun, turn or rfc4571: PROTO=PORT (repeatable)")
	)
	fs.StringVar(&cfg.format, "format", "", "report format: text, json, md or html (default: from -o's extension, else text)")
	fs.StringVarP(&cfg.output, "output", "o", "", "write the report to this file instead of standard output (- is standard output); never one of the inputs")
	fs.StringVar(&cfg.charts, "charts", "", "also write the charts (SVG and PNG) into this directory")
	fs.BoolVarP(&cfg.quiet, "quiet", "q", false, "no progress bar, no warnings on standard error")
	fs.BoolVar(&cfg.showVers, "version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: analyze [flags] FILE...\n       analyze scrub [-o OUT] FILE   (a copy with the media payload zeroed; analyze scrub --help)\n\n"+
			"FILE is a pcap or pcapng capture (optionally gzip- or zstd-compressed), or - for standard input.\n\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nExit codes: 0 a report was produced, 1 an input could not be read as a capture, 2 usage error,\n"+
			"130 (SIGINT, Ctrl-C) or 143 (SIGTERM) the reading was interrupted: the report covers what was read.\n")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, pflag.ErrHelp
		}
		return nil, usagef("%v", err)
	}
	if cfg.showVers {
		return &cfg, nil
	}
	cfg.files = fs.Args()
	if len(cfg.files) == 0 {
		return nil, usagef("no capture file given")
	}
	if cfg.format == "" {
		cfg.format = formatFromName(cfg.output)
	}
	switch cfg.format {
	case "text", "json", "md", "html":
	default:
		return nil, usagef("--format %q: want text, json, md or html", cfg.format)
	}
	if *lateBudget <= 0 {
		return nil, usagef("--late-budget %v: must be above zero", *lateBudget)
	}
	cfg.opts.LateBudget = *lateBudget
	if *rampTarget != "" {
		kbps, err := parseRate(*rampTarget)
		if err != nil {
			return nil, usagef("--ramp-target: %v", err)
		}
		cfg.opts.RampTargetKbps = kbps
	}
	if *minPackets < 1 {
		return nil, usagef("--min-packets %d: must be at least 1", *minPackets)
	}
	cfg.opts.MinPackets = *minPackets
	for _, s := range *decodeAs {
		d, err := analysis.ParseDecodeAs(s)
		if err != nil {
			return nil, usagef("--%v", err)
		}
		cfg.opts.DecodeAs = append(cfg.opts.DecodeAs, d)
	}
	return &cfg, nil
}

func formatFromName(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return "json"
	case ".md", ".markdown":
		return "md"
	case ".html", ".htm":
		return "html"
	}
	return "text"
}

// parseRate reads a bitrate such as 2500kbps, 2.5Mbps, 2500k or 2500000 (bit/s) and returns
// kbit/s. A number without a unit is bit/s, as iperf reads it. A rate under minRate is
// refused, with or without a unit: "2500" is 2.5 kbps, below any media's rate, and was
// surely meant as kbps. A byte rate (1MB/s, 1MBps, 300KB: a capital B) is refused rather
// than read as bits, 8 times too low; NaN is no rate (it was taken, and ignored).
func parseRate(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "/s"), "ps")
	if strings.HasSuffix(t, "B") {
		return 0, fmt.Errorf("%q is a byte rate: give a bitrate (2500kbps, 2.5Mbps)", s)
	}
	t = strings.ToLower(t)
	t = strings.TrimSuffix(t, "bit")
	t = strings.TrimSuffix(t, "b")
	mult := 0.001 // plain bit/s
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1, t[:len(t)-1]
	case strings.HasSuffix(t, "m"):
		mult, t = 1000, t[:len(t)-1]
	case strings.HasSuffix(t, "g"):
		mult, t = 1e6, t[:len(t)-1]
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || v <= 0 || v*mult > 1e8 {
		return 0, fmt.Errorf("%q is not a bitrate (examples: 2500kbps, 2.5Mbps)", s)
	}
	if v*mult*1000 < minRate {
		if last := strings.TrimSpace(s); last != "" && last[len(last)-1] >= '0' && last[len(last)-1] <= '9' {
			return 0, fmt.Errorf("%q without a unit is %g bit/s: give one (2500kbps, 2.5Mbps)", s, v)
		}
		return 0, fmt.Errorf("%q is below any media's bitrate (%g kbps at least)", s, minRate/1000.0)
	}
	return v * mult, nil
}

// minRate (bit/s) is the least rate taken: Opus's lowest is 6 kbps.
const minRate = 6000

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "scrub" {
		return runScrub(ctx, args[1:], stdin, stdout, stderr)
	}
	cfg, err := parseArgs(args, stderr)
	if errors.Is(err, pflag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if cfg.showVers {
		fmt.Fprintf(stdout, "analyze (callpcap) %s\n", version)
		return nil
	}
	if cfg.output == "-" {
		cfg.output = ""
	}
	if err := checkOutput(cfg.output, cfg.files, stdin); err != nil {
		return err
	}
	rep := &report.Report{
		Schema: report.Schema,
		Tool:   report.Tool{Name: "callpcap", Version: version},
		Options: report.Options{
			LateBudgetMS: float64(cfg.opts.LateBudget) / float64(time.Millisecond),
			MinPackets:   cfg.opts.MinPackets,
		},
		Captures: []report.Capture{},
	}
	if cfg.opts.RampTargetKbps > 0 {
		v := cfg.opts.RampTargetKbps
		rep.Options.RampTargetKbps = &v
	}
	failed := false
	var stopped error // the interruption that stopped the reading
	for _, name := range cfg.files {
		if ctx.Err() != nil {
			// The files after the one being read when the signal came are not read: the
			// report lists them so, as it lists a file it could not read (exit 130 or 143
			// all the same).
			stopped = context.Cause(ctx)
			c := report.Capture{File: name, Error: fmt.Sprintf("not read: the reading was interrupted by %v", stopped)}
			fmt.Fprintf(stderr, "analyze: %s: %s\n", name, c.Error)
			rep.Captures = append(rep.Captures, c)
			continue
		}
		c, err := analyzeFile(ctx, name, stdin, stderr, cfg)
		if err != nil {
			failed = true
			c.Error = reason(err, c.Error)
			fmt.Fprintf(stderr, "analyze: %s: %s\n", name, oneLine(c.Error))
		} else if !cfg.quiet {
			for _, w := range c.Warnings {
				fmt.Fprintf(stderr, "analyze: %s: warning: %s\n", name, w)
			}
		}
		rep.Captures = append(rep.Captures, c)
	}
	if stopped == nil && ctx.Err() != nil {
		stopped = context.Cause(ctx)
	}
	// With several files the comparison is there even when only one could be read: a
	// script given several files finds the object, its entries those of the files read
	// (a capture that failed has no direction).
	rep.Comparison = analysis.Compare(rep.Captures)

	out := stdout
	var file *os.File
	if cfg.output != "" {
		file, err = os.Create(cfg.output)
		if err != nil {
			return err
		}
		out = file
	}
	bw := bufio.NewWriter(out)
	if cfg.charts != "" {
		if err := writeCharts(cfg.charts, rep); err != nil {
			return err
		}
	}
	switch cfg.format {
	case "json":
		err = render.JSON(bw, rep)
	case "html":
		err = render.HTML(bw, rep)
	case "md":
		err = render.Markdown(bw, rep, chartsLink(cfg.charts, cfg.output))
	default:
		err = render.Text(bw, rep)
	}
	if err == nil {
		err = bw.Flush()
	}
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if stopped != nil {
		return stopped
	}
	if failed {
		return errUnreadable
	}
	return nil
}

// checkOutput refuses an output file that is one of the inputs, by any path (os.SameFile):
// the report would replace the capture it is about. An output that does not exist yet is
// fine.
func checkOutput(output string, inputs []string, stdin io.Reader) error {
	if output == "" {
		return nil
	}
	out, err := os.Stat(output)
	if err != nil {
		return nil
	}
	for _, name := range inputs {
		var in os.FileInfo
		if name == "-" {
			if f, ok := stdin.(*os.File); ok {
				in, _ = f.Stat()
			}
		} else {
			in, _ = os.Stat(name)
		}
		if in != nil && os.SameFile(in, out) {
			what := "the input " + name
			if name == "-" {
				what = "standard input"
			}
			return usageError{msg: fmt.Sprintf("-o %s is %s: refusing to overwrite a capture with its report", output, what), bare: true}
		}
	}
	return nil
}

// analyzeFile opens one input ("-" is standard input) and analyses it, with a progress bar
// on a terminal.
func analyzeFile(ctx context.Context, name string, stdin io.Reader, stderr io.Writer, cfg *config) (report.Capture, error) {
	var r io.Reader = stdin
	size := int64(-1)
	regular := false
	if f, ok := stdin.(*os.File); ok && name == "-" {
		if st, err := f.Stat(); err == nil {
			regular = st.Mode().IsRegular()
		}
	}
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return report.Capture{File: name}, err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			if st.IsDir() {
				return report.Capture{File: name}, errors.New("is a directory")
			}
			size = st.Size()
			regular = st.Mode().IsRegular()
		}
		r = f
	}
	if !regular {
		// A pipe, a terminal or a FIFO may block in a read for ever: the analysis must not
		// wait for it once interrupted. A regular file stops at the next batch.
		r = newRelay(ctx, r)
	}
	if !cfg.quiet && isTerminal(stderr) {
		pr := newProgress(stderr, filepath.Base(name), size, r)
		defer pr.close()
		r = pr
	}
	return analysis.Analyze(ctx, name, r, cfg.opts)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func oneLine(s string) string {
	return strings.ReplaceAll(s, "\n", " ")
}

// reason says why an input could not be read, without its name, which the line about it
// starts with: an *fs.PathError's message names the file itself ("open call.pcap: no such
// file or directory"), analysis' error the capture (its Capture.Error, given as analysed, is
// the reason alone).
func reason(err error, analysed string) string {
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe) && pe.Op == "open":
		return pe.Err.Error()
	case errors.As(err, &pe):
		return pe.Op + ": " + pe.Err.Error()
	case analysed != "":
		return analysed
	}
	return err.Error()
}
