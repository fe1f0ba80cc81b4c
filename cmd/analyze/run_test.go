package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/corpus"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/report"
)

// testdata holds the repository's example captures.
var testdata = filepath.Join("..", "..", "testdata")

// inputs are the edge cases the command must handle, synthesized by the project's writers
// in a temporary directory.
type inputs struct {
	empty      string // a pcap with its header and no packet
	emptyNG    string // a pcapng with a section header, one interface and no packet
	zero       string // a zero-byte file
	notCapture string // text
}

func writeInputs(t *testing.T) inputs {
	t.Helper()
	dir := t.TempDir()
	in := inputs{
		empty:      filepath.Join(dir, "empty.pcap"),
		emptyNG:    filepath.Join(dir, "empty.pcapng"),
		zero:       filepath.Join(dir, "zero.pcap"),
		notCapture: filepath.Join(dir, "notes.txt"),
	}
	for path, data := range map[string][]byte{
		in.empty:      pcapgen.EmptyPcap(),
		in.emptyNG:    pcapgen.EmptyPcapNG(),
		in.zero:       nil,
		in.notCapture: []byte("this is not a capture, just some text\n"),
	} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// runCmd runs the command as main does and returns the exit code, stdout and stderr. A JSON
// report on stdout is checked against the contract, report/schema.json.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	code := exitCode(err, &errb)
	if strings.HasPrefix(out.String(), "{") {
		schematest.Check(t, out.Bytes())
	}
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	in := writeInputs(t)
	dir, empty, notCapture, zero := t.TempDir(), in.empty, in.notCapture, in.zero
	cases := []struct {
		name       string
		args       []string
		code       int
		stderrHas  string
		stdoutHas  string
		stderrLine bool // stderr is exactly one line
	}{
		{"no file", nil, 2, "no capture file", "", false},
		{"unknown flag", []string{"--bogus", empty}, 2, "unknown flag", "", false},
		{"bad late budget", []string{"--late-budget", "-3ms", empty}, 2, "late-budget", "", false},
		{"bad ramp target", []string{"--ramp-target", "fast", empty}, 2, "ramp-target", "", false},
		{"bad format", []string{"--format", "pdf", empty}, 2, "format", "", false},
		{"bad decode-as", []string{"--decode-as", "rtp=0", empty}, 2, "decode-as", "", false},
		{"not a capture", []string{notCapture}, 1, "notes.txt", "", true},
		{"zero bytes", []string{zero}, 1, "zero.pcap", "", true},
		{"missing file", []string{filepath.Join(dir, "nope.pcap")}, 1, "nope.pcap", "", true},
		{"zero bytes on stdin", []string{"-"}, 1, "-: ", "", true},
		{"empty capture", []string{empty}, 0, "", "No RTP media found", false},
		{"empty pcapng", []string{in.emptyNG}, 0, "", "No RTP media found", false},
		{"flags after files", []string{empty, "--format", "json", "-q"}, 0, "", `"schema": "callpcap.report/v1"`, false},
		{"version", []string{"--version"}, 0, "", "0.1.0", false},
		{"one bad of two", []string{notCapture, empty}, 1, "notes.txt", "empty.pcap", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.stderrHas) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderrHas)
			}
			if !strings.Contains(stdout, tc.stdoutHas) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdoutHas, stdout)
			}
			if tc.stderrLine && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", stderr)
			}
		})
	}
}

// TestJSONForUnreadableOnly: the JSON is written even when the only file failed.
func TestJSONForUnreadableOnly(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.pcap")
	os.WriteFile(f, []byte("garbage garbage garbage garbage"), 0o644)
	code, stdout, _ := runCmd(t, "", "--format", "json", f)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if len(r.Captures) != 1 || r.Captures[0].File != f || r.Captures[0].Error == "" {
		t.Errorf("captures = %+v, want one entry with an error", r.Captures)
	}
	// The entry is {"file", "error"} alone: no figure was measured.
	var raw struct{ Captures []map[string]any }
	json.Unmarshal([]byte(stdout), &raw)
	if len(raw.Captures) != 1 || len(raw.Captures[0]) != 2 {
		t.Errorf("entry %v, want only file and error", raw.Captures)
	}
}

