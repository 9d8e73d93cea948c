package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The summary's count, sum and maximum are exact, and its percentiles
// within a bucket (9%) of the exact ones, over times spread across six
// orders of magnitude; its size does not grow with the decisions.
func TestDecisionTimes(t *testing.T) {
	var d DecisionTimes
	if d.PercentileNanos(50) != 0 || d.MeanNanos() != 0 {
		t.Fatal("an empty summary has a percentile or a mean")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]int64, 100_000)
	sum := int64(0)
	for i := range xs {
		xs[i] = int64(math.Exp(rng.Float64() * math.Log(1e6)))
		d.Add(xs[i])
		sum += xs[i]
	}
	slices.Sort(xs)
	if d.N != int64(len(xs)) || d.SumNanos != sum || d.MaxNanos != xs[len(xs)-1] {
		t.Fatalf("n %d sum %d max %d, want %d %d %d", d.N, d.SumNanos, d.MaxNanos, len(xs), sum, xs[len(xs)-1])
	}
	for _, p := range []float64{1, 50, 90, 99, 100} {
		exact := float64(xs[max(int(math.Ceil(p/100*float64(len(xs))))-1, 0)])
		if got := d.PercentileNanos(p); math.Abs(got-exact) > 0.09*exact+1 {
			t.Errorf("p%g: %g, exact %g", p, got, exact)
		}
	}
	d.Add(math.MaxInt64) // the largest time has a bucket
	if d.PercentileNanos(100) != math.MaxInt64 {
		t.Errorf("p100 after MaxInt64: %g", d.PercentileNanos(100))
	}
}
