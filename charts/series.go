package charts

// steps turns per-second values (value i covering [i·step, (i+1)·step)) into the corners of
// a step line: each value is a level across its second, and a change is a vertical edge at
// the boundary between two seconds.
func steps(values []float64, step float64) (xs, ys []float64) {
	xs = make([]float64, 0, 2*len(values))
	ys = make([]float64, 0, 2*len(values))
	for i, v := range values {
		xs = append(xs, float64(i)*step, float64(i+1)*step)
		ys = append(ys, v, v)
	}
	return xs, ys
}

// pieces splits a series with holes (nil: a second without a sample) into the runs of
// seconds that have one, each as step-line corners: a hole is drawn as a gap, not as zero.
func pieces(values []*float64, step float64) [][2][]float64 {
	var out [][2][]float64
	for i := 0; i < len(values); {
		if values[i] == nil {
			i++
			continue
		}
		j := i
		var run []float64
		for ; j < len(values) && values[j] != nil; j++ {
			run = append(run, *values[j])
		}
		xs, ys := steps(run, step)
		for k := range xs {
			xs[k] += float64(i) * step
		}
		out = append(out, [2][]float64{xs, ys})
		i = j
	}
	return out
}

func ints(values []int64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = float64(v)
	}
	return out
}

// counts is values as numbers, a second without a count 0: the steps of late packets show
// none there, as with no late packet.
func counts(values []*int64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		if v != nil {
			out[i] = float64(*v)
		}
	}
	return out
}

func maxOf(values []float64) float64 {
	m := 0.0
	for _, v := range values {
		m = max(m, v)
	}
	return m
}

func scaled(values []float64, by float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = v / by
	}
	return out
}
