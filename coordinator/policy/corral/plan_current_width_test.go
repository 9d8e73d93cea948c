package corral

import "testing"

// TestPlanUsesCurrentWidth checks that Algorithm P and Q read each job's
// run time at its current width r_j (corral.md §2.3.1: "Longest means
// the largest current predicted run time L'_j(r_j)"; §2.3.2 Q1: key
// (−r_j, −L'_j(r_j), index)), not its one-rack run time. §8's scenarios
// never order jobs differently at r = 1 and at r_j. Batch, 3 racks:
// A = (10, 2, 6) is long alone and short on 2 racks; B = (9, 5, 5).
//
//	it0 (1,1): A r0 [0,10], B r1 [0,9]                       → 10
//	  longest: A (10) → r_A = 2
//	it1 (2,1): A {0,1} [0,2], B r2 [0,9]                     → 9
//	  longest now: B (9 > A's 2) → r_B = 2
//	it2 (2,2): Q1 puts B (5) before A (2): B {0,1} [0,5];
//	           A takes r2 (F 0) and r0 (F 5): {0,2} [5,7]    → 7
//	  longest: B (5) → r_B = 3
//	it3 (2,3): B all [0,5], A {0,1} [5,7]                    → 7
//	it4 (3,3): A (6) before B (5): A [0,6], B [6,11]         → 11
//
// Kept: it2, makespan 7, B first (priority 0). Choosing the longest by
// L'(1) would widen A again at it1 (10 > 9): trace 10, 9, 15, 11, 11,
// makespan 9. Sorting by L'(1) would put A before B at it2: A {0,1}
// [0,2], B {0,2} [2,7], A first.
func TestPlanUsesCurrentWidth(t *testing.T) {
	p, err := PlanTable([][]float64{{10, 2, 6}, {9, 5, 5}}, nil, Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, p, want{
		racks:      [][]int{{0, 2}, {0, 1}},
		starts:     []float64{5, 0},
		priorities: []int{1, 0},
		objective:  7,
		trace:      []float64{10, 9, 7, 7, 11},
	})
	if p.Best != 2 {
		t.Errorf("best candidate %d, want it2", p.Best)
	}
}
