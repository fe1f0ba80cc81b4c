package render

import (
	"encoding/json"
	"io"

	"github.com/callpcap/callpcap/report"
)

// JSON writes the report as one indented JSON object followed by a newline.
func JSON(w io.Writer, r *report.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
