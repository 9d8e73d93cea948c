package corral

import (
	"math"
	"testing"
)

// TestShuffleInRackTerm checks l_local(r) of corral.md §2.4.2 where it is
// the larger shuffle term: D_local(r) = (D^S/(r·k))·(1/r) over the NIC
// share the core leaves, B − B/V, times (k−1)/k. 2 racks of k = 2
// one-slot machines, B = 5, V = 1.25 (B/V = 4, B − B/V = 1), a job that
// only shuffles D^S = 16 into 4 reducers:
//
//	r=1: 2 reduce waves; per machine 8, l_local = 8/1 · ½ = 4      → L = 8
//	r=2: 1 wave; per machine 4, l_core = 4·½/4 = 0.5,
//	     l_local = (4·½)/1 · ½ = 1 (the in-rack term wins)          → L = 1
//
// Without the 1/r of D_local, L(2) would be 2; §8 Scenario 3 (V = 4)
// never lets l_local win at r > 1.
func TestShuffleInRackTerm(t *testing.T) {
	c := Cluster{Racks: 2, MachinesPerRack: 2, SlotsPerMachine: 1, NICBps: 5, Oversubscription: 1.25}
	j := Job{ID: "S", ShuffleBytes: 16, ReduceTasks: 4}
	m := Model{ShuffleWaveMultiplier: true}
	for r, want := range map[int]float64{1: 8, 2: 1} {
		if got := m.Latency(j, c, r); !near(got, want) {
			t.Errorf("L(%d) = %g, want %g", r, got, want)
		}
	}
}

// TestShuffleFullBisection checks the [TESTBED] case V = 1 (§2.4.2's
// B − B/V would be 0): inside a rack the NIC, B, is the only limit, and
// the run time stays finite. 2 racks of k = 2, B = 4, the job of
// TestShuffleInRackTerm:
//
//	r=1: 2 waves · (8/4 · ½)                      = 2
//	r=2: 1 wave · max(core 4·½/4 = 0.5, local 4·½/4·½ = 0.25) = 0.5
func TestShuffleFullBisection(t *testing.T) {
	c := Cluster{Racks: 2, MachinesPerRack: 2, SlotsPerMachine: 1, NICBps: 4, Oversubscription: 1}
	j := Job{ID: "S", ShuffleBytes: 16, ReduceTasks: 4}
	m := Model{ShuffleWaveMultiplier: true}
	for r, want := range map[int]float64{1: 2, 2: 0.5} {
		if got := m.Latency(j, c, r); !near(got, want) || math.IsInf(got, 0) {
			t.Errorf("L(%d) with V = 1 is %g, want %g", r, got, want)
		}
	}
}

// TestDAGCriticalPathOverSinks checks §2.4.5: L_j(r) is the longest
// source→sink path over every sink, not the path of the stage listed
// last. Source A (4 tasks of 1 s) feeds two sinks, B (4 tasks of 5 s) and
// C (4 tasks of 1 s, listed last); no shuffle bytes. On §8 Scenario 3's
// cluster (k = 2, one slot):
//
//	r=1 (2 slots): A 2 waves = 2, B 2 waves · 5 = 10, C 2 → A→B = 12 (A→C = 4)
//	r=2 (4 slots): A 1, B 5, C 1                     → A→B = 6  (A→C = 2)
func TestDAGCriticalPathOverSinks(t *testing.T) {
	j := Job{ID: "fork", Stages: []Stage{
		{Tasks: 4, TaskSeconds: 1},
		{Tasks: 4, TaskSeconds: 5, After: []int{0}},
		{Tasks: 4, TaskSeconds: 1, After: []int{0}},
	}}
	m := Model{ShuffleWaveMultiplier: true}
	for r, want := range map[int]float64{1: 12, 2: 6} {
		if got := m.Latency(j, scenario3, r); !near(got, want) {
			t.Errorf("L(%d) = %g, want %g (the longest path, A→B)", r, got, want)
		}
	}
}

// TestDAGSlotsPerMachine checks that §2.4.5's stage waves count s slots
// per machine (§2.4.4: w_s(r) = ceil(N_s/(r·k·s))), as the MapReduce
// model does. One source stage of 8 tasks of 1 s on §8 Scenario 3's
// cluster with s = 2: r=1 has 2·2 = 4 slots, 2 waves → 2 s; r=2 has 8
// slots, 1 wave → 1 s. Counting one slot per machine would give 4 and 2.
func TestDAGSlotsPerMachine(t *testing.T) {
	c := scenario3
	c.SlotsPerMachine = 2
	j := Job{ID: "src", Stages: []Stage{{Tasks: 8, TaskSeconds: 1}}}
	m := Model{ShuffleWaveMultiplier: true}
	for r, want := range map[int]float64{1: 2, 2: 1} {
		if got := m.Latency(j, c, r); !near(got, want) {
			t.Errorf("L(%d) with 2 slots per machine = %g, want %g", r, got, want)
		}
	}
}

// TestUnpenalisedOnline checks the objective §2.3.1 asks to log beside
// the planner's: the kept plan replayed with the unpenalised L, online,
// where a job starts no earlier than it arrives (§2.3.2 Q5). §8 Scenario
// 3's X (arrives 0) and Y (arrives 12), α = 0.5: L'_X = (28, 15),
// L'_Y = (6, 6.5); L_X(2) = 11, L_Y(1) = 5. Order X, Y by arrival.
//
//	it0 (1,1): X r0 [0,28] (28), Y r1 [12,18] (6)        → 17
//	it1 (2,1): X {0,1} [0,15] (15), Y r0 [15,21] (9)     → 12
//	it2 (2,2): Y {0,1} [15,21.5] (9.5)                   → 12.25
//
// Kept: it1, objective 12. Unpenalised replay: X [0,11] (11); Y's rack
// is free at 11 but Y arrives at 12: [12,17] (5) → 8. Starting Y when
// its rack frees (11, ignoring the arrival) would give 7.5.
func TestUnpenalisedOnline(t *testing.T) {
	x, y := jobX, jobY
	y.Arrival = 12
	p, err := PlanJobs([]Job{x, y}, scenario3, Model{ShuffleWaveMultiplier: true, Alpha: 0.5}, Options{Objective: Online, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, p, want{
		racks:      [][]int{{0, 1}, {0}},
		starts:     []float64{0, 15},
		priorities: []int{0, 1},
		objective:  12,
		trace:      []float64{17, 12, 12.25},
	})
	if !near(p.Unpenalised, 8) {
		t.Errorf("unpenalised objective %g, want 8", p.Unpenalised)
	}
}
