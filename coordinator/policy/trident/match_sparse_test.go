package trident

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// nearlyConstantCosts is a rows × cols matrix whose rows are each one
// value but for a few cheaper entries, from small ranges so that ties
// abound: the shape of Trident's cost rows.
func nearlyConstantCosts(rng *rand.Rand, rows, cols int) []int64 {
	costs := make([]int64, rows*cols)
	for i := range rows {
		def := []int64{5, 31, 38, 1000}[rng.IntN(4)]
		row := costs[i*cols : (i+1)*cols]
		for j := range row {
			row[j] = def
		}
		for range rng.IntN(4) {
			row[rng.IntN(cols)] = rng.Int64N(3) + []int64{0, 1, 30}[rng.IntN(3)]
		}
		if rng.IntN(3) == 0 { // a rack's worth of equal entries
			lo := rng.IntN(cols)
			for j := lo; j < min(cols, lo+1+rng.IntN(8)); j++ {
				row[j] = min(row[j], def-1)
			}
		}
	}
	return costs
}

// The sparse search makes the dense search's every choice: the same
// assignment, ties included, on square and rectangular matrices of both
// orientations, nearly constant rows or not.
func TestSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1024))
	var dense, sparse Matcher
	dense.mode, sparse.mode = matchDense, matchSparse
	for trial := range 4000 {
		rows, cols := 1+rng.IntN(40), 1+rng.IntN(40)
		var costs []int64
		switch trial % 3 {
		case 0, 1:
			costs = nearlyConstantCosts(rng, rows, cols)
		default:
			costs = randomCosts(rng, rows, cols, []int64{2, 3, 1000}[rng.IntN(3)], 0)
		}
		want, wantTotal, err := dense.Solve(costs, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		want = slices.Clone(want)
		got, total, err := sparse.Solve(costs, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		if total != wantTotal || !slices.Equal(got, want) {
			t.Fatalf("trial %d (%dx%d): sparse %v (total %d), dense %v (total %d); costs %v", trial, rows, cols, got, total, want, wantTotal, costs)
		}
	}
}

// A whole scheduling call of §5.5's experiment assigns the same slots
// whichever search the matcher takes, and the automatic choice is the
// sparse one from 256 rows where at most an eighth of the costs are
// below their rows' defaults: on one rack (3 cheaper entries a row) and
// on 32 racks of 1,024 nodes (about 96), not on 8 racks of 256 nodes
// (about 96 of 256), nor for 64 tasks.
func TestSparseMatchesDenseOnTridentCalls(t *testing.T) {
	for _, c := range []struct {
		n, nodes, racks int
		sparse          bool
	}{{300, 512, 1, true}, {256, 256, 8, false}, {300, 200, 4, false}, {512, 1024, 32, true}, {64, 1024, 1, false}} {
		t.Run(fmt.Sprintf("%dx%d/racks=%d", c.n, c.nodes, c.racks), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.n), uint64(c.racks)))
			tasks, sets := randomWorkload(rng, c.n, c.nodes, c.racks, 3)
			var out [3][]Assignment
			for k, mode := range []matchMode{matchDense, matchSparse, matchAuto} {
				s := Scheduler{Profile: DefaultProfile(), Pruning: PruningOff}
				s.matcher.mode = mode
				got, _, err := s.Schedule(tasks, sets)
				if err != nil {
					t.Fatal(err)
				}
				out[k] = slices.Clone(got)
				if mode == matchAuto && (s.matcher.searched == matchSparse) != c.sparse {
					t.Errorf("the automatic choice searched %s, want sparse %v", map[matchMode]string{matchDense: "densely", matchSparse: "sparsely"}[s.matcher.searched], c.sparse)
				}
			}
			if !slices.Equal(out[0], out[1]) || !slices.Equal(out[0], out[2]) {
				t.Fatalf("assignments differ: dense %v\nsparse %v\nauto %v", out[0], out[1], out[2])
			}
		})
	}
}
