// Package render presents a report.Report as text for a terminal or as JSON for scripts. It
// reads the report model only, never the capture, so a report built by hand or read back
// from JSON renders the same way.
package render
