package corral

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// relNear is agreement to 1e-6 relative (absolute near 0).
func relNear(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1e-9, math.Abs(b)) }

// TestLPBatchScenarios is §8 Scenarios 1 and 2's LP-Batch bounds, by
// hand in the spec: 12 − 5/12 (A mixes 1/12 of two racks) and 15 (A
// mixes 3/4 of two racks and 1/4 of three).
func TestLPBatchScenarios(t *testing.T) {
	for _, c := range []struct {
		name string
		resp [][]float64
		lp   float64
		plan float64
	}{
		{"scenario 1", [][]float64{{12, 7}, {6, 4}, {5, 4}}, 12 - 5.0/12, 12},
		{"scenario 2", [][]float64{{30, 16, 12}, {6, 5, 5}, {6, 5, 5}}, 15, 16},
	} {
		R := len(c.resp[0])
		simplex, err := LPBatchSimplex(c.resp, R)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		bisect, err := lpBatchBisect(c.resp, R)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !relNear(simplex, c.lp) || !relNear(bisect, c.lp) {
			t.Errorf("%s: LP-Batch simplex %.9g, bisection %.9g, want %.9g", c.name, simplex, bisect, c.lp)
		}
		p, err := PlanTable(c.resp, nil, Options{LowerBound: true})
		if err != nil {
			t.Fatal(err)
		}
		if p.Objective != c.plan || !relNear(p.Bound.Value, c.lp) || p.Bound.Method != "lp-batch/simplex" {
			t.Errorf("%s: plan %g bound %+v, want %g over %g by the simplex", c.name, p.Objective, p.Bound, c.plan, c.lp)
		}
	}
	// Scenario 1: the heuristic is 3.6% above the bound
	p, _ := PlanTable([][]float64{{12, 7}, {6, 4}, {5, 4}}, nil, Options{LowerBound: true})
	if g := p.Bound.Gap(p.Objective); math.Abs(g-0.036) > 0.0005 {
		t.Errorf("scenario 1 gap %.4f, want 0.036", g)
	}
}

// modelTable is response functions from the model on a small cluster,
// jobs shaped like W3: widening helps up to a point, then the cross-rack
// term and the penalty win.
func modelTable(rng *rand.Rand, J, R int) [][]float64 {
	c := Cluster{Racks: R, MachinesPerRack: 10, SlotsPerMachine: 2, NICBps: 1.25e9, Oversubscription: 5}
	m := Model{ShuffleWaveMultiplier: true, Alpha: DefaultAlpha(c)}
	resp := make([][]float64, J)
	for j, job := range w3Like(rng, J) {
		resp[j] = make([]float64, R)
		for r := 1; r <= R; r++ {
			resp[j][r-1] = m.Penalised(job, c, r)
		}
	}
	return resp
}

