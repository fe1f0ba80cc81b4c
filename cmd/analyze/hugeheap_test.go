package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLargeInput(t *testing.T) {
	dir := t.TempDir()
	large, small := filepath.Join(dir, "large.pcap"), filepath.Join(dir, "small.pcap")
	for name, size := range map[string]int64{large: hugeHeapInput, small: hugeHeapInput - 1} {
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil { // sparse: no need to write the bytes
			t.Fatal(err)
		}
		f.Close()
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{small}, false},
		{[]string{"--format", "json", small, large}, true},
		{[]string{large}, true},
		{[]string{dir, filepath.Join(dir, "absent.pcap"), "-"}, false}, // a directory, nothing, stdin
	} {
		if got := largeInput(tc.args); got != tc.want {
			t.Errorf("largeInput(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
