package callgen

import (
	"iter"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// frames yields one frame per time, the frame naming its sequence and time.
func frames(name string, times ...int64) iter.Seq2[int64, []byte] {
	return func(yield func(int64, []byte) bool) {
		for _, t := range times {
			if !yield(t, []byte(name+string(rune('0'+t)))) {
				return
			}
		}
	}
}

func TestMergeFrames(t *testing.T) {
	tests := []struct {
		name  string
		seqs  []iter.Seq2[int64, []byte]
		limit int // stop after this many (0: all)
		want  []string
	}{
		{"interleaved, equal times in sequence order",
			[]iter.Seq2[int64, []byte]{frames("a", 1, 4, 4), frames("b", 0, 4, 5), frames("c", 2)}, 0,
			[]string{"b0", "a1", "c2", "a4", "a4", "b4", "b5"}},
		{"empty sequences", []iter.Seq2[int64, []byte]{frames("a"), frames("b", 3), frames("c")}, 0,
			[]string{"b3"}},
		{"none", nil, 0, nil},
		{"stopped early", []iter.Seq2[int64, []byte]{frames("a", 1, 3, 5), frames("b", 2, 4, 6)}, 3,
			[]string{"a1", "b2", "a3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range MergeFrames(tt.seqs...) {
				got = append(got, string(f))
				if len(got) == tt.limit {
					break
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("merged (-want +got):\n%s", diff)
			}
		})
	}
}
