package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is written by the bar's own goroutine while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestProgress reads through the progress bar: it shows the input's name and the bytes
// read, the bytes pass unchanged, and closing it returns whether the input was read to its
// end or not.
func TestProgress(t *testing.T) {
	data := bytes.Repeat([]byte("callpcap"), 1<<16)
	for _, tc := range []struct {
		name string
		size int64
		all  bool // read to the end before close
	}{
		{"file", int64(len(data)), true},
		{"pipe", -1, true},
		{"interrupted", int64(len(data)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out lockedBuffer
			pr := newProgress(&out, "call.pcap", tc.size, bytes.NewReader(data))
			first := make([]byte, 1000)
			if _, err := io.ReadFull(pr, first); err != nil {
				t.Fatal(err)
			}
			// The bar is drawn every 100 ms by its own goroutine.
			for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "call.pcap"); {
				if time.Now().After(deadline) {
					t.Fatalf("the bar never named the input: %q", out.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if tc.all {
				rest, err := io.ReadAll(pr)
				if err != nil {
					t.Fatal(err)
				}
				if got := append(first, rest...); !bytes.Equal(got, data) {
					t.Fatalf("read %d bytes through the bar, not the %d given", len(got), len(data))
				}
			}
			done := make(chan struct{})
			go func() { pr.close(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("close did not return")
			}
			if s := out.String(); !strings.Contains(s, "1000") && !strings.Contains(s, "KiB") {
				t.Errorf("the bar did not count the bytes read: %q", s)
			}
		})
	}
}
