package corral

import "testing"

// TestPlanTieBreaks checks Algorithm P's two tie rules (corral.md §2.3.1,
// [INTERPRETATION], used by every §8 scenario), on 2 racks, batch:
// neither §8 scenario has a tie that changes the plan.
func TestPlanTieBreaks(t *testing.T) {
	for _, c := range []struct {
		name string
		resp [][]float64
		best int
		w    want
	}{
		{
			// P5, strict <: a later candidate that only ties the best
			// objective is not kept, so the narrower plan stays.
			//   it0 (1,1): A r0 [0,10], B r1 [0,3]      → 10
			//   it1 (2,1): A {0,1} [0,6], B r0 [6,9]     → 9
			//   it2 (2,2): A [0,6], B {0,1} [6,9]        → 9, a tie
			// With ≤, it2 would win and B would hold both racks.
			name: "P5 tie keeps the earlier candidate",
			resp: [][]float64{{10, 6}, {3, 3}},
			best: 1,
			w: want{
				racks: [][]int{{0, 1}, {0}}, starts: []float64{0, 6}, priorities: []int{0, 1},
				objective: 9, trace: []float64{10, 9, 9},
			},
		},
		{
			// P9, the longest job widens, ties to the lowest index:
			//   it0 (1,1,1): A r0 [0,3], B r1 [0,3], C r0 [3,6]  → 6
			//   A, B, C all run 3: A widens
			//   it1 (2,1,1): A {0,1} [0,2], B r0 [2,5], C r1 [2,5] → 5
			//   B and C tie at 3: B widens
			//   it2 (2,2,1): B [0,3], A [3,5], C r0 [5,8]          → 8
			//   it3 (2,2,2): C [0,4], B [4,7], A [7,9]             → 9
			// Ties to the highest index would widen C, then B, then A
			// (trace 6, 7, 10, 9) and keep it0, makespan 6.
			name: "P9 tie widens the lowest index",
			resp: [][]float64{{3, 2}, {3, 3}, {3, 4}},
			best: 1,
			w: want{
				racks: [][]int{{0, 1}, {0}, {1}}, starts: []float64{0, 2, 2}, priorities: []int{0, 1, 2},
				objective: 5, trace: []float64{6, 5, 8, 9},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := PlanTable(c.resp, nil, Options{Trace: true})
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, p, c.w)
			if p.Best != c.best {
				t.Errorf("best candidate %d, want it%d", p.Best, c.best)
			}
		})
	}
}
