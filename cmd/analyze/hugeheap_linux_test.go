package main

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/callpcap/callpcap/internal/testgen/corpus"
)

// TestHugeHeap checks that memory the heap takes after hugeHeap lies in a mapping marked
// for huge pages ("hg" in its VmFlags, proc(5)): whether the kernel then has a 2 MiB page
// to give is the machine's affair, the mark is ours. It runs in a process of its own (this
// test binary again), as hugeHeap does in analyze: at the start, before anything was freed
// below the memory it marks. The heap takes its lowest free addresses first, and less than
// 2 MiB of them lie below the marked range (its rounding to whole huge pages): the middle
// of a 16 MiB slice lies within.
func TestHugeHeap(t *testing.T) {
	if os.Getenv("CALLPCAP_HUGEHEAP_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHugeHeap$", "-test.v")
		cmd.Env = append(os.Environ(), "CALLPCAP_HUGEHEAP_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		t.Logf("%s", out)
		return
	}
	if err := hugeHeap(hugeHeapBytes); err != nil {
		t.Skipf("madvise(MADV_HUGEPAGE): %v: this kernel has no transparent huge pages", err)
	}
	b := make([]byte, 16<<20)
	flags, err := vmFlags(uintptr(unsafe.Pointer(&b[len(b)/2])))
	if errors.Is(err, fs.ErrNotExist) && !corpus.InCI() {
		t.Skipf("no mapping found in /proc/self/smaps: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the middle of a 16 MiB slice made after hugeHeap lies in a mapping with VmFlags %q, want hg among them", flags)
	}
}

// vmFlags returns the VmFlags of the mapping of the process holding addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rng, _, ok := strings.Cut(line, " "); ok && strings.Count(rng, "-") == 1 && !strings.HasSuffix(rng, ":") {
			lo, hi, _ := strings.Cut(rng, "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(addr) >= l && uint64(addr) < h
			continue
		}
		if v, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", os.ErrNotExist
}
