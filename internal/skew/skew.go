package skew

import "math"

// Links is the Skew of given uplink and downlink loads (bytes, counts,
// any one unit): the largest over the smallest of the links in use. A
// link that carried nothing (or a load that is not a positive number) is
// left out, as the paper's Fig. 5 example "only considers the links in
// use" (A1): an idle link would make the ratio infinite. It is 1 when no
// link carries load.
func Links(up, down []float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, links := range [][]float64{up, down} {
		for _, x := range links {
			if x > 0 {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	if hi == 0 {
		return 1
	}
	return hi / lo
}

// CountLoads are the count-based link loads of §2.1 for per-rack map
// counts l and reducer counts h (one entry a rack; h may be shorter):
// up(j) = l_j·(t−h_j) and down(j) = h_j·(s−l_j), with s = Σl and t = Σh,
// numbers of (map, reducer) transfers: Eq. 6-7's byte loads with every
// map output of one size and the constant o/t dropped.
func CountLoads(l, h []int) (up, down []float64) {
	upN, downN := countLoads(l, h)
	up, down = make([]float64, len(l)), make([]float64, len(l))
	for j := range l {
		up[j], down[j] = float64(upN[j]), float64(downN[j])
	}
	return up, down
}

// Counts is the predicted Skew of per-rack map and reducer counts: Links
// of CountLoads.
func Counts(l, h []int) float64 {
	up, down := CountLoads(l, h)
	return Links(up, down)
}

// CountRatio is Counts as an exact fraction num/den (1/1 when no link
// carries load), for comparisons that must not round: KMN's selection
// accepts a swap only if it lowers the Skew strictly.
func CountRatio(l, h []int) (num, den int64) {
	up, down := countLoads(l, h)
	var hi, lo int64
	for _, links := range [][]int64{up, down} {
		for _, x := range links {
			if x <= 0 {
				continue
			}
			hi = max(hi, x)
			if lo == 0 || x < lo {
				lo = x
			}
		}
	}
	if lo == 0 {
		return 1, 1
	}
	return hi, lo
}

func countLoads(l, h []int) (up, down []int64) {
	var s, t int64
	for _, x := range l {
		s += int64(x)
	}
	for _, x := range h {
		t += int64(x)
	}
	up, down = make([]int64, len(l)), make([]int64, len(l))
	for j := range l {
		lj, hj := int64(l[j]), int64(0)
		if j < len(h) {
			hj = int64(h[j])
		}
		up[j], down[j] = lj*(t-hj), hj*(s-lj)
	}
	return up, down
}
