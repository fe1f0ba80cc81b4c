package main

import (
	"io"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows how much of an input has been read, on a terminal: a bar with the file's
// name, percentage, bytes and rate when its size is known, a spinner and the bytes read
// when it is not (a pipe). mpb rather than schollz/progressbar, which links net/http in
// for its HTTP server option: every run paid for that at start, bar shown or not
// (docs/speed.md, Start-up and memory).
type progress struct {
	io.Reader
	p   *mpb.Progress
	bar *mpb.Bar
}

func newProgress(w io.Writer, name string, size int64, r io.Reader) *progress {
	// Auto refresh is mpb's default on a terminal, the only place it is shown; forced, so
	// that the test sees it drawn into a buffer.
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithRefreshRate(100*time.Millisecond),
		mpb.WithAutoRefresh())
	var filler mpb.BarFillerBuilder = mpb.SpinnerStyle()
	label := []decor.Decorator{decor.Name(name, decor.WCSyncSpaceR)}
	count := decor.Current(decor.SizeB1024(0), "% .1f")
	if size > 0 {
		filler = mpb.BarStyle()
		label = append(label, decor.Percentage(decor.WCSyncSpace))
		count = decor.Counters(decor.SizeB1024(0), "% .1f / % .1f")
	}
	bar := p.New(max(size, 0), filler, mpb.BarRemoveOnComplete(), mpb.PrependDecorators(label...),
		mpb.AppendDecorators(count, decor.AverageSpeed(decor.SizeB1024(0), "  % .1f")))
	pr := &progress{Reader: r, p: p, bar: bar}
	if rc, err := bar.ProxyReader(r); err == nil { // an error only for a nil reader
		pr.Reader = rc
	}
	return pr
}

// close removes the bar, whether the input was read to its end or not, and waits until it
// is gone from the terminal.
func (pr *progress) close() {
	pr.bar.Abort(true)
	pr.p.Wait()
}
