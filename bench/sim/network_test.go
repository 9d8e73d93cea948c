package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randomNetwork(rng *rand.Rand, nres int) *network {
	caps := make([]float64, nres)
	for i := range caps {
		caps[i] = float64(1 + rng.IntN(100))
	}
	return newNetwork(caps)
}

func randomPath(rng *rand.Rand, nres int) []int32 {
	k := min(1+rng.IntN(4), nres)
	seen := map[int32]bool{}
	var p []int32
	for len(p) < k {
		r := int32(rng.IntN(nres))
		if !seen[r] {
			seen[r] = true
			p = append(p, r)
		}
	}
	return p
}

func active(n *network) []*flow {
	var out []*flow
	for _, e := range n.byEnd {
		out = append(out, e.f)
	}
	return out
}

// checkFeasible: no resource carries more than its capacity.
func checkFeasible(t *testing.T, n *network) {
	t.Helper()
	use := make([]float64, len(n.res))
	for _, f := range active(n) {
		if f.rate < 0 {
			t.Fatalf("negative rate %g", f.rate)
		}
		for _, r := range f.res {
			use[r] += f.rate
		}
	}
	for r := range n.res {
		if use[r] > n.res[r].capacity*(1+1e-9)+1e-9 {
			t.Fatalf("resource %d carries %g over capacity %g", r, use[r], n.res[r].capacity)
		}
		if math.Abs(use[r]-n.res[r].load) > 1e-6*math.Max(1, use[r]) {
			t.Fatalf("resource %d load %g, flows add to %g", r, n.res[r].load, use[r])
		}
	}
}

// checkMaxMin: with one class, every flow has a saturated resource on
// which no flow is faster (the bottleneck characterisation of max-min).
func checkMaxMin(t *testing.T, n *network) {
	t.Helper()
	use := make([]float64, len(n.res))
	maxRate := make([]float64, len(n.res))
	for _, f := range active(n) {
		for _, r := range f.res {
			use[r] += f.rate
			maxRate[r] = math.Max(maxRate[r], f.rate)
		}
	}
	for _, f := range active(n) {
		ok := false
		for _, r := range f.res {
			if use[r] >= n.res[r].capacity*(1-1e-9) && f.rate >= maxRate[r]*(1-1e-9) {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("flow %d at rate %g has no bottleneck", f.id, f.rate)
		}
	}
}

func TestExactMaxMin(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		n := randomNetwork(rng, 3+rng.IntN(12))
		for i := 0; i < 1+rng.IntN(40); i++ {
			n.add(0, randomPath(rng, len(n.res)), 1e6, 0, nil)
		}
		n.recompute(0, true)
		checkFeasible(t, n)
		checkMaxMin(t, n)
	}
}

func TestLocalUpdatesNeverOvercommit(t *testing.T) {
	for seed := uint64(0); seed < 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2))
		n := randomNetwork(rng, 3+rng.IntN(12))
		now := 0.0
		for step := 0; step < 200; step++ {
			now += rng.Float64()
			randomChange(rng, n, now, nil, 2)
			n.recompute(now, step%17 == 0)
			checkFeasible(t, n)
		}
		n.markDirty(0)
		for r := range n.res {
			n.markDirty(int32(r))
		}
	}
}

func TestStrictPriority(t *testing.T) {
	n := newNetwork([]float64{100})
	lo := n.add(0, []int32{0}, 1e6, 1, nil)
	hi1 := n.add(0, []int32{0}, 1e6, 0, nil)
	hi2 := n.add(0, []int32{0}, 1e6, 0, nil)
	n.recompute(0, true)
	if hi1.rate != 50 || hi2.rate != 50 || lo.rate != 0 {
		t.Fatalf("rates %g %g %g, want 50 50 0", hi1.rate, hi2.rate, lo.rate)
	}
	n.setPriority(hi2, 2)
	n.recompute(0, true)
	if hi1.rate != 100 || lo.rate != 0 || hi2.rate != 0 {
		t.Fatalf("after re-marking: %g %g %g", hi1.rate, lo.rate, hi2.rate)
	}
	n.remove(1, hi1)
	n.recompute(1, true)
	if lo.rate != 100 {
		t.Fatalf("lower class gets the link once the higher leaves: %g", lo.rate)
	}
}

// A hand-computed case: two racks' uplinks of 10 and 4 shared by three
// flows: A on up0 only, B on up0 and up1, C on up1 only. Max-min: B and C
// split up1 (2 each), A takes the rest of up0 (8).
func TestMaxMinHandComputed(t *testing.T) {
	n := newNetwork([]float64{10, 4})
	a := n.add(0, []int32{0}, 80, 0, nil)
	b := n.add(0, []int32{0, 1}, 20, 0, nil)
	c := n.add(0, []int32{1}, 100, 0, nil)
	n.recompute(0, true)
	if a.rate != 8 || b.rate != 2 || c.rate != 2 {
		t.Fatalf("rates %g %g %g, want 8 2 2", a.rate, b.rate, c.rate)
	}
	// A and B end at t=10; then C has up1 alone
	if tEnd, f := n.nextFinish(); tEnd != 10 || (f != a && f != b) {
		t.Fatalf("first end at %g", tEnd)
	}
	n.remove(10, a)
	n.remove(10, b)
	n.recompute(10, false)
	if c.rate != 4 || c.remaining != 80 {
		t.Fatalf("C at %g with %g left, want 4 and 80", c.rate, c.remaining)
	}
	if tEnd, _ := n.nextFinish(); tEnd != 30 {
		t.Fatalf("C ends at %g, want 30", tEnd)
	}
}

// A flow that a higher class held at what rounding left of a link (not 0:
// 1.4e-7 B/s of a 1e10 B/s rack uplink, PushBox on the 4-rack oversub-2
// campaign), re-marked once the link has slack, must take the link: in
// max-min every flow has a saturated resource. The local update re-shared
// only flows at exactly 0 there, so the five reducers of coflow498 fetched
// at 1e-7 B/s, and no later event brought a full pass: the run stalled.
func TestRemarkedCrawlingFlowTakesTheSlack(t *testing.T) {
	n := newNetwork([]float64{1e10, 1.25e9}) // a rack uplink, a host NIC
	x := n.add(0, []int32{0, 1}, 1e7, 1, nil)
	n.recompute(0, true)
	// the state a local update's rounding left: x crawls on links with slack
	for _, r := range x.res {
		n.res[r].load += 1.44e-7 - x.rate
	}
	x.rate = 1.44e-7
	n.projectEnd(0, x)
	n.setPriority(x, 0)
	n.recompute(1, false)
	if x.rate != 1.25e9 {
		t.Fatalf("re-marked flow on idle links: rate %g, want the NIC's 1.25e9", x.rate)
	}
	if end, _ := n.nextFinish(); end > 2 {
		t.Fatalf("it ends at t=%g, want within a second", end)
	}
	checkFeasible(t, n)
}