// TestStdinAndOutputFile reads captures from standard input and writes JSON to -o: a
// header-only pcapng is a report of nothing, and a gzip-compressed call gives the report
// the same file gives by name.
func TestStdinAndOutputFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	readOut := func(t *testing.T) report.Report {
		t.Helper()
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		schematest.Check(t, b)
		var r report.Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("-o r.json is not JSON: %v", err)
		}
		return r
	}
	t.Run("empty pcapng", func(t *testing.T) {
		code, stdout, stderr := runCmd(t, string(pcapgen.EmptyPcapNG()), "-", "-o", out)
		if code != 0 || stdout != "" {
			t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
		}
		r := readOut(t)
		if len(r.Captures) != 1 || r.Captures[0].File != "-" || r.Captures[0].Format != "pcapng" || r.Captures[0].Packets != 0 {
			t.Errorf("want one empty pcapng capture named -, got %+v", r.Captures)
		}
	})
	t.Run("gzip call", func(t *testing.T) {
		name := filepath.Join(testdata, "turn-udp-call.pcap.gz")
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCmd(t, string(data), "-", "-o", out, "-q")
		if code != 0 || stdout != "" {
			t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
		}
		got := readOut(t)
		code, byName, stderr := runCmd(t, "", name, "--format", "json", "-q")
		if code != 0 {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
		var want report.Report
		if err := json.Unmarshal([]byte(byName), &want); err != nil {
			t.Fatal(err)
		}
		want.Captures[0].File = "-"
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("the report from stdin differs from the file's (-file +stdin):\n%s", d)
		}
	})
}

// TestStdinAndOutputFileCorpus reads a real capture from standard input and writes JSON to -o.
func TestStdinAndOutputFileCorpus(t *testing.T) {
	data, err := os.ReadFile(corpus.Path(t, "g711a.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCmd(t, string(data), "-", "-o", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	b, _ := os.ReadFile(out)
	schematest.Check(t, b)
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("-o r.json is not JSON: %v", err)
	}
	if len(r.Captures) != 1 || len(r.Captures[0].Streams) != 1 || r.Captures[0].Streams[0].Packets != 236 {
		t.Errorf("want one 236-packet stream, got %+v", r.Captures)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"2500kbps": 2500, "2.5Mbps": 2500, "2500k": 2500, "64000": 64, "1Gbps": 1e6,
		"2.5Mbit/s": 2500, "800kb/s": 800} {
		got, err := parseRate(in)
		if err != nil || got != want {
			t.Errorf("parseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	// "2500" without a unit is 2.5 kbps: meant as kbps, refused; a byte rate is no bitrate;
	// NaN was taken and ignored, and rates below any media's with a unit shown as 0 kbps (h141).
	for _, in := range []string{"", "fast", "-5kbps", "0", "2500", "1MB/s", "1MBps", "300KB", "100B/s",
		"NaNkbps", "NaN", "1e-9kbps", "500bps"} {
		if _, err := parseRate(in); err == nil {
			t.Errorf("parseRate(%q) succeeded", in)
		}
	}
	if _, err := parseRate("500bps"); err == nil || strings.Contains(err.Error(), "without a unit") {
		t.Errorf("parseRate(500bps): %v, want a rate below any media's, not a missing unit", err)
	}
}

// TestComparisonWithAnUnreadableFile: given two files of which one cannot be read, the
// comparison is there (DESIGN: "with several files"), its entries the readable file's
// directions, one each; the exit code says a file failed. Before, it was null, as for one
// file given.
func TestComparisonWithAnUnreadableFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "x.pcap")
	os.WriteFile(bad, []byte("garbage garbage garbage garbage"), 0o644)
	good := filepath.Join("..", "..", "testdata", "turn-udp-call.pcap.gz")
	code, stdout, _ := runCmd(t, "", "--format", "json", good, bad)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("stdout is not JSON: %v", err)
	}
	if len(r.Captures) != 2 || r.Comparison == nil || len(r.Comparison.Entries) != len(r.Captures[0].Directions) ||
		len(r.Comparison.Entries) == 0 {
		t.Fatalf("comparison %+v of %d captures, want the readable file's directions", r.Comparison, len(r.Captures))
	}
	for _, e := range r.Comparison.Entries {
		if e.File != good {
			t.Errorf("entry of %s, want %s", e.File, good)
		}
	}
}
