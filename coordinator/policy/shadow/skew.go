package shadow

// CountLoads returns the count-based link loads of §2.1 for per-rack map
// counts l and reducer counts h (same length, one entry per rack):
// up(j) = l_j·(t−h_j) and down(j) = h_j·(s−l_j), with s = Σl and t = Σh.
// They are numbers of (map, reducer) transfers: the byte loads of Eq. 6–7
// with every map output of the same size and the constant o/t dropped.
func CountLoads(l, h []int) (up, down []float64) {
	s, t := 0, 0
	for j := range l {
		s += l[j]
	}
	for j := range h {
		t += h[j]
	}
	up = make([]float64, len(l))
	down = make([]float64, len(l))
	for j := range l {
		hj := 0
		if j < len(h) {
			hj = h[j]
		}
		up[j] = float64(l[j] * (t - hj))
		down[j] = float64(hj * (s - l[j]))
	}
	return up, down
}

// CountSkew is the predicted Skew of §2.1: the largest count-based link
// load over the smallest nonzero one (A1), 1 when no link carries load.
func CountSkew(l, h []int) float64 {
	up, down := CountLoads(l, h)
	return LinkSkew(up, down)
}

// LinkSkew is Skew over given uplink and downlink loads (bytes, counts,
// any unit): max over all links divided by min over the links with load
// > 0 (A1: an unused link would make Skew infinite, and the paper only
// considers the links in use). It is 1 when no link carries load.
func LinkSkew(up, down []float64) float64 {
	maxLoad, minLoad := 0.0, 0.0
	seen := false
	for _, side := range [][]float64{up, down} {
		for _, v := range side {
			if v <= 0 {
				continue
			}
			if v > maxLoad {
				maxLoad = v
			}
			if !seen || v < minLoad {
				minLoad = v
				seen = true
			}
		}
	}
	if !seen {
		return 1
	}
	return maxLoad / minLoad
}
