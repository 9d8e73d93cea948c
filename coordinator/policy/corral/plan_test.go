package corral

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) <= eps*math.Max(1, math.Abs(b)) }

// want is the expected plan of a hand-computed scenario.
type want struct {
	racks      [][]int
	starts     []float64
	priorities []int
	objective  float64
	trace      []float64
}

func checkPlan(t *testing.T, p *Plan, w want) {
	t.Helper()
	for j, a := range p.Jobs {
		if !slices.Equal(a.Racks, w.racks[j]) {
			t.Errorf("job %d: racks %v, want %v", j, a.Racks, w.racks[j])
		}
		if !near(a.Start, w.starts[j]) {
			t.Errorf("job %d: start %g, want %g", j, a.Start, w.starts[j])
		}
		if a.Priority != w.priorities[j] {
			t.Errorf("job %d: priority %d, want %d", j, a.Priority, w.priorities[j])
		}
	}
	if !near(p.Objective, w.objective) {
		t.Errorf("objective %g, want %g", p.Objective, w.objective)
	}
	if len(p.Trace) != len(w.trace) {
		t.Fatalf("trace %v, want %v", p.Trace, w.trace)
	}
	for i := range w.trace {
		if !near(p.Trace[i], w.trace[i]) {
			t.Errorf("candidate %d: objective %g, want %g (trace %v)", i, p.Trace[i], w.trace[i], p.Trace)
		}
	}
	if p.Candidates != len(w.trace) {
		t.Errorf("%d candidates, want %d", p.Candidates, len(w.trace))
	}
}

// TestScenario1 is corral.md §8 Scenario 1: batch on 2 racks, where
// every job on one rack (LPT) wins.
func TestScenario1(t *testing.T) {
	p, err := PlanTable([][]float64{{12, 7}, {6, 4}, {5, 4}}, nil, Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, p, want{
		racks:      [][]int{{0}, {1}, {1}},
		starts:     []float64{0, 0, 6},
		priorities: []int{0, 1, 2},
		objective:  12,
		trace:      []float64{12, 13, 16, 15},
	})
	if p.Best != 0 {
		t.Errorf("best candidate %d, want it0", p.Best)
	}
}

// TestScenario2 is §8 Scenario 2: batch on 3 racks, where widening the
// dominant job to 2 racks wins.
func TestScenario2(t *testing.T) {
	p, err := PlanTable([][]float64{{30, 16, 12}, {6, 5, 5}, {6, 5, 5}}, nil, Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, p, want{
		racks:      [][]int{{0, 1}, {2}, {2}},
		starts:     []float64{0, 0, 6},
		priorities: []int{0, 1, 2},
		objective:  16,
		trace:      []float64{30, 16, 18, 18, 22, 22, 22},
	})
}

