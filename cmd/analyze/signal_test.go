//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/report"
)

// buildAnalyze builds the command into a temporary directory, for the tests that send it
// signals.
func buildAnalyze(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the command with")
	}
	bin := filepath.Join(t.TempDir(), "analyze")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestSignalWhileStdinIdle: SIGINT or SIGTERM while standard input is a pipe that has sent
// the first 300 packets of a capture (and half of the 301st) and then nothing, without
// closing, ends the run within a few seconds with the report of those 300 packets, marked
// interrupted, and exit 130 or 143.
func TestSignalWhileStdinIdle(t *testing.T) {
	bin := buildAnalyze(t)
	const sent = 300
	data := smallPcap(t, sent+1)
	first := data[:len(data)-70] // the last record is 158 bytes: cut it in half
	for _, sig := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGINT, "SIGINT", 130}, {syscall.SIGTERM, "SIGTERM", 143}} {
		for _, format := range []string{"text", "json"} {
			t.Run(sig.name+"/"+format, func(t *testing.T) {
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer pw.Close()
				var stdout, stderr bytes.Buffer
				cmd := exec.Command(bin, "--format", format, "-")
				cmd.Stdin, cmd.Stdout, cmd.Stderr = pr, &stdout, &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				pr.Close()
				if _, err := pw.Write(first); err != nil {
					t.Fatal(err)
				}
				// Time for the command to read what was sent; the pipe stays open.
				time.Sleep(time.Second)
				if err := cmd.Process.Signal(sig.sig); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					cmd.Process.Kill()
					<-done
					t.Fatalf("still running 5 s after %s; stderr %q", sig.name, stderr.String())
				}
				if code := cmd.ProcessState.ExitCode(); code != sig.code {
					t.Errorf("exit %d, want %d; stderr %q", code, sig.code, stderr.String())
				}
				warning := "read interrupted by " + sig.name + " after 300 packets: the report covers only what was read"
				if want := "analyze: -: warning: " + warning + "\n"; stderr.String() != want {
					t.Errorf("stderr %q, want %q", stderr.String(), want)
				}
				switch format {
				case "text":
					head, _, _ := strings.Cut(stdout.String(), "\n")
					if want := "-  pcap, ETHERNET, 300 packets, 42.6 kB, 6 s, PARTIAL: read interrupted"; head != want {
						t.Errorf("first line %q, want %q", head, want)
					}
					if !strings.Contains(stdout.String(), "warning: "+warning+"\n") {
						t.Errorf("the report lacks the warning:\n%s", stdout.String())
					}
				case "json":
					schematest.Check(t, stdout.Bytes())
					var r report.Report
					if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
						t.Fatalf("stdout is not JSON: %v\n%s", err, stdout.String())
					}
					c := r.Captures[0]
					if c.Packets != sent || !c.Interrupted || c.Truncated || len(c.Warnings) != 1 || c.Warnings[0] != warning {
						t.Errorf("packets %d interrupted %v truncated %v warnings %q; want %d, true, false, [%q]",
							c.Packets, c.Interrupted, c.Truncated, c.Warnings, sent, warning)
					}
				}
			})
		}
	}
}
