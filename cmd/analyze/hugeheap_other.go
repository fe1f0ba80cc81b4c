//go:build !linux

package main

// hugeHeap does nothing where the kernel's huge pages are not asked for with madvise.
func hugeHeap(n int) error { return nil }
