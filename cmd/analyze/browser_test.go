//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/callpcap/callpcap/internal/testgen/corpus"
	"github.com/callpcap/callpcap/internal/testgen/golden"
)

// The README's picture of the HTML report: the top of turn-tcp-call's page as Chromium draws
// it, rewritten under -update only (fonts differ between machines, so a normal run neither
// compares nor rewrites it).
const readmePicture = "docs/report.png"

// browserWidth is the window's width in CSS pixels: the report's body is at most 60em (840
// px at 14 px) wide, its charts at most 800 px.
const browserWidth = 900

// The verdict of turn-tcp-call.pcap.gz (testdata/turn-tcp-call.golden.txt): its headline and
// its one finding.
var (
	tcpHeadline = "Media relayed over TCP: TURN 203.0.113.7:443 (tcp) for 10.0.0.1 <-> 198.51.100.9."
	tcpFinding  = "Media between 10.0.0.1:40000 and 198.51.100.9:50000 was relayed over TCP through TURN 203.0.113.7:443: " +
		"1.0% of the bytes on that connection were retransmissions; 880 media packets (15%) arrived more than 150 ms late, " +
		"800 of them held behind a retransmitted segment (head-of-line blocking), 80 whose own bytes were retransmitted; " +
		"TCP's ACKs, framing and retransmissions took 7.0% of the wire bytes."
	udpHeadline = "Media relayed over UDP: TURN 203.0.113.7:3478 for 10.0.0.1 <-> 198.51.100.9."
	tcpTitles   = []string{"d1: 10.0.0.1:40000 → 198.51.100.9:50000 (turn-tcp)", "d2: 198.51.100.9:50000 → 10.0.0.1:40000 (turn-tcp)",
		"Legs", "Streams", "TCP", "ICE and TURN", "Findings"}
	udpTitles = []string{"d1: 10.0.0.1:40000 → 198.51.100.9:50000 (turn-udp)", "d2: 198.51.100.9:50000 → 10.0.0.1:40000 (turn-udp)",
		"Legs", "Streams", "ICE and TURN", "Findings"}
)

// TestHTMLInBrowser opens the HTML report of turn-tcp-call.pcap.gz and of a comparison of four
// captures in headless Chromium and checks what a reader sees:
//
//   - the titles (h1, h2) and the verdicts are in the DOM Chromium built, in order;
//   - every chart is drawn: the screenshot's pixels inside each chart's <svg> box hold the
//     grey of axes and labels and a series' colour, not only white (see checkCharts);
//   - the page requested nothing but itself.
//
// Where the charts are comes from a copy of the page with a script appended by this test
// (the report has none): it writes each chart's box into an attribute of <html>, read back
// from Chromium's --dump-dom, so the check does not depend on fonts or guessed offsets.
// The page is served over HTTP by a loopback server that is also Chromium's proxy for every
// URL, so nothing leaves the machine; the page's requests are read from Chromium's net log
// (their initiator is the page), and the proxy's record of the page's origin is a second
// witness. TestBrowserSeesRequests shows both see what a page fetches.
//
// Without Chromium the test skips, and fails under CI=true (.ci/run installs it).
func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("turn-tcp-call", func(t *testing.T) {
		t.Chdir(root)
		page := htmlReport(t, "testdata/turn-tcp-call.pcap.gz")
		dom, shot, requests := openInBrowser(t, bin, page)
		checkRequests(t, requests)
		checkTexts(t, dom, append([]string{"h1 testdata/turn-tcp-call.pcap.gz"}, prefixed("h2 ", tcpTitles)...),
			[][]string{{tcpHeadline, tcpFinding}})
		if len(dom.charts) != 8 {
			t.Errorf("%d charts, want 8 (bitrate, loss, delay, RTT of each direction)", len(dom.charts))
		}
		checkCharts(t, dom, shot)
		if *golden.Update && len(dom.charts) >= 3 {
			writePicture(t, filepath.Join(root, readmePicture), shot, dom.charts[2])
		}
	})

	t.Run("comparison", func(t *testing.T) {
		// Four captures whose names differ in one part, as a user's would: office-tcp and
		// home-tcp are turn-tcp-call, office-udp and home-udp are turn-udp-call.
		dir := t.TempDir()
		names := []string{"office-tcp", "office-udp", "home-tcp", "home-udp"}
		for _, n := range names {
			src := filepath.Join(root, "testdata", "turn-"+strings.TrimPrefix(strings.TrimPrefix(n, "office-"), "home-")+"-call.pcap.gz")
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, n+".pcap.gz"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Chdir(dir)
		page := htmlReport(t, "office-tcp.pcap.gz", "office-udp.pcap.gz", "home-tcp.pcap.gz", "home-udp.pcap.gz")
		dom, shot, requests := openInBrowser(t, bin, page)
		checkRequests(t, requests)
		titles := []string{"h1 Comparison"}
		var verdicts [][]string
		for _, n := range names {
			titles = append(titles, "h1 "+n+".pcap.gz")
			if strings.HasSuffix(n, "tcp") {
				titles = append(titles, prefixed("h2 ", tcpTitles)...)
				verdicts = append(verdicts, []string{tcpHeadline, tcpFinding})
			} else {
				titles = append(titles, prefixed("h2 ", udpTitles)...)
				verdicts = append(verdicts, []string{udpHeadline, "No problem found."})
			}
		}
		checkTexts(t, dom, titles, verdicts)
		if len(dom.charts) != 29 {
			t.Errorf("%d charts, want 29 (the captures' ramps, then bitrate, loss, delay per direction, and RTT per direction over TCP)", len(dom.charts))
		}
		checkCharts(t, dom, shot)
	})
}

