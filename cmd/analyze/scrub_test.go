package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/report"
)

// jsonReport runs analyze --format json on file and returns its one capture, without the
// file's name.
func jsonReport(t *testing.T, file string) report.Capture {
	t.Helper()
	code, out, errs := runCmd(t, "", "--format", "json", "-q", file)
	if code != 0 {
		t.Fatalf("analyze %s: exit %d: %s", file, code, errs)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	c := rep.Captures[0]
	c.File = ""
	return c
}

// TestScrubCommand: `analyze scrub -o OUT.gz FILE` writes a gzip'd copy whose report is the
// original's (both gzip: only the name differs), with a one-line summary; standard input
// to standard output works alike; the input is never overwritten; an unreadable input is
// one line and exit 1; a usage error exit 2.
func TestScrubCommand(t *testing.T) {
	in := filepath.Join(testdata, "turn-tcp-call.pcap.gz")
	dir := t.TempDir()
	out := filepath.Join(dir, "scrubbed.pcap.gz")
	code, stdout, stderr := runCmd(t, "", "scrub", "-o", out, in)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The call's 6,000 RTP payloads (audio 80 and video 1100 bytes each way, 1,000 and 2,000
	// packets): every 20 ms a write of two video and one audio message, three segments of
	// at most 1200 bytes, so 3,000 segments each way, and the 20 copies of the client's
	// segments lost after the capture point (one in 150).
	wantLine := "analyze scrub: " + in + ": 12031 packets; zeroed 4583360 bytes: 6000 RTP payloads, 0 DTLS application data records" +
		" (0 TCP bytes between messages); checksums 0 cleared, 6020 recomputed, 0 left stale (snapped); 0 fragmented datagrams kept\n"
	if stderr != wantLine {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantLine)
	}
	if diff := cmp.Diff(jsonReport(t, in), jsonReport(t, out)); diff != "" {
		t.Errorf("report differs (-original +scrubbed):\n%s", diff)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("output: %v, %v", st, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}

	// Standard input to standard output, uncompressed.
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runCmd(t, string(data), "scrub", "-q", "-")
	if code != 0 || !strings.HasPrefix(stdout, "\xd4\xc3\xb2\xa1") { // little-endian µs pcap
		t.Fatalf("stdin: exit %d, %d bytes starting %q", code, len(stdout), stdout[:min(4, len(stdout))])
	}
	plain := filepath.Join(dir, "plain.pcap")
	if err := os.WriteFile(plain, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	orig, scrubbed := jsonReport(t, in), jsonReport(t, plain)
	orig.Compression = "none"
	if diff := cmp.Diff(orig, scrubbed); diff != "" {
		t.Errorf("report of the copy from stdin differs (-original +scrubbed):\n%s", diff)
	}

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"input as output", []string{"scrub", "-o", plain, plain}, 2, "refusing to overwrite a capture with its scrubbed copy"},
		{"no file", []string{"scrub"}, 2, "want one capture file, got 0"},
		{"two files", []string{"scrub", in, in}, 2, "want one capture file, got 2"},
		{"bad flag", []string{"scrub", "--charts", "x", in}, 2, "unknown flag"},
		{"not a capture", []string{"scrub", "-o", filepath.Join(dir, "x.pcap"), filepath.Join("..", "..", "README.md")}, 1, "not a capture"},
		{"missing", []string{"scrub", "-o", filepath.Join(dir, "x.pcap"), filepath.Join(dir, "nope.pcap")}, 1, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, "", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.contains) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.contains)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; tc.code == 1 && lines != 1 {
				t.Errorf("%d lines on stderr, want one", lines)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "x.pcap")); err == nil {
		t.Error("a failed scrub left its output")
	}
}
