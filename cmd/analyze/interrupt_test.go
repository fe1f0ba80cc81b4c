package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/callpcap/callpcap/report"
)

// TestInterruptInProcess is TestSignalWhileStdinIdle without a process (and so under the
// race detector too): run reads standard input from a pipe that sent 40 packets and then
// nothing; cancelling its context with the interruption as the cause ends it with the
// report of those 40 packets and exit 130.
func TestInterruptInProcess(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	data := smallPcap(t, 41)
	go pw.Write(data[:len(data)-10])
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(300*time.Millisecond, func() { cancel(interruption{syscall.SIGINT}) })
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- exitCode(run(ctx, []string{"-q", "-"}, pr, &out, &errb), &errb) }()
	select {
	case code := <-done:
		if code != 130 {
			t.Errorf("exit %d, want 130; stderr %q", code, errb.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run still reading 5 s after the interruption")
	}
	if want := "-  pcap, ETHERNET, 40 packets, 5.7 kB, 0.8 s, PARTIAL: read interrupted\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("report\n%s\nwant it to start with %q", out.String(), want)
	}
	if errb.Len() != 0 {
		t.Errorf("stderr %q, want nothing with -q", errb.String())
	}
}

// TestInterruptLeavesTheRestUnread: interrupted while reading the first of two inputs, run
// reports what it read of the first and lists the second as not read, with one line on
// standard error, and exits 130.
func TestInterruptLeavesTheRestUnread(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	data := smallPcap(t, 41)
	go pw.Write(data[:len(data)-10])
	second := filepath.Join(t.TempDir(), "second.pcap")
	if err := os.WriteFile(second, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(300*time.Millisecond, func() { cancel(interruption{syscall.SIGINT}) })
	var out, errb bytes.Buffer
	if code := exitCode(run(ctx, []string{"-q", "--format", "json", "-", second}, pr, &out, &errb), &errb); code != 130 {
		t.Errorf("exit %d, want 130; stderr %q", code, errb.String())
	}
	var r report.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	const why = "not read: the reading was interrupted by SIGINT"
	if len(r.Captures) != 2 || r.Captures[0].Packets != 40 || !r.Captures[0].Interrupted ||
		r.Captures[1].File != second || r.Captures[1].Error != why {
		t.Errorf("captures %+v, want the first's 40 packets, interrupted, and the second %q", r.Captures, why)
	}
	if want := "analyze: " + second + ": " + why + "\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}