// TestBrowserSeesRequests: the request check is not blind. A page asking for a style sheet
// over HTTPS, an image on another host and one by a relative URL is seen asking for all three.
func TestBrowserSeesRequests(t *testing.T) {
	bin := chromium(t)
	page := `<!DOCTYPE html><html><head><link rel="stylesheet" href="https://fonts.example.com/x.css"></head>` +
		`<body><img src="http://img.example.org/a.png"><img src="charts/b.png"><figure><svg></svg></figure></body></html>`
	_, _, requests := openInBrowser(t, bin, page)
	want := []string{"http://img.example.org/a.png", "http://report.test/charts/b.png", "https://fonts.example.com/x.css"}
	if !slices.Equal(requests, want) {
		t.Errorf("requests %q, want %q", requests, want)
	}
}

func checkRequests(t *testing.T, requests []string) {
	t.Helper()
	if len(requests) > 0 {
		t.Errorf("the page requested %q: the report must fetch nothing", requests)
	}
}

// TestREADMEPicture: the picture the README shows is in the repository and is a PNG of the
// browser's width.
func TestREADMEPicture(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "]("+readmePicture+")") {
		t.Errorf("README.md does not show %s", readmePicture)
	}
	f, err := os.Open(filepath.Join("..", "..", readmePicture))
	if err != nil {
		t.Fatalf("%v (go test ./cmd/analyze -run TestHTMLInBrowser -update writes it)", err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != browserWidth || cfg.Height < 600 {
		t.Errorf("%s is %dx%d, want %d wide and at least 600 high", readmePicture, cfg.Width, cfg.Height, browserWidth)
	}
}

func chromium(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if corpus.InCI() {
			t.Fatal("chromium is not installed: .ci/run installs it, and CI=true does not pass without the browser test")
		}
		t.Skip("chromium is not installed (.ci/run installs it)")
	}
	return bin
}

func prefixed(p string, s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = p + v
	}
	return out
}