// TestLPBatchSolversAgree: gonum's simplex and the exact bisection give
// the same T* on seeded random instances, and the bound is below the
// planner's makespan on every one (LP* ≤ OPT ≤ heuristic).
func TestLPBatchSolversAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 29))
	for n := 0; n < 120; n++ {
		J, R := 1+rng.IntN(25), 1+rng.IntN(8)
		var resp [][]float64
		if n%2 == 0 {
			resp = randomTable(rng, J, R)
		} else {
			resp = modelTable(rng, J, R)
		}
		simplex, err := LPBatchSimplex(resp, R)
		if err != nil {
			t.Fatalf("instance %d (%d×%d): %v", n, J, R, err)
		}
		bisect, err := lpBatchBisect(resp, R)
		if err != nil {
			t.Fatal(err)
		}
		if !relNear(simplex, bisect) {
			t.Errorf("instance %d (%d jobs × %d racks): simplex %.12g, bisection %.12g", n, J, R, simplex, bisect)
		}
		p, err := PlanTable(resp, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if bisect > p.Objective*(1+1e-9) {
			t.Errorf("instance %d: LP-Batch %g above the planner's makespan %g", n, bisect, p.Objective)
		}
		// the trivial bounds the LP must dominate: the longest shortest
		// job, and the least total rack-time over R
		var lo, work float64
		for _, row := range resp {
			best, least := math.Inf(1), math.Inf(1)
			for r, v := range row {
				best = math.Min(best, v)
				least = math.Min(least, float64(r+1)*v)
			}
			lo = math.Max(lo, best)
			work += least
		}
		if bisect < math.Max(lo, work/float64(R))*(1-1e-9) {
			t.Errorf("instance %d: LP-Batch %g below the trivial bound %g", n, bisect, math.Max(lo, work/float64(R)))
		}
	}
	// one instance the size of the benchmark's, on the planner's own
	// response functions
	resp := plannerTable(50, 10)
	simplex, err := LPBatchSimplex(resp, 10)
	if err != nil {
		t.Fatal(err)
	}
	bisect, _ := lpBatchBisect(resp, 10)
	p, err := PlanTable(resp, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !relNear(simplex, bisect) || bisect > p.Objective {
		t.Errorf("50×10: simplex %.12g, bisection %.12g, plan %g", simplex, bisect, p.Objective)
	}
}

// aByPairs is §2.9's a_j(T) as the spec writes it: the best single width
// with L ≤ T, or the best mix of one width with L ≤ T and one with L > T
// that runs exactly T.
func aByPairs(row []float64, T float64) float64 {
	best := math.Inf(1)
	for r1, l1 := range row {
		if l1 > T {
			continue
		}
		best = math.Min(best, float64(r1+1)*l1)
		for r2, l2 := range row {
			if l2 <= T {
				continue
			}
			lambda := (l2 - T) / (l2 - l1)
			best = math.Min(best, lambda*float64(r1+1)*l1+(1-lambda)*float64(r2+1)*l2)
		}
	}
	return best
}

// TestCapacityChain: the convex chain gives the spec's pairwise a_j(T).
func TestCapacityChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for n := 0; n < 300; n++ {
		R := 1 + rng.IntN(12)
		row := randomTable(rng, 1, R)[0]
		ch := newCapacityChain(row)
		lo, hi := ch.l[0], 0.0
		for _, v := range row {
			hi = math.Max(hi, v)
		}
		for k := 0; k < 20; k++ {
			T := lo + rng.Float64()*(hi-lo)*1.2
			if k == 0 {
				T = lo
			}
			if got, want := ch.at(T), aByPairs(row, T); !relNear(got, want) {
				t.Fatalf("row %v at T=%g: chain %g, pairs %g (chain %+v)", row, T, got, want, ch)
			}
		}
	}
}

// TestLPBatchSizeLimit: the simplex refuses an instance beyond its limit
// and LPBatch takes the bisection instead; LowerBound says which.
func TestLPBatchSizeLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	resp := randomTable(rng, MaxSimplexJobs+1, 10)
	_, err := LPBatchSimplex(resp, 10)
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("simplex on %d×10: err %v, want the size limit", len(resp), err)
	}
	if _, err := LPBatchSimplex(randomTable(rng, 2, MaxSimplexVars/2+1), MaxSimplexVars/2+1); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("simplex on %d×10: err %v, want the size limit", len(resp), err)
	}
	got, err := LPBatch(resp, 10)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := lpBatchBisect(resp, 10)
	if got != want {
		t.Errorf("LPBatch %g, bisection %g", got, want)
	}
	b, err := LowerBound(resp, Batch)
	if err != nil || b.Method != "lp-batch/bisect" || b.Value != want {
		t.Errorf("LowerBound %+v %v, want %g by bisection", b, err, want)
	}
	b, err = LowerBound(resp[:20], Batch)
	if err != nil || b.Method != "lp-batch/simplex" {
		t.Errorf("LowerBound within the limit %+v %v, want the simplex", b, err)
	}
}

// TestLPOnlineClosedForm: (1/J) Σ_j min_r L_j(r), below the planner's
// average completion time.
func TestLPOnlineClosedForm(t *testing.T) {
	resp := [][]float64{{12, 7}, {6, 4}, {5, 4.5}, {3, 9}}
	if got := LPOnlineClosedForm(resp); !relNear(got, 4.625) {
		t.Errorf("closed form %g, want (7+4+4.5+3)/4 = 4.625", got)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for n := 0; n < 50; n++ {
		J, R := 1+rng.IntN(30), 1+rng.IntN(10)
		resp := randomTable(rng, J, R)
		arr := make([]float64, J)
		for j := range arr {
			arr[j] = rng.Float64() * 100
		}
		p, err := PlanTable(resp, arr, Options{Objective: Online, LowerBound: true})
		if err != nil {
			t.Fatal(err)
		}
		if p.Bound.Method != "online/closed-form" || p.Bound.Value > p.Objective*(1+1e-9) || p.Bound.Value <= 0 {
			t.Errorf("instance %d: bound %+v, objective %g", n, p.Bound, p.Objective)
		}
	}
}

func TestLPBadInput(t *testing.T) {
	for _, c := range []struct {
		resp  [][]float64
		racks int
		want  string
	}{
		{[][]float64{{1, 2}, {3}}, 2, "job 1 has 1 response values for 2 racks"},
		{[][]float64{{1, math.NaN()}}, 2, "job 0 on 2 racks"},
		{[][]float64{{1, -1}}, 2, "job 0 on 2 racks"},
		{[][]float64{{1}}, 0, "0 racks"},
	} {
		for name, f := range map[string]func([][]float64, int) (float64, error){
			"LPBatch": LPBatch, "LPBatchSimplex": LPBatchSimplex, "bisect": lpBatchBisect,
		} {
			if _, err := f(c.resp, c.racks); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s(%v, %d): err %v, want %q", name, c.resp, c.racks, err, c.want)
			}
		}
	}
	if v, err := LPBatch(nil, 3); v != 0 || err != nil {
		t.Errorf("no jobs: %g %v", v, err)
	}
	if v, err := LPBatch([][]float64{{0, 0}}, 2); v != 0 || err != nil {
		t.Errorf("zero run times: %g %v", v, err)
	}
}