// TestScenario4 is §8 Scenario 4: online on 2 racks; the small jobs no
// longer queue behind the big one.
func TestScenario4(t *testing.T) {
	resp := [][]float64{{12, 7}, {2, 2}, {6, 4}}
	p, err := PlanTable(resp, []float64{0, 1, 3}, Options{Objective: Online, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, p, want{
		racks:      [][]int{{0}, {1}, {1}},
		starts:     []float64{0, 1, 3},
		priorities: []int{0, 1, 2},
		objective:  20.0 / 3,
		trace:      []float64{20.0 / 3, 25.0 / 3, 25.0 / 3, 25.0 / 3},
	})
	// tie variant: B and C both arrive at 1, so the secondary key (longest
	// first) puts C (6) ahead of B (2) on rack 1
	p, err = PlanTable(resp, []float64{0, 1, 1}, Options{Objective: Online})
	if err != nil {
		t.Fatal(err)
	}
	b, c := p.Jobs[1], p.Jobs[2]
	if !near(c.Start, 1) || !near(b.Start, 7) || c.Priority > b.Priority {
		t.Errorf("tie variant: C starts %g (p%d), B %g (p%d); want C at 1 before B at 7", c.Start, c.Priority, b.Start, b.Priority)
	}
}

// scenario3 is §8 Scenario 3's cluster, in GB and seconds: 2 racks of 2
// one-slot machines, B = 4 GB/s, V = 4.
var scenario3 = Cluster{Racks: 2, MachinesPerRack: 2, SlotsPerMachine: 1, NICBps: 4, Oversubscription: 4}

var (
	jobX = Job{ID: "X", InputBytes: 16, ShuffleBytes: 24, OutputBytes: 8, MapTasks: 8, ReduceTasks: 4, MapRate: 1, ReduceRate: 0.5}
	jobY = Job{ID: "Y", InputBytes: 2, ShuffleBytes: 24, OutputBytes: 4, MapTasks: 2, ReduceTasks: 2, MapRate: 1, ReduceRate: 1}
)

// TestScenario3Response is §8 Scenario 3's response-function formula
// (§2.4.2) and penalty (§2.5), against the spec's hand-computed values.
func TestScenario3Response(t *testing.T) {
	alpha := DefaultAlpha(scenario3)
	if !near(alpha, 0.5) {
		t.Fatalf("α = %g, want 0.5 s/GB (1 / the 2 GB/s uplink)", alpha)
	}
	m := Model{ShuffleWaveMultiplier: true, Alpha: alpha}
	for _, c := range []struct {
		job       Job
		r         int
		latency   float64
		penalised float64
	}{
		{jobX, 1, 20, 28}, // map 8 + shuffle 2 waves × 2 + reduce 8
		{jobX, 2, 11, 15}, // map 4 + shuffle 1 × max(core 3, local 0.5) + reduce 4
		{jobY, 1, 5, 6},   // map 1 + shuffle 2 + reduce 2
		{jobY, 2, 6, 6.5}, // the core term makes Y slower on 2 racks
	} {
		if got := m.Latency(c.job, scenario3, c.r); !near(got, c.latency) {
			t.Errorf("L_%s(%d) = %g, want %g", c.job.ID, c.r, got, c.latency)
		}
		if got := m.Penalised(c.job, scenario3, c.r); !near(got, c.penalised) {
			t.Errorf("L'_%s(%d) = %g, want %g", c.job.ID, c.r, got, c.penalised)
		}
	}
	// the per-wave-corrected variant does not multiply X's r = 1 shuffle
	// (2 reduce waves) by the waves: 8 + 2 + 8
	if got := (Model{}).Latency(jobX, scenario3, 1); !near(got, 18) {
		t.Errorf("L_X(1) without the wave multiplier = %g, want 18", got)
	}
	// background traffic shrinks the core share: at 50%, V_eff = 8 and
	// X's core term on 2 racks doubles to 6
	bg := scenario3
	bg.BackgroundShare = 0.5
	if got := (Model{ShuffleWaveMultiplier: true}).Latency(jobX, bg, 2); !near(got, 14) {
		t.Errorf("L_X(2) with 50%% background = %g, want 14", got)
	}
}

// TestScenario3Plan is §8 Scenario 3's plan, with and without the
// penalty: X on both racks first, then Y on rack 0.
func TestScenario3Plan(t *testing.T) {
	for _, c := range []struct {
		name        string
		alpha       float64
		startY      float64
		objective   float64
		trace       []float64
		unpenalised float64
	}{
		{"no penalty", 0, 11, 16, []float64{20, 16, 17}, 16},
		{"penalty", 0.5, 15, 21, []float64{28, 21, 21.5}, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := PlanJobs([]Job{jobX, jobY}, scenario3, Model{ShuffleWaveMultiplier: true, Alpha: c.alpha}, Options{Trace: true})
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, p, want{
				racks:      [][]int{{0, 1}, {0}},
				starts:     []float64{0, c.startY},
				priorities: []int{0, 1},
				objective:  c.objective,
				trace:      c.trace,
			})
			if !near(p.Unpenalised, c.unpenalised) {
				t.Errorf("unpenalised objective %g, want %g", p.Unpenalised, c.unpenalised)
			}
		})
	}
}

// TestBadInput checks that what the model cannot use is refused with an
// error, not a panic or a plan.
func TestBadInput(t *testing.T) {
	if _, err := PlanTable([][]float64{{1, 2}, {1}}, nil, Options{}); err == nil {
		t.Error("ragged table accepted")
	}
	if _, err := PlanTable([][]float64{{1, math.NaN()}}, nil, Options{}); err == nil {
		t.Error("NaN run time accepted")
	}
	if _, err := PlanTable([][]float64{{1}}, []float64{-1}, Options{Objective: Online}); err == nil {
		t.Error("negative arrival accepted")
	}
	bad := scenario3
	bad.Oversubscription = 0.5
	if _, err := PlanJobs([]Job{jobX}, bad, Model{}, Options{}); err == nil {
		t.Error("V = 0.5 accepted")
	}
	noRate := jobX
	noRate.MapRate = 0
	if _, err := PlanJobs([]Job{noRate}, scenario3, Model{}, Options{}); err == nil {
		t.Error("job without a map rate accepted")
	}
}