// htmlReport runs the command on the captures and returns the page it writes.
func htmlReport(t *testing.T, captures ...string) string {
	t.Helper()
	code, page, stderr := runCmd(t, "", append([]string{"-q", "--format", "html"}, captures...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Fatal("the report holds a script")
	}
	return page
}

// chartBox is a chart's <svg> box on the page, in CSS pixels (one screenshot pixel each).
type chartBox struct {
	X, Y, W, H float64
	Caption    string
}

// probe is what the test's script writes into <html data-probe>.
type probe struct {
	Height float64
	Charts []chartBox
}

// browserDOM is what the test reads from the DOM Chromium built.
type browserDOM struct {
	titles   []string   // "h1 text", "h2 text", in document order
	verdicts [][]string // the paragraphs of each <div class="verdict">
	height   int        // the document's height
	charts   []chartBox
}

// probeScript runs at the end of the body, once everything above it is laid out. It only
// sets an attribute of <html>: nothing on the page moves.
const probeScript = `<script>
(function () {
  var charts = [];
  document.querySelectorAll('figure svg').forEach(function (s) {
    var b = s.getBoundingClientRect(), c = s.closest('figure').querySelector('figcaption');
    charts.push({X: b.left + scrollX, Y: b.top + scrollY, W: b.width, H: b.height, Caption: c ? c.textContent : ''});
  });
  document.documentElement.setAttribute('data-probe', JSON.stringify({Height: document.documentElement.scrollHeight, Charts: charts}));
})();
</script>
`

// pageOrigin is where the test serves the page: a name that resolves nowhere, reached
// through the test's proxy.
const pageOrigin = "http://report.test"

// openInBrowser serves the page and a copy with the probe script, reads the DOM of the copy
// with --dump-dom, then screenshots the page itself at the document's full height. It
// returns the DOM, the screenshot and the URLs the page requested other than itself, sorted
// (see pageRequests).
func openInBrowser(t *testing.T, bin, page string) (browserDOM, image.Image, []string) {
	t.Helper()
	probed := strings.Replace(page, "</body>", probeScript+"</body>", 1)
	if probed == page {
		t.Fatal("the page has no </body>")
	}
	var (
		mu     sync.Mutex
		served []string
	)
	// Chromium's proxy for every URL, loopback included, so that nothing leaves the
	// machine. It serves the two pages and refuses everything else; what reaches it for the
	// page's origin is recorded. As a proxy it sees absolute URLs (GET http://host/path), and
	// CONNECT host:443 for HTTPS.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u := r.URL.String()
		if strings.HasPrefix(u, pageOrigin+"/") {
			mu.Lock()
			served = append(served, u)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case r.Method == http.MethodGet && u == pageOrigin+"/report.html":
			fmt.Fprint(w, page)
		case r.Method == http.MethodGet && u == pageOrigin+"/probe.html":
			fmt.Fprint(w, probed)
		default:
			http.Error(w, "not the page", http.StatusForbidden)
		}
	}))
	defer srv.Close()
	tmp := t.TempDir()
	requested := map[string]bool{}
	browse := func(url string, args ...string) []byte {
		netlog := filepath.Join(tmp, "netlog-"+filepath.Base(url)+".json")
		out := runChromium(t, bin, append(args, "--proxy-server="+srv.URL, "--proxy-bypass-list=<-loopback>",
			"--log-net-log="+netlog, "--net-log-capture-mode=Default", url))
		for _, u := range pageRequests(t, netlog, url) {
			requested[u] = true
		}
		return out
	}

	dump := browse(pageOrigin+"/probe.html", fmt.Sprintf("--window-size=%d,1000", browserWidth), "--dump-dom")
	dom := readDOM(t, dump)
	shotFile := filepath.Join(tmp, "page.png")
	browse(pageOrigin+"/report.html", fmt.Sprintf("--window-size=%d,%d", browserWidth, dom.height), "--screenshot="+shotFile)
	f, err := os.Open(shotFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	shot, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := shot.Bounds(); b.Dx() != browserWidth || b.Dy() != dom.height {
		t.Fatalf("screenshot %dx%d, want %dx%d", b.Dx(), b.Dy(), browserWidth, dom.height)
	}

	// The proxy's own record, a second witness: relative URLs in the page land here.
	mu.Lock()
	defer mu.Unlock()
	for _, u := range served {
		if u != pageOrigin+"/probe.html" && u != pageOrigin+"/report.html" && u != favicon {
			requested[u] = true
		}
	}
	return dom, shot, slices.Sorted(maps.Keys(requested))
}

