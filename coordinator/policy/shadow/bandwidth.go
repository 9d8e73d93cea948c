package shadow

import "fmt"

// Flow is one cross-rack read of a non-local duplicate: from the source
// replica's rack Src (its uplink) to the duplicate's rack Dst (its
// downlink).
type Flow struct{ Src, Dst int }

// MaxMinBandwidth is MAXMIN-BANDWIDTH of §2.6: max-min fair progressive
// filling over the rack uplinks and downlinks. Each round gives every
// remaining flow on the most constrained link (smallest remaining capacity
// per flow; ties: uplinks before downlinks, then the lowest rack index) an
// equal share, removes those flows and charges their rates to the other
// link they use. It returns the rate of each flow (B_iu), in the unit of
// the capacities.
func MaxMinBandwidth(flows []Flow, capUp, capDown []float64) ([]float64, error) {
	n := len(capUp)
	if len(capDown) != n {
		return nil, fmt.Errorf("shadow bandwidth: %d uplink and %d downlink capacities", n, len(capDown))
	}
	for i, f := range flows {
		if f.Src < 0 || f.Src >= n || f.Dst < 0 || f.Dst >= n {
			return nil, fmt.Errorf("shadow bandwidth: flow %d from rack %d to rack %d, racks are 0..%d", i, f.Src, f.Dst, n-1)
		}
		if f.Src == f.Dst {
			return nil, fmt.Errorf("shadow bandwidth: flow %d stays in rack %d, it uses no cross-rack link", i, f.Src)
		}
	}
	remUp := append([]float64(nil), capUp...)
	remDown := append([]float64(nil), capDown...)
	rate := make([]float64, len(flows))
	active := make([]bool, len(flows))
	left := len(flows)
	for i := range active {
		active[i] = true
	}
	for left > 0 {
		kUp := make([]int, n)
		kDown := make([]int, n)
		for i, f := range flows {
			if active[i] {
				kUp[f.Src]++
				kDown[f.Dst]++
			}
		}
		// The scan order (uplinks by rack, then downlinks by rack) with a
		// strict < is the tie rule.
		best, bestDown, bestRack := 0.0, false, -1
		for _, down := range []bool{false, true} {
			k, rem := kUp, remUp
			if down {
				k, rem = kDown, remDown
			}
			for r := 0; r < n; r++ {
				if k[r] == 0 {
					continue
				}
				share := max(rem[r], 0) / float64(k[r])
				if bestRack < 0 || share < best {
					best, bestDown, bestRack = share, down, r
				}
			}
		}
		for i, f := range flows {
			if !active[i] {
				continue
			}
			if (bestDown && f.Dst == bestRack) || (!bestDown && f.Src == bestRack) {
				rate[i] = best
				active[i] = false
				left--
				remUp[f.Src] -= best
				remDown[f.Dst] -= best
			}
		}
	}
	return rate, nil
}
