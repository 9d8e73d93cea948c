package mapplace

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
)

func TestEvenQuotasGiveTheExtraToLowIndexRacks(t *testing.T) {
	for _, c := range []struct {
		s, n int
		want []int
	}{
		{6, 3, []int{2, 2, 2}},
		{7, 3, []int{3, 2, 2}},
		{8, 3, []int{3, 3, 2}},
		{2, 4, []int{1, 1, 0, 0}},
	} {
		if got := EvenQuotas(c.s, c.n); !slices.Equal(got, c.want) {
			t.Errorf("EvenQuotas(%d, %d) = %v, want %v", c.s, c.n, got, c.want)
		}
	}
}

func count(rs []cluster.RackID, n int) []int {
	c := make([]int, n)
	for _, r := range rs {
		c[r]++
	}
	return c
}

// S1's replicas: m1, m3 in {R1,R2}; m2, m4 in {R1,R3}; m5 in {R2,R3};
// m6 in {R3,R1} (racks 0, 1, 2).
var s1Replicas = [][]cluster.RackID{{0, 1}, {0, 2}, {0, 1}, {0, 2}, {1, 2}, {0, 2}}

func TestEvenAssignKeepsTheQuotas(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		for _, v := range []EvenVariant{Oblivious, LocalityAware} {
			got := EvenAssign(rand.New(rand.NewPCG(seed, 0)), v, s1Replicas, 3)
			if c := count(got, 3); !slices.Equal(c, []int{2, 2, 2}) {
				t.Fatalf("seed %d %s: L = %v, want {2,2,2}", seed, v, c)
			}
		}
	}
}

func TestEvenLocalityAwarePutsEverySplitItCanInAReplicaRack(t *testing.T) {
	// S1 has a perfect assignment ({m1,m2}→R1 ... ); the matching finds
	// one whatever the order, while the oblivious deal misses some
	remote := func(v EvenVariant, seed uint64) int {
		got := EvenAssign(rand.New(rand.NewPCG(seed, 0)), v, s1Replicas, 3)
		n := 0
		for i, r := range got {
			if !slices.Contains(s1Replicas[i], r) {
				n++
			}
		}
		return n
	}
	obliviousRemote := 0
	for seed := uint64(0); seed < 20; seed++ {
		if n := remote(LocalityAware, seed); n != 0 {
			t.Fatalf("seed %d: locality_aware left %d splits off their replica racks", seed, n)
		}
		obliviousRemote += remote(Oblivious, seed)
	}
	if obliviousRemote == 0 {
		t.Fatal("the oblivious deal never put a split off its replica racks in 20 seeds")
	}
}

func TestEvenLocalityAwareMovesAMatchedSplitToMakeRoom(t *testing.T) {
	// split 0 may go to R1 or R2, split 1 only to R1; quotas {1,1}: if
	// split 0 is matched first to R1, it must move to R2
	rr := [][]cluster.RackID{{0, 1}, {0}}
	for seed := uint64(0); seed < 10; seed++ {
		got := EvenAssign(rand.New(rand.NewPCG(seed, 0)), LocalityAware, rr, 2)
		if !slices.Equal(got, []cluster.RackID{1, 0}) {
			t.Fatalf("seed %d: got %v, want [1 0]", seed, got)
		}
	}
}

func TestRoundRobinQuotaS4(t *testing.T) {
	for _, c := range []struct {
		counts []int
		t      int
		want   []int
		cycle  []cluster.RackID
	}{
		{[]int{2, 2, 2}, 3, []int{1, 1, 1}, []cluster.RackID{0, 1, 2}},
		{[]int{2, 2, 2}, 4, []int{2, 1, 1}, []cluster.RackID{0, 1, 2}},
		{[]int{4, 1, 1}, 4, []int{2, 1, 1}, []cluster.RackID{0, 1, 2}},
		// descending count, ties by index; racks without maps get none
		{[]int{1, 0, 3, 1}, 4, []int{1, 0, 2, 1}, []cluster.RackID{2, 0, 3}},
		{[]int{0, 0}, 3, []int{2, 1}, []cluster.RackID{0, 1}},
	} {
		h, cycle := RoundRobinQuota(c.counts, c.t)
		if !slices.Equal(h, c.want) || !slices.Equal(cycle, c.cycle) {
			t.Errorf("RoundRobinQuota(%v, %d) = %v, %v; want %v, %v", c.counts, c.t, h, cycle, c.want, c.cycle)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := (Config{Mode: Delay, RackLocalityDelay: -1}).Validate(); err == nil {
		t.Error("a negative delay passed")
	}
	if err := (Config{Even: "random"}).Validate(); err == nil {
		t.Error("an unknown even variant passed")
	}
	if err := ValidateReducePlacement("nearest"); err == nil {
		t.Error("an unknown reduce placement passed")
	}
	if err := (Config{Mode: Even, Even: LocalityAware}).Validate(); err != nil {
		t.Error(err)
	}
}
