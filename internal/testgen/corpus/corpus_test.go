package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder stands in for a test to see whether Dir skips or fails; unlike the real ones, its
// Skip and Fatal return.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...) }

// TestMissingCorpus: without the shared folder a corpus test skips, saying why, except
// under CI=true, where it fails.
func TestMissingCorpus(t *testing.T) {
	alone := t.TempDir() // a checkout with nothing beside it
	repo := filepath.Join(alone, "repo")
	if err := os.MkdirAll(filepath.Join(repo, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(repo, "pkg"))
	if _, ok := Lookup(); ok {
		t.Fatal("Lookup found a corpus that is not there")
	}
	for _, ci := range []string{"", "false", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			r := &recorder{TB: t}
			Dir(r)
			if ci == "true" {
				if r.failed == "" || r.skipped != "" {
					t.Errorf("failed %q skipped %q; want a failure", r.failed, r.skipped)
				}
			} else if r.skipped == "" || r.failed != "" {
				t.Errorf("failed %q skipped %q; want a skip", r.failed, r.skipped)
			}
			if msg := r.failed + r.skipped; !strings.Contains(msg, "shared corpus") {
				t.Errorf("message %q does not say the shared corpus is needed", msg)
			}
		})
	}
	// Beside the checkout, it is found.
	if err := os.MkdirAll(filepath.Join(alone, "shared", "corpus"), 0o755); err != nil {
		t.Fatal(err)
	}
	if dir, ok := Lookup(); !ok || dir != filepath.Join(alone, "shared", "corpus") {
		t.Errorf("Lookup = %q, %v; want the shared corpus beside the checkout", dir, ok)
	}
}
