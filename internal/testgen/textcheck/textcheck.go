// Package textcheck holds text reports to the width DESIGN gives them, in tests.
package textcheck

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Columns is the widest line of the text report (DESIGN, Text report: 100 columns at most).
const Columns = 100

// Width fails t for every line of text wider than Columns.
func Width(t testing.TB, text string) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(line); n > Columns {
			t.Errorf("text line %d is %d columns wide: %q", i+1, n, line)
		}
	}
}