// TestLPOnlineTimeIndexedByHand: two jobs of 10 on one rack, both
// arriving at 0. The best plan runs them one after the other, average
// (10+20)/2 = 15. On slots of 1 a start in slot k is sure to fill slots
// k+1..k+9, so the LP's best is a start in slot 0 and one in slot 9:
// (10 + 19)/2 = 14.5 (the capacity rows are intervals, so the LP is
// integral). The closed form gives only 10.
func TestLPOnlineTimeIndexedByHand(t *testing.T) {
	resp := [][]float64{{10}, {10}}
	got, err := LPOnlineTimeIndexed(resp, nil, 20) // H = 20, Δ = 1
	if err != nil {
		t.Fatal(err)
	}
	if !relNear(got, 14.5) {
		t.Errorf("time-indexed LP-Online %g, want 14.5", got)
	}
	// a job arriving at 5 cannot start before 5: its own run time
	got, err = LPOnlineTimeIndexed([][]float64{{10, 6}}, []float64{5}, 16)
	if err != nil || !relNear(got, 6) {
		t.Errorf("one job: %g %v, want 6", got, err)
	}
}

// TestLPOnlineTimeIndexedProperties: on seeded small instances the
// time-indexed bound is at least the closed form and at most the
// planner's average completion time.
func TestLPOnlineTimeIndexedProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	stronger := 0
	for n := 0; n < 25; n++ {
		J, R := 1+rng.IntN(6), 1+rng.IntN(3)
		resp := randomTable(rng, J, R)
		arr := make([]float64, J)
		for j := range arr {
			arr[j] = math.Round(rng.Float64() * 50)
		}
		ti, err := LPOnlineTimeIndexed(resp, arr, 30)
		if err != nil {
			t.Fatalf("instance %d (%d×%d): %v", n, J, R, err)
		}
		p, err := PlanTable(resp, arr, Options{Objective: Online})
		if err != nil {
			t.Fatal(err)
		}
		closed := LPOnlineClosedForm(resp)
		if ti < closed*(1-1e-9) || ti > p.Objective*(1+1e-9) {
			t.Errorf("instance %d: time-indexed %g outside [closed form %g, plan %g]", n, ti, closed, p.Objective)
		}
		if ti > closed*(1+1e-6) {
			stronger++
		}
	}
	if stronger == 0 {
		t.Error("the time-indexed bound never beat the closed form")
	}
}

func TestLPOnlineTimeIndexedLimits(t *testing.T) {
	resp := randomTable(rand.New(rand.NewPCG(2, 2)), 20, 10)
	if _, err := LPOnlineTimeIndexed(resp, nil, 50); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("20×10×50: err %v, want the size limit", err)
	}
	for _, c := range []struct {
		arr   []float64
		slots int
		want  string
	}{
		{[]float64{1}, 10, "1 arrivals for 20 jobs"},
		{nil, 0, "0 time slots"},
		{append(make([]float64, 19), -1), 10, "job 19: arrival -1"},
	} {
		if _, err := LPOnlineTimeIndexed(resp, c.arr, c.slots); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}

// TestComputeBoundLater: without Options.LowerBound the plan has no
// bound until ComputeBound, which gives the same one; the policy's
// PlanBound says when there is no plan.
func TestComputeBoundLater(t *testing.T) {
	resp := [][]float64{{30, 16, 12}, {6, 5, 5}, {6, 5, 5}}
	p, err := PlanTable(resp, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Bound != (Bound{}) {
		t.Fatalf("bound %+v before ComputeBound", p.Bound)
	}
	b, err := p.ComputeBound()
	if err != nil || !relNear(b.Value, 15) || p.Bound != b {
		t.Errorf("ComputeBound %+v %v, plan's %+v, want 15", b, err, p.Bound)
	}
	if _, _, err := New(DefaultConfig()).PlanBound(); err == nil {
		t.Error("PlanBound without a plan: no error")
	}
}
