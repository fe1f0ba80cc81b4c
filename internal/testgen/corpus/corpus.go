// Package corpus finds the shared folder of real captures written by others (its MANIFEST.md
// says what each file holds) for the tests that need them. The folder is not part of the
// repository: it sits beside the checkout, as shared/corpus next to the directory holding
// go.mod.
//
// Outside CI a test that needs it skips, saying so; with CI=true in the environment a
// missing corpus fails the test, so that CI never passes by skipping. Every other test
// synthesizes its captures (internal/testgen/pcapgen, internal/testgen/callgen) and runs
// anywhere.
package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Lookup returns the shared corpus directory and whether it exists, for a test that uses the
// corpus only when it is at hand (a fuzz target's extra seeds). Tests that need the corpus
// call Dir or Path.
func Lookup() (string, bool) {
	dir, err := sharedPath("corpus")
	if err != nil {
		return "", false
	}
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// Dir returns the shared corpus directory. Without it, the test skips, or fails under
// CI=true.
func Dir(t testing.TB) string {
	t.Helper()
	dir, ok := Lookup()
	if !ok {
		missing(t, "the shared corpus of real captures", "corpus")
	}
	return dir
}

// Path returns the path of a file of the corpus (see Dir). A corpus present without that
// file fails the test.
func Path(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Dir(t), name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("corpus file %s: %v", name, err)
	}
	return p
}

// Shared returns the path of a file of the shared folder beside the checkout, such as
// DESIGN.md. Without it, the test skips, or fails under CI=true.
func Shared(t testing.TB, name string) string {
	t.Helper()
	p, err := sharedPath(name)
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		missing(t, "the shared folder's "+name, name)
	}
	return p
}

// InCI reports whether the tests run in CI, where a missing corpus is a failure.
func InCI() bool { return os.Getenv("CI") == "true" }

func missing(t testing.TB, what, name string) {
	t.Helper()
	msg := fmt.Sprintf("needs %s: ../shared/%s beside the checkout was not found", what, name)
	if InCI() {
		t.Fatal(msg + " (CI=true: without the shared folder the tests fail)")
		return
	}
	t.Skip(msg + " (skipped outside CI)")
}

// sharedPath returns where name is in the shared folder: ../shared/name from the module
// root, found from the working directory (go test runs in the package's directory).
func sharedPath(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", name), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
