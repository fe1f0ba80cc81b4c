package callgen

import (
	"container/heap"
	"iter"
)

// MergeFrames merges sequences of frames, each in time order (t in ns since the Unix epoch),
// into one in time order; of equal times, the earlier sequence's frame comes first. It holds
// one frame per sequence, so several simulated connections stream into one capture in
// memory that does not grow with its length. Each sequence is ranged over once; breaking out
// of the loop stops them all.
func MergeFrames(seqs ...iter.Seq2[int64, []byte]) iter.Seq2[int64, []byte] {
	return func(yield func(int64, []byte) bool) {
		var h frameHeap
		var stops []func()
		defer func() {
			for _, stop := range stops {
				stop()
			}
		}()
		for i, seq := range seqs {
			next, stop := iter.Pull2(seq)
			stops = append(stops, stop)
			if t, f, ok := next(); ok {
				h = append(h, headFrame{t: t, frame: f, src: i, next: next})
			}
		}
		heap.Init(&h)
		for len(h) > 0 {
			top := &h[0]
			if !yield(top.t, top.frame) {
				return
			}
			if t, f, ok := top.next(); ok {
				top.t, top.frame = t, f
				heap.Fix(&h, 0)
			} else {
				heap.Pop(&h)
			}
		}
	}
}

// headFrame is the next frame of one merged sequence.
type headFrame struct {
	t     int64
	frame []byte
	src   int // the sequence's index, to order equal times
	next  func() (int64, []byte, bool)
}

type frameHeap []headFrame

func (h frameHeap) Len() int { return len(h) }
func (h frameHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].src < h[j].src
}
func (h frameHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *frameHeap) Push(x any)   { *h = append(*h, x.(headFrame)) }
func (h *frameHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
