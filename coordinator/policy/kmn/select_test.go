package kmn

import (
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
)

func pairs(moves ...[2]cluster.RackID) []*pair {
	var ps []*pair
	for _, m := range moves {
		ps = append(ps, &pair{origRack: m[0], target: m[1]})
	}
	return ps
}

func TestGreedyTakesTheBestSwapWhileItLowersSkew(t *testing.T) {
	// S1: copies m5 R2→R3 (Skew stays 4), m1 R1→R2 (3), m2 R1→R3 (3):
	// the first best is m1's (lowest split on the tie), then m2's gives
	// {2,2,2}, Skew 1; m5's would then raise it
	ps := pairs([2]cluster.RackID{1, 2}, [2]cluster.RackID{0, 1}, [2]cluster.RackID{0, 2})
	got := greedy([]int{4, 1, 1}, []int{1, 1, 1}, ps, []int{0, 1, 2})
	if !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("greedy chose %v, want [1 2]", got)
	}
}

func TestExhaustiveFindsSwapsThatOnlyHelpTogether(t *testing.T) {
	// L = {3,3,0}, H = {1,1,1}: Skew 6/3 = 2. Either copy alone into R3
	// gives {2,3,1}, Skew 3; both give {2,2,2}, Skew 1. The greedy stops
	// at once; the exhaustive search takes both.
	ps := pairs([2]cluster.RackID{0, 2}, [2]cluster.RackID{1, 2})
	l, h := []int{3, 3, 0}, []int{1, 1, 1}
	if got := greedy(l, h, ps, []int{0, 1}); len(got) != 0 {
		t.Fatalf("greedy chose %v, want none", got)
	}
	if got := exhaustive(l, h, ps, []int{0, 1}); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("exhaustive chose %v, want [0 1]", got)
	}
}

func TestExhaustivePrefersFewerCopiesOnTies(t *testing.T) {
	// a copy into its own rack changes nothing: never worth taking
	ps := pairs([2]cluster.RackID{0, 1}, [2]cluster.RackID{2, 2})
	if got := exhaustive([]int{4, 1, 1}, []int{1, 1, 1}, ps, []int{0, 1}); !slices.Equal(got, []int{0}) {
		t.Fatalf("exhaustive chose %v, want [0]", got)
	}
}
