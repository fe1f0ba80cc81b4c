// Package render presents a report.Report as text for a terminal, as JSON for scripts, and
// as a self-contained HTML page or Markdown for a ticket, with the charts of package charts.
// It reads the report model only, never the capture, so a report built by hand or read back
// from JSON renders the same way.
package render
