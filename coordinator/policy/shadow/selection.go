package shadow

import (
	"fmt"
	"math"
	"sort"
)

// Shuffle models of Eq. 12 (the shuffle_model arg).
const (
	// ShuffleUp bounds the shuffle by the most loaded uplink, as the
	// paper does.
	ShuffleUp = "up"
	// ShuffleUpAndDown also takes the most loaded downlink (§2.5 variant).
	ShuffleUpAndDown = "up_and_down"
)

// Model is the runtime model of §2.5 (Eq. 11–13) for one job.
type Model struct {
	// Reducers is h_i, the job's reducers per rack (planned).
	Reducers []int
	// Uplink is B_i, each rack's uplink bandwidth (A7: the configured
	// capacity), in bytes per second.
	Uplink []float64
	// Downlink is each rack's downlink bandwidth, used by ShuffleUpAndDown.
	Downlink []float64
	// Shuffle is ShuffleUp (default when empty) or ShuffleUpAndDown.
	Shuffle string
}

// Copy is one map output in a chosen set C: the rack it was written in and
// its size o_k. EstFinish is, for a chosen duplicate not finished by T, its
// estimated finish (seconds from t0, Eq. 11); 0 for every other copy.
type Copy struct {
	Rack      int
	Output    float64
	EstFinish float64
}

// EstFinish is Eq. 11's term for one duplicate with the time origin of A6:
// launch (seconds after t0) + D/B + R, where D is the bytes it reads across
// racks (0 when local), B its max-min bandwidth B_iu and R its original's
// measured runtime. A remote read with no bandwidth never ends (+Inf).
func EstFinish(launch, readBytes, bandwidth, runtime float64) float64 {
	read := 0.0
	if readBytes > 0 {
		if bandwidth <= 0 {
			return math.Inf(1)
		}
		read = readBytes / bandwidth
	}
	return launch + read + runtime
}

func (m Model) validate(racks int) error {
	if len(m.Uplink) != racks {
		return fmt.Errorf("shadow model: %d uplink bandwidths for %d racks", len(m.Uplink), racks)
	}
	if len(m.Reducers) != racks {
		return fmt.Errorf("shadow model: reducers for %d racks, %d racks", len(m.Reducers), racks)
	}
	switch m.Shuffle {
	case "", ShuffleUp:
	case ShuffleUpAndDown:
		if len(m.Downlink) != racks {
			return fmt.Errorf("shadow model: %d downlink bandwidths for %d racks", len(m.Downlink), racks)
		}
	default:
		return fmt.Errorf("shadow model: shuffle model %q, want %q or %q", m.Shuffle, ShuffleUp, ShuffleUpAndDown)
	}
	return nil
}

// ShuffleTime is T_s of Eq. 12 for the chosen copies: max over racks of
// S_i/B_i with S_i = Σ_{k in i} o_k·(t−h_i)/t (Eq. 6), and with
// ShuffleUpAndDown also C_down(i)/B_i^down (Eq. 7). A loaded link with no
// bandwidth gives +Inf.
func (m Model) ShuffleTime(copies []Copy) float64 {
	n := len(m.Uplink)
	t := 0
	for _, h := range m.Reducers {
		t += h
	}
	if t == 0 {
		return 0
	}
	inRack := make([]float64, n)
	total := 0.0
	for _, c := range copies {
		inRack[c.Rack] += c.Output
		total += c.Output
	}
	ts := 0.0
	worst := func(load, bw float64) {
		if load <= 0 {
			return
		}
		if bw <= 0 {
			ts = math.Inf(1)
			return
		}
		ts = max(ts, load/bw)
	}
	for i := 0; i < n; i++ {
		worst(inRack[i]*float64(t-m.Reducers[i])/float64(t), m.Uplink[i])
		if m.Shuffle == ShuffleUpAndDown {
			worst((total-inRack[i])*float64(m.Reducers[i])/float64(t), m.Downlink[i])
		}
	}
	return ts
}

// Total is T_t = T_m + T_s (Eq. 11–13): T_m is T or the latest estimated
// finish of a chosen duplicate still running at T.
func (m Model) Total(T float64, copies []Copy) float64 {
	tm := T
	for _, c := range copies {
		tm = max(tm, c.EstFinish)
	}
	return tm + m.ShuffleTime(copies)
}