// randomTable draws J jobs' response functions on R racks: each falls
// with r towards a floor, sometimes rising again (as Y does).
func randomTable(rng *rand.Rand, J, R int) [][]float64 {
	resp := make([][]float64, J)
	for j := range resp {
		base := 1 + rng.Float64()*100
		floor := rng.Float64()
		resp[j] = make([]float64, R)
		for r := 1; r <= R; r++ {
			v := base * (floor + (1-floor)/float64(r))
			if rng.IntN(4) == 0 {
				v *= 1 + rng.Float64()*0.3
			}
			resp[j][r-1] = math.Round(v*4) / 4 // quarter units make ties
		}
	}
	return resp
}

// lpt is Graham's LPT on R identical machines, computed on its own: the
// longest job first to the least-loaded machine.
func lpt(times []float64, R int) float64 {
	sorted := slices.Clone(times)
	sort.Sort(sort.Reverse(sort.Float64Slice(sorted)))
	load := make([]float64, R)
	for _, d := range sorted {
		i := slices.Index(load, slices.Min(load))
		load[i] += d
	}
	return slices.Max(load)
}

// TestScenario6Properties is §8 Scenario 6's planner properties, on
// seeded random instances.
func TestScenario6Properties(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for n := 0; n < 200; n++ {
		J, R := 1+rng.IntN(12), 1+rng.IntN(6)
		resp := randomTable(rng, J, R)
		arr := make([]float64, J)
		for j := range arr {
			arr[j] = math.Round(rng.Float64() * 50)
		}
		for _, obj := range []Objective{Batch, Online} {
			p, err := PlanTable(resp, arr, Options{Objective: obj, Trace: true})
			if err != nil {
				t.Fatal(err)
			}
			// P evaluates exactly 1 + Σ_j (R − 1) candidates, and keeps
			// one no worse than every job on one rack
			if want := 1 + J*(R-1); p.Candidates != want || len(p.Trace) != want {
				t.Fatalf("#%d %s: %d candidates, want %d", n, obj, p.Candidates, want)
			}
			if p.Objective > p.Trace[0]+eps || p.Objective != slices.Min(p.Trace) {
				t.Errorf("#%d %s: objective %g, it0 %g, best of trace %g", n, obj, p.Objective, p.Trace[0], slices.Min(p.Trace))
			}
			if obj == Batch {
				ones := make([]float64, J)
				for j := range ones {
					ones[j] = resp[j][0]
				}
				// with every r_j = 1, Q is LPT on R identical machines
				if want := lpt(ones, R); !near(p.Trace[0], want) {
					t.Errorf("#%d: it0 makespan %g, LPT %g", n, p.Trace[0], want)
				}
			}
			checkSchedule(t, n, p, resp, arr, obj)
		}
	}
}

// checkSchedule checks a plan against the model: starts no earlier than
// arrivals, no rack running two jobs at once, F_i non-decreasing through
// the list in batch mode, and the objective the fast evaluation found
// equal to the one of the schedule with rack ids.
func checkSchedule(t *testing.T, n int, p *Plan, resp [][]float64, arr []float64, obj Objective) {
	t.Helper()
	R := len(resp[0])
	var total, makespan float64
	busy := make([][][2]float64, R)
	for j, a := range p.Jobs {
		if len(a.Racks) < 1 || len(a.Racks) > R || !near(a.Duration, resp[j][len(a.Racks)-1]) {
			t.Fatalf("#%d job %d: racks %v, duration %g", n, j, a.Racks, a.Duration)
		}
		if obj == Online && a.Start < arr[j] {
			t.Errorf("#%d job %d starts at %g before it arrives at %g", n, j, a.Start, arr[j])
		}
		for _, i := range a.Racks {
			for _, iv := range busy[i] {
				if a.Start < iv[1]-eps && iv[0] < a.Finish()-eps && a.Duration > 0 && iv[1] > iv[0] {
					t.Errorf("#%d rack %d: job %d [%g,%g) overlaps [%g,%g)", n, i, j, a.Start, a.Finish(), iv[0], iv[1])
				}
			}
			busy[i] = append(busy[i], [2]float64{a.Start, a.Finish()})
		}
		makespan = math.Max(makespan, a.Finish())
		total += a.Finish() - arr[j]
	}
	want := makespan
	if obj == Online {
		want = total / float64(len(p.Jobs))
	} else {
		// the list O of the kept widths: widest, then longest, then index
		order := make([]int, len(p.Jobs))
		for j := range order {
			order[j] = j
		}
		sort.SliceStable(order, func(x, y int) bool {
			a, b := p.Jobs[order[x]], p.Jobs[order[y]]
			if len(a.Racks) != len(b.Racks) {
				return len(a.Racks) > len(b.Racks)
			}
			return a.Duration > b.Duration
		})
		for k := 1; k < len(order); k++ {
			if p.Jobs[order[k]].Start < p.Jobs[order[k-1]].Start {
				t.Errorf("#%d: batch starts fall along the list: job %d at %g after job %d at %g", n, order[k], p.Jobs[order[k]].Start, order[k-1], p.Jobs[order[k-1]].Start)
			}
		}
	}
	if !near(p.Objective, want) {
		t.Errorf("#%d %s: objective %g, the schedule's %g", n, obj, p.Objective, want)
	}
	seen := make([]bool, len(p.Jobs))
	for _, a := range p.Jobs {
		if a.Priority < 0 || a.Priority >= len(p.Jobs) || seen[a.Priority] {
			t.Fatalf("#%d: priorities are not a ranking", n)
		}
		seen[a.Priority] = true
	}
}

