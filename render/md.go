package render

import (
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/callpcap/callpcap/charts"
	"github.com/callpcap/callpcap/report"
)

// Markdown writes the report for a ticket (GitHub, GitLab, Jira's Markdown): the same content
// as HTML. chartsLink is the path, relative to the Markdown file, of the directory the
// charts' PNG files are written to (see ChartName); "" writes no chart links. Every text from
// the capture goes through mdText, so Markdown syntax or raw HTML in a capture comes out as
// literal characters.
func Markdown(w io.Writer, r *report.Report, chartsLink string) error {
	m := &mdWriter{w: w}
	p := newPage(r)
	if c := p.Comparison; c != nil {
		m.comparison(c, chartsLink)
	}
	for i, c := range p.Captures {
		if i > 0 || p.Comparison != nil {
			m.line("")
		}
		m.capture(&c, chartsLink)
	}
	return m.err
}

// comparison comes first in a report of several captures: the captures' labels with their
// files and numbered directions, the figures side by side, then the ramps chart.
func (m *mdWriter) comparison(c *pageComparison, chartsLink string) {
	m.line("## Comparison")
	m.line("")
	for _, cc := range c.Captures {
		m.line("- **" + mdText(cc.Label) + "** " + mdText(cc.File))
		for i, d := range cc.Directions {
			m.line(fmt.Sprintf("  %d. %s", i+1, mdText(d)))
		}
	}
	m.line("")
	t := &table{Head: append([]string{""}, c.Columns...)}
	t.Rows = c.Rows
	m.table(t)
	if c.Chart != nil && chartsLink != "" {
		m.line("")
		m.line(fmt.Sprintf("![%s](%s)", mdText(c.Chart.Title), mdLink(chartsLink, c.Chart.Name+".png")))
	}
}

type mdWriter struct {
	w   io.Writer
	err error
}

func (m *mdWriter) line(s string) {
	if m.err == nil {
		_, m.err = io.WriteString(m.w, s+"\n")
	}
}

func (m *mdWriter) capture(c *pageCapture, chartsLink string) {
	m.line("## " + mdText(c.File))
	m.line("")
	if c.Error != "" {
		m.line("**Could not be read:** " + mdText(c.Error))
		return
	}
	m.line(mdText(c.Head))
	m.line("")
	for i, v := range c.Verdict {
		if i == 0 {
			m.line("> **" + mdText(v) + "**")
		} else {
			m.line("> - " + mdText(v))
		}
	}
	if len(c.Calls) > 0 {
		m.line("")
		m.line(fmt.Sprintf("### %d calls, worst first", len(c.Calls)))
		m.line("")
		t := &table{Head: []string{"call", "between", "legs", "what went wrong"}}
		for _, l := range c.Calls {
			name := l.Name
			if l.Severity != "" {
				name = string(l.Severity) + " " + name
			}
			t.Rows = append(t.Rows, []string{name, l.Ends, l.Legs, l.What})
		}
		m.table(t)
	}
	for _, d := range c.Directions {
		if d.Call != "" {
			m.line("")
			m.line("## " + mdText(d.Call))
		}
		m.line("")
		m.line("### " + mdText(d.Title))
		m.line("")
		t := &table{Head: []string{"figure", "value"}}
		for _, f := range d.Figures {
			t.Rows = append(t.Rows, []string{f[0], f[1]})
		}
		m.table(t)
		if chartsLink == "" {
			continue
		}
		for _, ch := range d.Charts {
			m.line("")
			m.line(fmt.Sprintf("![%s](%s)", mdText(ch.Title), mdLink(chartsLink, ch.Name+".png")))
		}
	}
	if c.Charted && chartsLink != "" {
		m.line("")
		m.line("*" + mdText(charts.Missing) + "*")
	}
	for _, s := range []struct {
		title string
		t     *table
	}{{"Legs", c.Legs}, {"Streams", c.Streams}, {"TCP", c.TCP}} {
		if s.t != nil {
			m.line("")
			m.line("### " + s.title)
			m.line("")
			m.table(s.t)
		}
	}
	m.list("ICE and TURN", c.Signalling)
	m.list("Warnings", c.Warnings)
	var findings []string
	for _, f := range c.Findings {
		findings = append(findings, "**"+f.Severity+"** "+mdText(f.Text))
	}
	if len(findings) == 0 {
		findings = []string{"none"}
	}
	m.line("")
	m.line("### Findings")
	m.line("")
	for _, f := range findings {
		m.line("- " + f)
	}
}

// list writes a titled list of capture text; nothing without items.
func (m *mdWriter) list(title string, items []string) {
	if len(items) == 0 {
		return
	}
	m.line("")
	m.line("### " + title)
	m.line("")
	for _, s := range items {
		m.line("- " + mdText(s))
	}
}

func (m *mdWriter) table(t *table) {
	row := func(cells []string) string {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = mdText(c)
		}
		return "| " + strings.Join(esc, " | ") + " |"
	}
	m.line(row(t.Head))
	m.line("|" + strings.Repeat(" --- |", len(t.Head)))
	for _, r := range t.Rows {
		m.line(row(r))
	}
}

// mdSpecial is every character Markdown (CommonMark, GitHub's tables and strike-through) may
// read as syntax or raw HTML where capture text stands; CommonMark lets any ASCII
// punctuation be escaped with a backslash, which prints it as itself. Parentheses need none:
// they make a link only after "]", which is escaped.
const mdSpecial = "\\`*_[]<>#!|~&"

// mdText makes s literal Markdown: a backslash before each special character, and line
// breaks as spaces, so that no text from a capture can start a block, a link or an HTML tag.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r < 0x80 && strings.ContainsRune(mdSpecial, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	// GitHub turns "http://…" and "www.…" in text into links: break them.
	return strings.NewReplacer("://", ":\\/\\/", "www.", "www\\.").Replace(b.String())
}

// mdLink is the link to a chart file under dir, each path segment escaped for a URL; the
// file's name is the report's own (ChartName).
func mdLink(dir, name string) string {
	var segs []string
	for _, s := range strings.Split(path.Join(strings.ReplaceAll(dir, "\\", "/"), name), "/") {
		segs = append(segs, url.PathEscape(s))
	}
	return strings.Join(segs, "/")
}
