// Package golden holds the -update flag of every test binary in the module and compares
// output with golden files (STYLE: testdata/<case>.golden.*, rewritten with -update, diffed
// with cmp.Diff).
//
// The flag is defined here, once, because `go test ./... -update` passes -update to every
// package's test binary and a binary that does not define it fails. A package whose tests
// rewrite nothing imports this package for its flag alone:
//
//	import _ "github.com/callpcap/callpcap/internal/testgen/golden" // go test ./... -update
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update is -update: rewrite golden files (and fuzz seed corpora) instead of comparing.
var Update = flag.Bool("update", false, "rewrite golden files")

// Check compares got with the golden file at path; with -update it writes got there first.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, d)
	}
}

// FuzzSeed returns a file of a fuzz target's seed corpus (testdata/fuzz/<target>/<name>)
// holding args, in the format go test reads: "go test fuzz v1", then one line per argument.
// Seed writers pass it to Check, so that the committed seeds are checked against the code
// that makes them, and rewritten with -update.
func FuzzSeed(args ...any) []byte {
	var b bytes.Buffer
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case string:
			fmt.Fprintf(&b, "string(%q)\n", v)
		default:
			fmt.Fprintf(&b, "%T(%v)\n", v, v)
		}
	}
	return b.Bytes()
}
