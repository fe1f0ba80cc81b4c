package render

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/callpcap/callpcap/charts"
	"github.com/callpcap/callpcap/report"
)

// page is what the HTML and Markdown reports show, as plain text: each renderer escapes it
// for its own language, so no text from the capture reaches the page unescaped.
type page struct {
	Captures   []pageCapture
	Comparison *pageComparison
}

// pageComparison sets the captures side by side: one column per capture and direction,
// the figures as rows (the text comparison's rows), captures labelled by the part of their
// file names that differs (or A, B, C), and their media bitrate ramps on one chart.
type pageComparison struct {
	Captures []compareCapture
	Columns  []string   // per column: "<label> <direction number>", for Markdown
	Rows     [][]string // the figure's name, then one cell per column
	Chart    *pageChart // nil when no capture has a media series
}

type compareCapture struct {
	Label, File string
	Directions  []string // "from -> to", numbered from 1 in the columns
}

type pageCapture struct {
	File, Head string
	Error      string
	Verdict    []string   // how the media travelled, then the worst findings
	Calls      []callLine // one per call, worst first, when the capture holds several
	Directions []pageDirection
	Legs       *table // the legs the calls and directions name
	Streams    *table
	TCP        *table
	Signalling []string // ICE and TURN
	Warnings   []string
	Findings   []pageFinding
	Charted    bool // some direction has charts but no RTT chart: the RTT note applies
}

type pageDirection struct {
	Call    string // on the first direction of a call, when the capture holds several
	Title   string
	Figures [][2]string
	Charts  []pageChart
}

type pageChart struct {
	Title string
	Name  string // the chart files' base name (ChartName)
	Chart charts.Chart
}

type pageFinding struct{ Severity, Text string }

type table struct {
	Head []string
	Rows [][]string
}

// verdictFindings is how many of the worst findings the verdict names.
const verdictFindings = 3

func newPage(r *report.Report) page {
	var p page
	names := ChartBases(r)
	for i := range r.Captures {
		p.Captures = append(p.Captures, newPageCapture(&r.Captures[i], names[i], r.Options.LateBudgetMS))
	}
	if r.Comparison != nil {
		p.Comparison = newComparison(r)
	}
	return p
}

// RampsChartName is the base name of the comparison's chart files.
const RampsChartName = charts.RampsID + "-" + string(charts.KindRamps)

func newComparison(r *report.Report) *pageComparison {
	pc := &pageComparison{}
	groups, of := compareGroups(r)
	files := make([]string, len(groups))
	for i, g := range groups {
		files[i] = g.file
	}
	labels, _ := captureLabels(files, compareLabelWidth)
	for i, g := range groups {
		pc.Captures = append(pc.Captures, compareCapture{File: g.file, Directions: g.dirs, Label: labels[i]})
	}
	n := make([]int, len(groups))
	for i := range r.Comparison.Entries {
		n[of[i]]++
		pc.Columns = append(pc.Columns, fmt.Sprintf("%s %d", labels[of[i]], n[of[i]]))
	}
	for _, row := range compareRows {
		cells := []string{row.head}
		for i := range r.Comparison.Entries {
			cells = append(cells, row.value(&r.Comparison.Entries[i]))
		}
		pc.Rows = append(pc.Rows, cells)
	}
	dirs := make([]*report.Direction, len(pc.Captures))
	for j, g := range groups {
		if g.capture < 0 {
			continue
		}
		c := &r.Captures[g.capture]
		// The busiest direction: on a call, its video, whichever direction the capture saw
		// first (a capture at the caller often starts with the callee's audio).
		for k := range c.Directions {
			d := &c.Directions[k]
			if len(d.Series.MediaKbps) > 0 && (dirs[j] == nil || d.MediaPayloadBytes > dirs[j].MediaPayloadBytes) {
				dirs[j] = d
			}
		}
	}
	if ch, ok := charts.Ramps(labels, dirs); ok {
		pc.Chart = &pageChart{Title: ch.Title, Name: RampsChartName, Chart: ch}
	}
	return pc
}

