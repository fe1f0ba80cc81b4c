// Package report is the report model: plain types that are the JSON contract of
// `analyze --format json` (schema callpcap.report/v1, see DESIGN.md). Everything that
// renders a report imports this package and nothing of the pipeline, so a report built by
// hand, or read back from JSON, renders the same way.
//
// A figure that cannot be measured is a nil pointer (JSON null), never 0. A list is [] when
// empty, never null: the encoding (Report's and Capture's MarshalJSON) writes every nil
// slice or map of the model as an empty one, so code that builds a report need not.
package report
