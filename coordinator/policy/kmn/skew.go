package kmn

// CountSkew is the count-based cross-rack Skew of shadow.md §2.1: with
// l_j maps and h_j reducers in rack j, s = Σl and t = Σh, rack j's uplink
// carries up(j) = l_j(t−h_j) (map, reducer) transfers and its downlink
// down(j) = h_j(s−l_j); Skew is the largest of these over the smallest
// non-zero one (A1), and 1 when no link carries any.
func CountSkew(l, h []int) float64 {
	num, den := skewRatio(l, h)
	return float64(num) / float64(den)
}

// skewRatio is CountSkew as a fraction, for exact comparisons.
func skewRatio(l, h []int) (num, den int64) {
	var s, t int64
	for _, x := range l {
		s += int64(x)
	}
	for _, x := range h {
		t += int64(x)
	}
	var hi, lo int64
	for j := range l {
		lj, hj := int64(l[j]), int64(0)
		if j < len(h) {
			hj = int64(h[j])
		}
		for _, load := range [2]int64{lj * (t - hj), hj * (s - lj)} {
			if load <= 0 {
				continue
			}
			if load > hi {
				hi = load
			}
			if lo == 0 || load < lo {
				lo = load
			}
		}
	}
	if lo == 0 {
		return 1, 1
	}
	return hi, lo
}

// lessSkew reports whether a/b < c/d for positive denominators.
func lessSkew(a, b, c, d int64) bool { return a*d < c*b }