// TestDeterministic checks that the same input gives the same plan.
func TestDeterministic(t *testing.T) {
	resp := randomTable(rand.New(rand.NewPCG(1, 2)), 40, 8)
	a, _ := PlanTable(resp, nil, Options{})
	b, _ := PlanTable(resp, nil, Options{})
	for j := range a.Jobs {
		if !slices.Equal(a.Jobs[j].Racks, b.Jobs[j].Racks) || a.Jobs[j].Priority != b.Jobs[j].Priority {
			t.Fatalf("job %d planned twice differently", j)
		}
	}
}

// TestEarlyStop checks §2.3.1's optional variant stops once the wide
// jobs hold R racks: on Scenario 2 it stops after widening A to 3.
func TestEarlyStop(t *testing.T) {
	p, err := PlanTable([][]float64{{30, 16, 12}, {6, 5, 5}, {6, 5, 5}}, nil, Options{EarlyStop: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Candidates != 3 || p.Objective != 16 {
		t.Errorf("early stop: %d candidates, objective %g; want 3 and 16", p.Candidates, p.Objective)
	}
}

// TestDAGResponse checks §2.4.5's stage model: a two-stage DAG is the
// MapReduce model (Scenario 3's X), and a diamond's critical path moves
// from the compute branch at r = 1 to the shuffle branch at r = 2.
func TestDAGResponse(t *testing.T) {
	m := Model{ShuffleWaveMultiplier: true}
	x := Job{ID: "X", InputBytes: 16, Stages: []Stage{
		{Tasks: 8, TaskSeconds: 2},                               // (D^I/N^M)/B_M
		{Tasks: 4, TaskSeconds: 4, InBytes: 24, After: []int{0}}, // (D^O/N^R)/B_R
	}}
	for r, want := range map[int]float64{1: 20, 2: 11} {
		if got := m.Latency(x, scenario3, r); !near(got, want) {
			t.Errorf("X as a DAG on %d racks: %g, want %g", r, got, want)
		}
	}
	// A → {B compute-heavy, C shuffle-heavy} → D
	diamond := Job{ID: "D", Stages: []Stage{
		{Tasks: 4, TaskSeconds: 1},
		{Tasks: 8, TaskSeconds: 1, After: []int{0}},
		{Tasks: 2, InBytes: 24, After: []int{0}},
		{Tasks: 1, TaskSeconds: 1, After: []int{1, 2}},
	}}
	// r=1: A 2 + B 4 + D 1 = 7 (C's path: 2 + 2 + 1 = 5)
	// r=2: A 1 + C 3 (core) + D 1 = 5 (B's path: 1 + 2 + 1 = 4)
	for r, want := range map[int]float64{1: 7, 2: 5} {
		if got := m.Latency(diamond, scenario3, r); !near(got, want) {
			t.Errorf("diamond on %d racks: %g, want %g", r, got, want)
		}
	}
	bad := Job{ID: "loop", Stages: []Stage{{Tasks: 1, After: []int{0}}}}
	if bad.Check() == nil {
		t.Error("a stage following itself was accepted")
	}
}

// Finite run times whose sums overflow leave every candidate's objective
// at +Inf: the planner says so, where it indexed an empty plan and
// panicked (the args that led there are refused since, but the table
// may come from anywhere).
func TestPlanTableWhoseObjectivesOverflow(t *testing.T) {
	for _, obj := range []Objective{Batch, Online} {
		p, err := PlanTable([][]float64{{math.MaxFloat64}, {math.MaxFloat64}}, nil, Options{Objective: obj})
		if err == nil || !strings.Contains(err.Error(), "every plan of the 2 jobs has an objective past the largest float") {
			t.Errorf("objective %v: %v, %v", obj, p, err)
		}
	}
}
