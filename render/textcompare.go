package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/callpcap/callpcap/report"
)

// compareRows are the figures the comparison sets side by side, one row each.
var compareRows = []struct {
	head  string
	value func(e *report.ComparisonEntry) string
}{
	{"transport", func(e *report.ComparisonEntry) string { return string(e.Transport) }},
	{"goodput", func(e *report.ComparisonEntry) string { return opt(e.GoodputKbps, rate) }},
	{"wire rate", func(e *report.ComparisonEntry) string { return opt(e.WireKbps, rate) }},
	{"efficiency", func(e *report.ComparisonEntry) string {
		return opt(e.Efficiency, func(v float64) string { return fmt.Sprintf("%.0f%%", v*100) })
	}},
	{"ramp t50/t90", func(e *report.ComparisonEntry) string {
		if e.T50S == nil && e.T90S == nil {
			return "-"
		}
		return opt(e.T50S, seconds) + "/" + opt(e.T90S, seconds)
	}},
	{"stable", func(e *report.ComparisonEntry) string {
		switch {
		case e.Stable == nil:
			return "-"
		case *e.Stable:
			return "yes"
		}
		return "no"
	}},
	{"RTP loss", func(e *report.ComparisonEntry) string { return opt(e.RTPLossPct, pct) }},
	{"TCP retransmitted", func(e *report.ComparisonEntry) string { return opt(e.TCPRetransmittedPct, pct) }},
	{"late packets", func(e *report.ComparisonEntry) string {
		if e.LatePackets == nil || e.LatePct == nil {
			return "-"
		}
		return fmt.Sprintf("%s (%s)", thousands(*e.LatePackets), pct(*e.LatePct))
	}},
	{"delay p95", func(e *report.ComparisonEntry) string { return opt(e.DelayP95MS, ms) }},
}

// opt formats a figure that may not have been measured; "-" in a table cell, as "n/a"
// would be as wide as a figure.
func opt(p *float64, f func(float64) string) string {
	if p == nil {
		return "-"
	}
	return f(*p)
}

// compareGroup is one capture's entries in a comparison: its file and its directions.
type compareGroup struct {
	file    string
	dirs    []string
	capture int // its index in the report's captures; -1 when grouped by runs
}

// compareGroups returns the captures of r's comparison, in order, and the group of each
// entry: each capture's directions are its entries, one after another (analysis.Compare).
// By file alone, a file given twice was one capture whose columns took the other's place
// (h141), and given twice in a row, one capture of both's directions (h143). A comparison
// whose entries do not follow the captures (built by hand) is grouped by runs of one file.
func compareGroups(r *report.Report) (groups []compareGroup, of []int) {
	c := r.Comparison
	for ci, capt := range r.Captures {
		if n := len(capt.Directions); n > 0 {
			k := len(of)
			if k+n > len(c.Entries) || c.Entries[k].File != capt.File {
				break
			}
			g := compareGroup{file: capt.File, capture: ci}
			for _, e := range c.Entries[k : k+n] {
				g.dirs = append(g.dirs, e.Direction)
				of = append(of, len(groups))
			}
			groups = append(groups, g)
		}
	}
	if len(of) == len(c.Entries) {
		return groups, of
	}
	groups, of = nil, nil
	for i, e := range c.Entries {
		if i == 0 || e.File != c.Entries[i-1].File {
			groups = append(groups, compareGroup{file: e.File, capture: -1})
		}
		g := &groups[len(groups)-1]
		g.dirs = append(g.dirs, e.Direction)
		of = append(of, len(groups)-1)
	}
	return groups, of
}

// compareLabelWidth is the widest capture label taken from the file names; a wider one
// falls back to the captures' index letters.
const compareLabelWidth = 12

// comparison writes one column per capture and direction, the figures as rows: a row reads
// across the captures, which is what a comparison is for, and the number of captures only
// adds tables of columns (each fitting textWidth), never width. Columns are labelled by the
// part of the file names that differs (or an index letter), and a legend names each
// capture's file and directions in full, as neither fits a column.
func (t *textWriter) comparison(r *report.Report) {
	c := r.Comparison
	t.line("Comparison")
	groups, of := compareGroups(r)
	if len(groups) == 0 {
		t.line("  nothing to compare: no capture has media")
		return
	}
	files := make([]string, len(groups))
	for i, g := range groups {
		files[i] = g.file
	}
	labels, _ := captureLabels(files, compareLabelWidth)
	labelW := 0
	for _, l := range labels {
		labelW = max(labelW, utf8.RuneCountInString(l))
	}
	for gi, g := range groups {
		t.line("  %-*s  %s", labelW, labels[gi], fitLeft(g.file, textWidth-4-labelW))
		for i, d := range g.dirs {
			lead := fmt.Sprintf("  %-*s    %d  ", labelW, "", i+1)
			from, to, ok := strings.Cut(d, " -> ")
			if ok && utf8.RuneCountInString(lead+d) > textWidth {
				// Two IPv6 endpoints are wider than the page: one per line.
				t.line("%s%s ->", lead, from)
				t.line("%s   %s", strings.Repeat(" ", len(lead)), to)
				continue
			}
			t.line("%s%s", lead, d)
		}
	}

	headW := len("direction")
	for _, r := range compareRows {
		headW = max(headW, len(r.head))
	}
	cells := make([][]string, len(c.Entries)) // per column: capture, direction, then the rows
	colW := 0
	n := make([]int, len(groups))
	for i := range c.Entries {
		e := &c.Entries[i]
		n[of[i]]++
		col := []string{labels[of[i]], fmt.Sprint(n[of[i]])}
		for _, r := range compareRows {
			col = append(col, r.value(e))
		}
		for _, v := range col {
			colW = max(colW, utf8.RuneCountInString(v))
		}
		cells[i] = col
	}
	const gap = 2
	perTable := max(1, (textWidth-2-headW)/(gap+colW))
	heads := append([]string{"capture", "direction"}, make([]string, len(compareRows))...)
	for i, r := range compareRows {
		heads[2+i] = r.head
	}
	for start := 0; start < len(cells); start += perTable {
		t.line("")
		cols := cells[start:min(start+perTable, len(cells))]
		for row, head := range heads {
			var b strings.Builder
			fmt.Fprintf(&b, "  %-*s", headW, head)
			for _, col := range cols {
				v := col[row]
				b.WriteString(strings.Repeat(" ", gap+colW-utf8.RuneCountInString(v)))
				b.WriteString(v)
			}
			t.line("%s", b.String())
		}
	}
}

// fitLeft cuts a name from the left to width runes, marking the cut with "…": in the legend,
// beside its label, the end of a file name is the part that tells it.
func fitLeft(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return "…" + string(r[len(r)-width+1:])
}