// favicon is what Chromium itself asks of any page that names no icon: the browser's request,
// not the page's (a report opened from a file does not make it).
const favicon = pageOrigin + "/favicon.ico"

// pageRequests reads Chromium's net log and returns the URLs the page at url requested,
// other than itself and the favicon, to any host and by any scheme the network stack serves.
// A request is the page's when its initiator is the page's origin or its network isolation
// key is the page's site: the browser's own traffic (component updates, account and time
// queries, which Chromium makes whatever the flags) has neither. It fails the test when the
// log does not show the page's own request, so that a change in the log's format cannot pass
// unnoticed.
func pageRequests(t *testing.T, netlog, url string) []string {
	t.Helper()
	b, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int            `json:"type"`
			Params map[string]any `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("net log %s: %v", netlog, err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("the net log names no URL_REQUEST_START_JOB event")
	}
	var extra []string
	sawPage := false
	for _, e := range log.Events {
		u, _ := e.Params["url"].(string)
		if e.Type != start || u == "" {
			continue
		}
		initiator, _ := e.Params["initiator"].(string)
		nik, _ := e.Params["network_isolation_key"].(string)
		switch {
		case u == url:
			sawPage = true
		case initiator == pageOrigin || strings.HasPrefix(nik, pageOrigin+" "):
			if u != favicon {
				extra = append(extra, u)
			}
		}
	}
	if !sawPage {
		t.Fatalf("the net log %s does not show the request of %s", netlog, url)
	}
	return extra
}

// runChromium runs headless Chromium in its own process group, with a fresh profile, and
// kills the group when it returns (or after 60 s), so that no helper process outlives it.
func runChromium(t *testing.T, bin string, args []string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args = append([]string{"--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--force-device-scale-factor=1", "--user-data-dir=" + t.TempDir(), "--no-first-run",
		"--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-extensions", "--disable-default-apps", "--disable-domain-reliability",
		"--no-pings", "--disable-client-side-phishing-detection", "--no-service-autorun", "--metrics-recording-only",
		"--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter,AutofillServerCommunication"}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// readDOM reads the titles, the verdicts and the probe's chart boxes from Chromium's
// serialized DOM.
func readDOM(t *testing.T, dump []byte) browserDOM {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	var dom browserDOM
	var p probe
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case n.Data == "html":
				for _, a := range n.Attr {
					if a.Key == "data-probe" {
						if err := json.Unmarshal([]byte(a.Val), &p); err != nil {
							t.Fatalf("data-probe: %v", err)
						}
					}
				}
			case n.Data == "h1" || n.Data == "h2":
				dom.titles = append(dom.titles, n.Data+" "+textOf(n))
			case n.Data == "div" && hasClass(n, "verdict"):
				var ps []string
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && c.Data == "p" {
						ps = append(ps, textOf(c))
					}
				}
				dom.verdicts = append(dom.verdicts, ps)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if p.Height <= 0 {
		t.Fatalf("the probe script did not run: no data-probe on <html> in\n%.2000s", dump)
	}
	dom.height, dom.charts = int(p.Height), p.Charts
	if dom.height > 16000 {
		t.Fatalf("page %d px high: too high for one screenshot", dom.height)
	}
	return dom
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" && slices.Contains(strings.Fields(a.Val), class) {
			return true
		}
	}
	return false
}

func checkTexts(t *testing.T, dom browserDOM, titles []string, verdicts [][]string) {
	t.Helper()
	if !slices.Equal(dom.titles, titles) {
		t.Errorf("titles in the DOM\n%q\nwant\n%q", dom.titles, titles)
	}
	if !slices.EqualFunc(dom.verdicts, verdicts, slices.Equal[[]string]) {
		t.Errorf("verdicts in the DOM\n%q\nwant\n%q", dom.verdicts, verdicts)
	}
}

// A chart is drawn when its box on the screenshot holds, besides the white background, at
// least minInk pixels of the dark grey of its axes and labels and at least minSeries
// pixels of a series' colour (every chart draws a coloured line: bitrate, loss, delay or the
// late budget). A chart that drew nothing, or only its frame, fails; the thresholds are a
// tenth of what the thinnest chart here draws (about 1,500 series and 5,000 ink pixels), so
// fonts and anti-aliasing do not matter.
const (
	minInk        = 500
	minSeries     = 150
	greyTolerance = 40 // a pixel whose channels differ by less is grey
)

func checkCharts(t *testing.T, dom browserDOM, shot image.Image) {
	t.Helper()
	if len(dom.charts) == 0 {
		t.Fatal("no chart on the page")
	}
	for i, c := range dom.charts {
		r := boxRect(c)
		if c.W < 300 || c.H < 100 || !r.In(shot.Bounds()) {
			t.Errorf("chart %d (%s): box %+v is not a chart's on a %v screenshot", i+1, c.Caption, c, shot.Bounds())
			continue
		}
		ink, series := chartPixels(shot, r)
		if ink < minInk || series < minSeries {
			t.Errorf("chart %d (%s): %d pixels of axes and labels and %d of series, want at least %d and %d: the chart looks blank",
				i+1, c.Caption, ink, series, minInk, minSeries)
		}
	}
}

func boxRect(c chartBox) image.Rectangle {
	return image.Rect(int(c.X+0.5), int(c.Y+0.5), int(c.X+c.W), int(c.Y+c.H))
}

// chartPixels counts the pixels in r that are dark grey (ink: axes, ticks, labels) and those
// that are coloured (series).
func chartPixels(img image.Image, r image.Rectangle) (ink, series int) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			hi, lo := max(c.R, c.G, c.B), min(c.R, c.G, c.B)
			switch {
			case int(hi)-int(lo) >= greyTolerance:
				series++
			case hi < 160:
				ink++
			}
		}
	}
	return ink, series
}

// writePicture writes the top of the screenshot, down to below the chart last, as a
// paletted PNG: the 256 commonest colours, every other pixel mapped to the nearest of them,
// which keeps text and lines sharp at a fraction of the size.
func writePicture(t *testing.T, path string, shot image.Image, last chartBox) {
	t.Helper()
	bottom := min(int(last.Y+last.H)+40, shot.Bounds().Dy())
	crop := image.Rect(0, 0, shot.Bounds().Dx(), bottom)
	counts := map[color.NRGBA]int{}
	for y := crop.Min.Y; y < crop.Max.Y; y++ {
		for x := crop.Min.X; x < crop.Max.X; x++ {
			counts[color.NRGBAModel.Convert(shot.At(x, y)).(color.NRGBA)]++
		}
	}
	type freq struct {
		c color.NRGBA
		n int
	}
	var fs []freq
	for c, n := range counts {
		fs = append(fs, freq{c, n})
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].n != fs[j].n {
			return fs[i].n > fs[j].n
		}
		a, b := fs[i].c, fs[j].c
		return uint32(a.R)<<16|uint32(a.G)<<8|uint32(a.B) < uint32(b.R)<<16|uint32(b.G)<<8|uint32(b.B)
	})
	var pal color.Palette
	for _, f := range fs[:min(len(fs), 256)] {
		pal = append(pal, f.c)
	}
	out := image.NewPaletted(crop, pal)
	draw.Draw(out, crop, shot, crop.Min, draw.Src)
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, out); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 300<<10 {
		t.Errorf("%s is %d bytes, want under 300 KiB", path, buf.Len())
	}
}