// RampsChart is the comparison's chart of a report with several captures, as the HTML and
// Markdown reports show it (files named RampsChartName); ok is false when there is none.
func RampsChart(r *report.Report) (c charts.Chart, ok bool) {
	if r.Comparison == nil {
		return c, false
	}
	if pc := newComparison(r).Chart; pc != nil {
		return pc.Chart, true
	}
	return c, false
}

func newPageCapture(c *report.Capture, base string, budgetMS float64) pageCapture {
	pc := pageCapture{File: c.File, Error: c.Error}
	if c.Error != "" {
		return pc
	}
	pc.Head = strings.Join(headPieces(c), ", ")
	pc.Verdict = []string{Headline(c) + "."}
	worst := slices.Clone(c.Findings)
	slices.SortStableFunc(worst, func(a, b report.Finding) int { return a.Severity.Rank() - b.Severity.Rank() })
	for _, f := range worst {
		if f.Severity != report.SeverityInfo && len(pc.Verdict) <= verdictFindings {
			pc.Verdict = append(pc.Verdict, f.Text)
		}
	}
	if len(pc.Verdict) == 1 {
		pc.Verdict = append(pc.Verdict, "No problem found.")
	}
	pc.Calls = callLines(c)
	streams := report.StreamsByID(c)
	for i := range c.Directions {
		d := &c.Directions[i]
		pd := pageDirection{Title: fmt.Sprintf("%s: %s → %s (%s)", d.ID, d.From, d.To, d.Transport), Figures: directionFigures(d, streams)}
		cs := charts.ForDirection(d, budgetMS)
		for _, ch := range cs {
			pd.Charts = append(pd.Charts, pageChart{Title: ch.Title, Name: ChartName(base, ch), Chart: ch})
		}
		pc.Charted = pc.Charted || charts.Note(cs) != ""
		pc.Directions = append(pc.Directions, pd)
	}
	pc.Directions = byCall(pc.Directions, c, pc.Calls)
	pc.Legs = legTable(c.Legs)
	pc.Streams = streamTable(c.Streams)
	pc.TCP = tcpTable(c.Flows)
	pc.Signalling = signallingLines(c)
	pc.Warnings = c.Warnings
	for _, f := range c.Findings {
		pc.Findings = append(pc.Findings, pageFinding{Severity: string(f.Severity), Text: f.Text})
	}
	return pc
}

func directionFigures(d *report.Direction, streams map[string]*report.Stream) [][2]string {
	f := [][2]string{{"goodput", optRate(d.GoodputKbps)}, {"wire", optRate(d.WireKbps)}}
	if d.Efficiency != nil {
		f = append(f, [2]string{"efficiency", fmt.Sprintf("%.0f%%", *d.Efficiency*100)})
	}
	if r := d.Ramp; r != nil {
		v := fmt.Sprintf("target %s (%s): t50 %s, t90 %s", rate(r.TargetKbps), r.TargetSource, optSeconds(r.T50S), optSeconds(r.T90S))
		if r.Stable != nil {
			v += map[bool]string{true: ", stable", false: ", unstable"}[*r.Stable]
		}
		f = append(f, [2]string{"ramp", v})
	}
	loss := "n/a"
	if d.Loss.Pct != nil {
		loss = fmt.Sprintf("%s (%s of %s)", pct(*d.Loss.Pct), thousands(d.Loss.Lost), thousands(d.Loss.Expected))
	}
	f = append(f, [2]string{"RTP loss", loss})
	if r := receiverLoss(d, streams); r != "" {
		f = append(f, [2]string{"loss reported by the receiver", r})
	}
	if n := d.Loss.DroppedBeforeTCP; n != nil && *n > 0 {
		f = append(f, [2]string{"dropped before TCP", thousands(*n)})
	}
	if d.TCPRetransmittedPct != nil {
		f = append(f, [2]string{"TCP retransmitted", pct(*d.TCPRetransmittedPct)})
	}
	if l := d.Late; l != nil {
		v := fmt.Sprintf("%s (%s) over %s", thousands(l.Packets), pct(l.Pct), exactMS(l.BudgetMS))
		if l.HOLBlocked > 0 {
			v += fmt.Sprintf(", %s behind a retransmission", thousands(l.HOLBlocked))
		}
		f = append(f, [2]string{"late packets", v})
	}
	if dl := d.DelayMS; dl != nil {
		what := "delay above baseline"
		if dl.AtSender() {
			what = senderQueueing
		}
		f = append(f, [2]string{what, fmt.Sprintf("p50 %s, p95 %s, max %s", ms(dl.P50), ms(dl.P95), ms(dl.Max))})
	}
	if r := d.Relay; r != nil {
		f = append(f, [2]string{"relay", strings.Join(relayFigures(r), "; ")})
	}
	return f
}

