package render

import (
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/callpcap/callpcap/charts"
	"github.com/callpcap/callpcap/report"
)

// HTML writes the report as one self-contained page: inline CSS and SVG charts, no script,
// and nothing fetched from anywhere, so that it opens in any browser, attaches to a ticket
// and prints. Per capture: the verdict, then per call direction its figures and charts, then
// the streams, TCP, ICE and TURN, warnings and findings. With several captures the
// comparison comes first: the figures side by side and the captures' ramps on one chart.
// html/template escapes every text from the capture (addresses, codec names, file names,
// findings) for where it stands; the charts are the report's own SVG, whose text
// charts.Chart.SVG escapes.
func HTML(w io.Writer, r *report.Report) error {
	return htmlPage().Execute(w, newPage(r))
}

// htmlPage is parsed on first use, not when the program starts: parsing it took 0.6 ms
// (968 allocations) of every run's start, most of which write no HTML.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"svg": func(c charts.Chart) (template.HTML, error) {
			var b strings.Builder
			if err := c.SVG(&b); err != nil {
				return "", err
			}
			return template.HTML(b.String()), nil // #nosec: the report's own drawing, its text escaped
		},
		"missing": func() string { return charts.Missing },
		"inc":     func(i int) int { return i + 1 },
	}).Parse(htmlTemplate))
})

const htmlTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>callpcap report{{range .Captures}}: {{.File}}{{end}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #222; max-width: 60em; margin: 1.5em auto; padding: 0 1em; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 1.6em; }
h2.call { font-size: 1.35em; border-bottom: 2px solid #2a6fb0; margin-top: 2.2em; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
.head { color: #555; margin-top: 0; }
.verdict { border-left: 4px solid #1f77b4; background: #f4f8fb; padding: 0.5em 1em; }
.verdict p { margin: 0.3em 0; }
.verdict p:first-child { font-weight: 600; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.92em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th.center { text-align: center; }
figure { margin: 0.8em 0; page-break-inside: avoid; break-inside: avoid; }
figure svg { width: 100%; max-width: 800px; height: auto; display: block; }
figcaption { color: #555; font-size: 0.9em; }
.bad { color: #b00020; font-weight: 600; }
.warn { color: #9a5b00; font-weight: 600; }
.info { color: #555; }
.note { color: #666; font-size: 0.9em; }
@media print { body { max-width: none; margin: 0; font-size: 11pt; } h2 { page-break-after: avoid; break-after: avoid; } }
</style>
</head>
<body>
{{with .Comparison}}<section>
<h1>Comparison</h1>
<table>
<tr><th>capture</th><th>file</th><th>directions</th></tr>{{range .Captures}}
<tr><th>{{.Label}}</th><td>{{.File}}</td><td>{{range $i, $d := .Directions}}{{if $i}}<br>{{end}}{{inc $i}}: {{$d}}{{end}}</td></tr>{{end}}
</table>
<table>
<tr><th rowspan="2"></th>{{range .Captures}}<th colspan="{{len .Directions}}" class="center">{{.Label}}</th>{{end}}</tr>
<tr>{{range .Captures}}{{range $i, $d := .Directions}}<th class="center">{{inc $i}}</th>{{end}}{{end}}</tr>{{range .Rows}}
<tr>{{range $i, $c := .}}{{if $i}}<td class="num">{{$c}}</td>{{else}}<th>{{$c}}</th>{{end}}{{end}}</tr>{{end}}
</table>{{with .Chart}}
<figure>
{{svg .Chart}}
<figcaption>{{.Title}}</figcaption>
</figure>{{end}}
</section>
{{end}}{{range .Captures}}<section>
<h1>{{.File}}</h1>
{{if .Error}}<p class="bad">Could not be read: {{.Error}}</p>
{{else}}<p class="head">{{.Head}}</p>
<div class="verdict">{{range .Verdict}}
<p>{{.}}</p>{{end}}
</div>
{{with .Calls}}<h2>{{len .}} calls, worst first</h2>
<table>
<tr><th>call</th><th>between</th><th>legs</th><th>what went wrong</th></tr>{{range .}}
<tr><td>{{with .Severity}}<span class="{{.}}">{{.}}</span> {{end}}{{.Name}}</td><td>{{.Ends}}</td><td>{{.Legs}}</td><td>{{.What}}</td></tr>{{end}}
</table>
{{end}}{{range .Directions}}{{with .Call}}
<h2 class="call">{{.}}</h2>{{end}}
<h2>{{.Title}}</h2>
<table>{{range .Figures}}
<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}
</table>{{range .Charts}}
<figure>
{{svg .Chart}}
<figcaption>{{.Title}}</figcaption>
</figure>{{end}}
{{end}}{{if .Charted}}<p class="note">{{missing}}</p>
{{end}}{{with .Legs}}<h2>Legs</h2>
{{template "table" .}}{{end}}{{with .Streams}}<h2>Streams</h2>
{{template "table" .}}{{end}}{{with .TCP}}<h2>TCP</h2>
{{template "table" .}}{{end}}{{with .Signalling}}<h2>ICE and TURN</h2>
<ul>{{range .}}
<li>{{.}}</li>{{end}}
</ul>
{{end}}{{with .Warnings}}<h2>Warnings</h2>
<ul>{{range .}}
<li>{{.}}</li>{{end}}
</ul>
{{end}}<h2>Findings</h2>
{{if .Findings}}<ul>{{range .Findings}}
<li><span class="{{.Severity}}">{{.Severity}}</span> {{.Text}}</li>{{end}}
</ul>{{else}}<p>None.</p>{{end}}
{{end}}</section>
{{end}}</body>
</html>
{{define "table"}}<table>
<tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>{{range .Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}
</table>
{{end}}`
