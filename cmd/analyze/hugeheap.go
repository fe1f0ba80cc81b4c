package main

import "os"

// The heap of a run over a capture of some size asks for transparent huge pages (hugeHeap):
// first touches of memory are a real part of a run where a page fault is expensive. On
// machine B (a virtual machine, docs/speed.md) a 4 KiB page costs 11-14 µs at its first
// touch, a run's thousands of them tens of milliseconds, and a 2 MiB page 0.15 ms. The Go
// runtime does not ask for huge pages for its heap, and where the kernel gives them only to
// memory that asks (THP "madvise", as on machine B) the heap gets 4 KiB pages. Asking costs
// two collections and the release of the free heap, 5-8 ms, and 2-8 MiB more peak memory,
// the huge pages' rounding.
const (
	// hugeHeapInput is the input size from which a run asks: the pipeline's buffers are
	// touched within the first megabytes read, and a 2 MB capture already gains.
	hugeHeapInput = 2 << 20
	// hugeHeapBytes is how much of the heap to come is asked for: the pipeline and the
	// state of up to a few hundred calls (peaks of 20-60 MiB). Only what is used is touched.
	hugeHeapBytes = 64 << 20
)

// largeInput reports whether one of args names a regular file of at least hugeHeapInput
// bytes. It looks before the arguments are parsed, since the heap must be prepared before
// the collector is paced (deferFirstGC); an argument that is a flag's value and happens to
// name such a file only makes the run ask for huge pages.
func largeInput(args []string) bool {
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() && fi.Size() >= hugeHeapInput {
			return true
		}
	}
	return false
}
