package stats

import "math"

// CoV is the coefficient of variation of per-rack bytes, the population
// standard deviation over the mean (Corral's data-imbalance metric,
// spec/corral.md §2.8); 0 when nothing is stored.
func CoV(bytes []int64) float64 {
	if len(bytes) == 0 {
		return 0
	}
	var sum float64
	for _, b := range bytes {
		sum += float64(b)
	}
	mean := sum / float64(len(bytes))
	if mean == 0 {
		return 0
	}
	var ss float64
	for _, b := range bytes {
		ss += (float64(b) - mean) * (float64(b) - mean)
	}
	return math.Sqrt(ss/float64(len(bytes))) / mean
}