// Pending is a duplicated split still undecided at T: its original's copy
// (finished, output held) and its duplicate's (running; EstFinish set).
type Pending struct {
	Split     int
	Original  Copy
	Duplicate Copy
}

// SelectInput is what SELECT-AT-T needs at T.
type SelectInput struct {
	// T is the last finish of a non-killed original, seconds from t0.
	T float64
	// Settled are the copies already chosen: originals without a pending
	// duplicate and duplicates chosen before T (with EstFinish when still
	// running).
	Settled []Copy
	// Pending are the undecided pairs.
	Pending []Pending
	// AcceptTies accepts a duplicate whose estimated total equals the
	// current best (≤ instead of the paper's strict "shorter", A8).
	AcceptTies bool
}

// SelectResult is SELECT-AT-T's decision.
type SelectResult struct {
	// Accept tells, per SelectInput.Pending index, whether the duplicate
	// was chosen (else its original is).
	Accept []bool
	// Order is the evaluation order (indices into Pending).
	Order []int
	// Baseline is T_t with every pending pair represented by its original.
	Baseline float64
	// Predicted is T_t of the final choice: the model's predicted
	// map-plus-shuffle span (A15).
	Predicted float64
}

// SelectAtT is SELECT-AT-T (E3 of §2.5): starting from the settled copies
// and every pending pair's original, it tries the pending duplicates in
// ascending estimated finish, ties by split id, and keeps a swap when it
// makes T_t strictly shorter (or equal, with AcceptTies).
func (m Model) SelectAtT(in SelectInput) (SelectResult, error) {
	n := len(m.Uplink)
	if err := m.validate(n); err != nil {
		return SelectResult{}, err
	}
	check := func(c Copy, what string) error {
		if c.Rack < 0 || c.Rack >= n {
			return fmt.Errorf("shadow select: %s in rack %d, racks are 0..%d", what, c.Rack, n-1)
		}
		return nil
	}
	chosen := make([]Copy, 0, len(in.Settled)+len(in.Pending))
	for _, c := range in.Settled {
		if err := check(c, "settled copy"); err != nil {
			return SelectResult{}, err
		}
		chosen = append(chosen, c)
	}
	base := len(chosen)
	for _, p := range in.Pending {
		if err := check(p.Original, fmt.Sprintf("original of split %d", p.Split)); err != nil {
			return SelectResult{}, err
		}
		if err := check(p.Duplicate, fmt.Sprintf("duplicate of split %d", p.Split)); err != nil {
			return SelectResult{}, err
		}
		chosen = append(chosen, p.Original)
	}
	res := SelectResult{Accept: make([]bool, len(in.Pending))}
	res.Order = make([]int, len(in.Pending))
	for i := range res.Order {
		res.Order[i] = i
	}
	sort.SliceStable(res.Order, func(a, b int) bool {
		pa, pb := in.Pending[res.Order[a]], in.Pending[res.Order[b]]
		if pa.Duplicate.EstFinish != pb.Duplicate.EstFinish {
			return pa.Duplicate.EstFinish < pb.Duplicate.EstFinish
		}
		return pa.Split < pb.Split
	})
	best := m.Total(in.T, chosen)
	res.Baseline = best
	for _, i := range res.Order {
		slot := base + i
		kept := chosen[slot]
		chosen[slot] = in.Pending[i].Duplicate
		cand := m.Total(in.T, chosen)
		if better(cand, best, in.AcceptTies) {
			best = cand
			res.Accept[i] = true
		} else {
			chosen[slot] = kept
		}
	}
	res.Predicted = best
	return res, nil
}

// better compares two estimated totals. Equal means equal up to rounding
// (a relative 1e-9), so that a tie the spec computes by hand (S2-tie) is a
// tie in floating point too.
func better(cand, best float64, acceptTies bool) bool {
	eps := 1e-9 * max(1, math.Abs(best))
	if math.IsInf(best, 1) {
		return !math.IsInf(cand, 1) || acceptTies
	}
	if acceptTies {
		return cand <= best+eps
	}
	return cand < best-eps
}
