package engine

import "math"

// decisionBucketsPerDoubling sets the histogram's resolution: a
// percentile is known to within 2^(1/8), about 9%.
const decisionBucketsPerDoubling = 8

// decisionBuckets cover every int64 of nanoseconds.
const decisionBuckets = 64*decisionBucketsPerDoubling + 1

// DecisionTimes summarises how long the policy's decisions took (wall
// time, by Config.Stopwatch) in constant memory, however long the run: a
// run of billions of decisions must not hold one number for each. The
// count, sum and maximum are exact; percentiles come from a histogram of
// decisionBucketsPerDoubling buckets a doubling.
type DecisionTimes struct {
	N, SumNanos, MaxNanos int64
	buckets               [decisionBuckets]int64
}

// Add records a decision of ns nanoseconds.
func (d *DecisionTimes) Add(ns int64) {
	ns = max(ns, 0)
	d.N++
	d.SumNanos += ns
	d.MaxNanos = max(d.MaxNanos, ns)
	d.buckets[decisionBucket(ns)]++
}

func decisionBucket(ns int64) int {
	return min(int(math.Floor(decisionBucketsPerDoubling*math.Log2(float64(ns)+1))), decisionBuckets-1)
}

// MeanNanos is the mean decision time; 0 without decisions.
func (d *DecisionTimes) MeanNanos() float64 {
	if d.N == 0 {
		return 0
	}
	return float64(d.SumNanos) / float64(d.N)
}

// PercentileNanos is the p-th percentile (nearest rank, p in [0, 100]) of
// the decision times: the geometric middle of its bucket, held within
// the exact maximum; 0 without decisions.
func (d *DecisionTimes) PercentileNanos(p float64) float64 {
	if d.N == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(p/100*float64(d.N))), 1)
	seen := int64(0)
	for i, n := range d.buckets {
		if seen += n; seen >= rank {
			mid := math.Exp2((float64(i)+0.5)/decisionBucketsPerDoubling) - 1
			return min(mid, float64(d.MaxNanos))
		}
	}
	return float64(d.MaxNanos)
}