func optSeconds(v *float64) string {
	if v == nil {
		return "never"
	}
	return seconds(*v)
}

func optString(v *string) string {
	if v == nil {
		return "-"
	}
	return *v
}

// legTable lists the legs, which the call lines name by their ids: for a TURN leg its
// client, the TURN server, the relayed address and the peers.
func legTable(legs []report.Leg) *table {
	if len(legs) == 0 {
		return nil
	}
	t := &table{Head: []string{"leg", "transport", "client", "server", "relayed", "peers"}}
	for _, l := range legs {
		peers := "-"
		if len(l.Peers) > 0 {
			peers = strings.Join(l.Peers, ", ")
		}
		t.Rows = append(t.Rows, []string{l.ID, string(l.Transport), l.Client, l.Server, optString(l.Relayed), peers})
	}
	return t
}

// streamTable lists the streams with the figures the text report gives them; a column of
// sequence restarts only when a stream restarted.
func streamTable(streams []report.Stream) *table {
	if len(streams) == 0 {
		return nil
	}
	restarts := slices.ContainsFunc(streams, func(s report.Stream) bool { return s.Restarts > 0 })
	t := &table{Head: []string{"stream", "direction", "ssrc", "kind", "codec", "pt", "packets", "lost", "dup", "reord",
		"jitter ms (mean/max)", "late"}}
	if restarts {
		t.Head = append(t.Head, "sequence restarts")
	}
	for _, s := range streams {
		lost, jitter, late := "-", "-", "-"
		if s.Lost != nil {
			lost = thousands(*s.Lost)
		}
		if s.JitterMS != nil {
			jitter = fmt.Sprintf("%.1f/%.1f", s.JitterMS.Mean, s.JitterMS.Max)
		}
		if s.Late != nil {
			late = thousands(s.Late.Packets)
		}
		row := []string{s.ID, s.Direction, s.SSRC, s.Kind, optString(s.Codec), fmt.Sprint(s.PayloadType),
			thousands(s.Packets), lost, thousands(s.Duplicates), thousands(s.Reordered), jitter, late}
		if restarts {
			row = append(row, thousands(s.Restarts))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func tcpTable(flows []report.Flow) *table {
	t := &table{Head: []string{"flow", "direction", "vantage", "data segments", "retransmitted", "RTT p50", "HOL-delayed messages", "window stalls"}}
	for _, f := range flows {
		if f.TCP == nil {
			continue
		}
		for _, side := range []struct {
			name string
			d    *report.TCPDir
		}{{f.A + " → " + f.B, &f.TCP.AToB}, {f.B + " → " + f.A, &f.TCP.BToA}} {
			d := side.d
			if d.Segments == 0 {
				continue
			}
			rtt := "-"
			if d.RTTMS != nil {
				rtt = ms(d.RTTMS.P50)
			}
			t.Rows = append(t.Rows, []string{f.ID, side.name, string(d.Vantage), thousands(d.DataSegments),
				fmt.Sprintf("%s (%s)", bytesSI(d.RetransmittedBytes), count(d.RetransmittedSegments, "segment", "segments")),
				rtt, thousands(d.HOLDelayedMessages), thousands(d.WindowStalls.Count)})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

func signallingLines(c *report.Capture) []string {
	var out []string
	if ice := c.ICE; ice.Checks > 0 {
		s := fmt.Sprintf("ICE: %s, %s, %s", count(ice.Checks, "check", "checks"),
			count(ice.Successes, "success", "successes"), count(ice.Failures, "failure", "failures"))
		if ice.RTTMS != nil {
			s += fmt.Sprintf(", RTT p50 %s p95 %s", ms(ice.RTTMS.P50), ms(ice.RTTMS.P95))
		}
		if legs := iceLegs(&ice); legs != nil {
			s += " (" + strings.Join(legs, ", ") + ")"
		}
		out = append(out, s)
		if len(ice.Ufrags) > 0 {
			out = append(out, "ICE usernames (ufrag pairs): "+strings.Join(ice.Ufrags, ", "))
		}
		for _, n := range ice.Nominated {
			out = append(out, "ICE nominated "+n)
		}
	}
	for _, a := range c.TURN.Allocations {
		s := fmt.Sprintf("TURN allocation on %s (%s) by %s", a.Server, a.Transport, a.Client)
		if a.Relayed != nil {
			s += ", relayed " + *a.Relayed
		}
		out = append(out, s+", "+count(int64(a.Permissions), "permission", "permissions")+", "+
			count(int64(len(a.Channels)), "channel", "channels"))
	}
	refused, routine := turnErrors(c.TURN.Errors)
	if len(refused) > 0 {
		out = append(out, "TURN errors: "+strings.Join(refused, ", "))
	}
	if len(routine) > 0 {
		out = append(out, "TURN routine answers: "+strings.Join(routine, ", "))
	}
	return out
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// ChartBases returns, per capture, the base of its chart files' names: the file's name
// without directory and capture extensions, reduced to letters, digits, '-' and '_', not
// beginning with '-' ("capture" for stdin, or when nothing is left; a file name is the
// capture's, not ours), numbered when two captures would share one: the second
// of two call.pcap is call-2, or call-3 when a call-2.pcap is among them too (h141: its
// charts overwrote call-2.pcap's, and the report linked another capture's charts).
func ChartBases(r *report.Report) []string {
	natural := make([]string, len(r.Captures))
	taken := map[string]bool{}
	for i, c := range r.Captures {
		b := filepath.Base(c.File)
		for _, ext := range []string{".gz", ".zst", ".pcapng", ".pcap", ".cap"} {
			b = strings.TrimSuffix(b, ext)
		}
		// No '-' first: stdin's "-" made charts named --d1-bitrate.png, which tools
		// take for an option (h154).
		b = strings.TrimLeft(strings.Trim(unsafeName.ReplaceAllString(b, "_"), "_"), "-_")
		if b == "" {
			b = "capture"
		}
		natural[i] = b
		taken[b] = true
	}
	out := make([]string, len(r.Captures))
	used := map[string]bool{}
	for i, b := range natural {
		name := b
		for n := 2; used[name]; n++ {
			if name = fmt.Sprintf("%s-%d", b, n); taken[name] {
				name = b // another capture's own name: keep counting
			}
		}
		used[name] = true
		out[i] = name
	}
	return out
}

// ChartName is the base name of a chart's files (.svg, .png): <capture>-<direction>-<kind>.
func ChartName(base string, c charts.Chart) string {
	return base + "-" + strings.Trim(unsafeName.ReplaceAllString(c.Direction, "_"), "_") + "-" + string(c.Kind)
}

// byCall orders the directions of a capture of several calls call by call, worst call
// first (lines), each call's directions in the report's order under a heading: a TURN
// server's page reads as its calls, not as one list of directions. ds are c.Directions'
// pages, in that order.
func byCall(ds []pageDirection, c *report.Capture, lines []callLine) []pageDirection {
	if len(lines) == 0 {
		return ds
	}
	out := make([]pageDirection, 0, len(ds))
	placed := make([]bool, len(ds))
	for _, l := range lines {
		first := true
		for i := range c.Directions {
			if placed[i] || !slices.ContainsFunc(c.Directions[i].Legs, func(id string) bool { return slices.Contains(l.legIDs, id) }) {
				continue
			}
			pd := ds[i]
			if first {
				pd.Call = fmt.Sprintf("%s: %s (%s): %s", strings.ToUpper(l.Name[:1])+l.Name[1:], l.Ends, l.Legs, l.What)
				first = false
			}
			out = append(out, pd)
			placed[i] = true
		}
	}
	for i := range ds {
		if !placed[i] {
			out = append(out, ds[i])
		}
	}
	return out
}
