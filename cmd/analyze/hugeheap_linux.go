package main

import (
	"runtime/debug"
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// hugeHeap makes most of the next n bytes of heap that the runtime maps ask for transparent
// huge pages. A slice of n bytes and a huge page more makes the runtime map that much fresh
// memory, which it does not touch; the whole huge pages within are marked with
// madvise(MADV_HUGEPAGE); the slice is freed and the memory released to the kernel, which
// keeps the mark, so that the allocations to come, which take the lowest free addresses,
// land there and fault in 2 MiB at a time. It returns madvise's error: a kernel without
// huge pages refuses, and the heap is as before.
func hugeHeap(n int) error {
	err := markHuge(n)
	debug.FreeOSMemory()
	return err
}

// markHuge is apart so that its slice is dead, and freed, once it returns.
//
//go:noinline
func markHuge(n int) error {
	b := make([]byte, n+hugePage)
	start := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & (hugePage - 1)) // the first huge page's
	return syscall.Madvise(b[start:start+n&^(hugePage-1)], syscall.MADV_HUGEPAGE)
}
