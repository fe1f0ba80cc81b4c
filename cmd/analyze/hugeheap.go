package main

import "os"

// The heap of a run over a capture of some size asks for transparent huge pages
// (hugeHeap), since first touches of memory are a real part of a run where a page fault is
// expensive: on machine B (a virtual machine, README Speed) a 4 KiB page costs 11-14 µs at
// its first touch, and a run's 2,500-10,000 of them 30-125 ms
// of CPU, while a 2 MiB page costs 0.15 ms. The Go runtime does not ask for huge pages for
// its heap, and where the kernel gives them only to memory that asks (THP "madvise", as on
// machine B) the heap gets 4 KiB pages. Asking costs two collections
// and the release of the free heap, 5-8 ms where nothing else is done (an empty capture),
// and the peak memory grows by 2-8 MiB, the huge pages' rounding.
const (
	// hugeHeapInput is the input size from which a run asks. The pipeline's buffers are
	// touched within the first megabytes read: a 2 MB capture took 0.94x as long asking, a
	// 3.7 MB one 0.90x, 17 MB 0.72x, 67 MB 0.78x, 1 GB 0.88-0.94x (15 alternated pairs).
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
