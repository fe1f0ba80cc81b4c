package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/callpcap/callpcap/report"
)

// streamLayout is the stream table's usual layout, which holds the figures of a long call:
// the slash of a row's jitter stands under the head's, so that each figure stands under its
// name.
const streamLayout = "  %-6s %-10s  %-7s %3s  %9s  %6s  %4s  %5s  %-21s %5s"

// streamRight says which of the table's columns are figures, aligned right.
var streamRight = []bool{false, false, false, true, true, true, true, true, false, true}

// streamTable writes a direction's streams, one row each, under a head. A table whose
// figures would take a row of the usual layout past textWidth (tens of millions of packets,
// a jitter of seconds) is set in columns as wide as their widest cell, one space apart.
func (t *textWriter) streamTable(d *report.Direction, streams map[string]*report.Stream) {
	rows := [][]string{{"stream", "ssrc", "kind", "pt", "packets", "lost", "dup", "reord", "jitter ms mean/max", "late"}}
	var restarts []int64 // of each row but the head
	for _, id := range d.Streams {
		s := streams[id]
		if s == nil {
			continue
		}
		lost := "-"
		if s.Lost != nil {
			lost = thousands(*s.Lost)
		}
		jitter := fmt.Sprintf("%14s", "-")
		if s.JitterMS != nil {
			jitter = fmt.Sprintf("%14.1f/%.1f", s.JitterMS.Mean, s.JitterMS.Max)
		}
		late := "-"
		if s.Late != nil {
			late = thousands(s.Late.Packets)
		}
		kind := s.Kind
		if s.RTXOf != nil {
			kind = "rtx"
		}
		rows = append(rows, []string{s.ID, s.SSRC, kind, strconv.Itoa(s.PayloadType), thousands(s.Packets), lost,
			thousands(s.Duplicates), thousands(s.Reordered), jitter, late})
		restarts = append(restarts, s.Restarts)
	}
	lines := make([]string, len(rows))
	compact := false
	for i, r := range rows {
		cells := make([]any, len(r))
		for j := range r {
			cells[j] = r[j]
		}
		lines[i] = strings.TrimRight(fmt.Sprintf(streamLayout, cells...), " ")
		compact = compact || utf8.RuneCountInString(lines[i]) > textWidth
	}
	if compact {
		lines = compactTable(rows)
	}
	for i, l := range lines {
		t.line("%s", l)
		if i > 0 && restarts[i-1] > 0 {
			// Beside the sequence errors, since without it a restart reads as loss or
			// duplicates; a line of its own, as few streams have one.
			t.line("  %-6s restarted its sequence numbers %s (not counted as loss or duplicates)",
				"", count(restarts[i-1], "time", "times"))
		}
	}
}

// compactTable sets rows in columns as wide as their widest cell, one space apart, figures
// aligned right (streamRight).
func compactTable(rows [][]string) []string {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, c := range r {
			widths[j] = max(widths[j], utf8.RuneCountInString(strings.TrimSpace(c)))
		}
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		var b strings.Builder
		b.WriteString(" ")
		for j, c := range r {
			c = strings.TrimSpace(c)
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c))
			b.WriteString(" ")
			if streamRight[j] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		lines[i] = strings.TrimRight(b.String(), " ")
	}
	return lines
}
