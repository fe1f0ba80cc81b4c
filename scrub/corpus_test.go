package scrub

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/analysis"
	"github.com/callpcap/callpcap/internal/testgen/corpus"
)

// TestCorpus scrubs every capture of the shared corpus: the analysis must report the same
// of the copy as of the original (the file's name and compression aside: the copy is
// uncompressed), with the same records; an input the analysis cannot read, scrub refuses.
func TestCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range files {
		if fi.IsDir() || filepath.Ext(fi.Name()) == ".md" {
			continue
		}
		t.Run(fi.Name(), func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(dir, fi.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := analysis.Analyze(t.Context(), fi.Name(), bytes.NewReader(in), analysis.Options{}); err != nil {
				if _, err := Scrub(t.Context(), fi.Name(), opener(in), io.Discard); !errors.Is(err, analysis.ErrUnreadable) {
					t.Errorf("unreadable input: Scrub err = %v, want ErrUnreadable", err)
				}
				return
			}
			out, _ := scrubBytes(t, in)
			if diff := cmp.Diff(analyze(t, in), analyze(t, out)); diff != "" {
				t.Errorf("report of the scrubbed copy differs (-original +scrubbed):\n%s", diff)
			}
			ri, erri := records(in)
			ro, erro := records(out)
			if diff := cmp.Diff(ri, ro); diff != "" || (erri == nil) != (erro == nil) {
				t.Errorf("records differ (-input +output):\n%s\nerrors %v, %v", diff, erri, erro)
			}
		})
	}
}
