package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/callpcap/callpcap/internal/testgen/golden"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/internal/testgen/textcheck"
)

// TestGoldenReports runs the command, as main does, on every capture in the repository's
// testdata/ and compares its text and JSON reports with testdata/<case>.golden.txt and
// .golden.json (go test ./... -update rewrites them), and checks the JSON against the contract. It runs from the repository's root,
// so that the reports name the files as the README's commands do.
func TestGoldenReports(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	captures, err := filepath.Glob(filepath.Join("testdata", "*.pcap*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(captures) == 0 {
		t.Fatal("no captures in testdata/")
	}
	for _, path := range captures {
		name := filepath.Base(path)
		base := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst")
		base = strings.TrimSuffix(strings.TrimSuffix(base, ".pcapng"), ".pcap")
		t.Run(base, func(t *testing.T) {
			for _, format := range []struct{ name, ext string }{{"text", "txt"}, {"json", "json"}} {
				code, stdout, stderr := runCmd(t, "", "--format", format.name, path)
				if code != 0 {
					t.Fatalf("--format %s: exit %d, stderr %q", format.name, code, stderr)
				}
				golden.Check(t, filepath.Join("testdata", base+".golden."+format.ext), []byte(stdout))
				if format.name == "json" {
					schematest.Check(t, []byte(stdout))
				}
				if format.name == "text" {
					textcheck.Width(t, stdout)
				}
			}
		})
	}
}

// TestREADMEExample: the report the README shows is the golden one of its capture.
func TestREADMEExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join("..", "..", "testdata", "turn-tcp-call.golden.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```\n"+string(report)+"```\n") {
		t.Error("README.md does not show testdata/turn-tcp-call.golden.txt as the report of turn-tcp-call.pcap.gz")
	}
}
