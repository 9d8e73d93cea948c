package shadow

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// Original is one original map of a job as SHADOW-DUPLICATE sees it.
type Original struct {
	// Split identifies the map (its task index); ties and the
	// deterministic pick go by it.
	Split int
	// Rack is the rack the base scheduler placed it in.
	Rack int
	// ReplicaRacks are the racks holding a replica of its input block.
	ReplicaRacks []int
	// Done marks an original that finished in an earlier wave: it still
	// counts in its rack (its output is shuffled) but is not Eligible.
	Done bool
	// Duplicated marks an original that already has a duplicate: it
	// counts where its chosen copy runs and is never duplicated again.
	Duplicated bool
}

// DuplicateInput is the input of SHADOW-DUPLICATE (§2.4, corrected).
type DuplicateInput struct {
	// Racks is the number of racks n; rack indices are 0..n-1.
	Racks int
	// Originals are the job's original maps (all waves).
	Originals []Original
	// FreeSlots is the number of free map slots per rack; a planned
	// duplicate takes one, and a rack with none is never a target (line 6).
	// Nil means every rack has room for every duplicate.
	FreeSlots []int
	// Theta is the duplicate budget θ: at most Theta duplicates (A2). A
	// negative value means unlimited.
	Theta int
	// Rand draws RandomPick (A4). Nil is the deterministic mode: the
	// lowest split id.
	Rand *rand.Rand
}

// Duplication is one step of the plan: a copy of Split, placed in rack
// From, to run in rack To; Local when To holds a replica of its block (the
// copy reads nothing across racks and replaces the original, A5).
type Duplication struct {
	Split    int
	From, To int
	Local    bool
}

// Duplicate is SHADOW-DUPLICATE, the corrected Algorithm 1 of §2.4: the
// true max and min are recomputed before each test, the test comes before
// the first step (a balanced job gets none), and at most θ duplicates are
// made. The heavy rack a is the lowest-index rack with the most maps among
// racks with an Eligible original; the light rack b is the lowest-index
// rack with the fewest among the other racks with a free map slot (empty
// racks included, A12). A candidate with a replica in b is preferred. It
// returns the plan in order and the planned per-rack counts.
func Duplicate(in DuplicateInput) ([]Duplication, []int, error) {
	n := in.Racks
	if n <= 0 {
		return nil, nil, fmt.Errorf("shadow duplicate: %d racks, need at least 1", n)
	}
	if in.FreeSlots != nil && len(in.FreeSlots) != n {
		return nil, nil, fmt.Errorf("shadow duplicate: free slots for %d racks, cluster has %d", len(in.FreeSlots), n)
	}
	cnt := make([]int, n)
	free := make([]int, n)
	copy(free, in.FreeSlots)
	eligible := make([][]int, n) // indices into in.Originals, by split id
	for i, o := range in.Originals {
		if o.Rack < 0 || o.Rack >= n {
			return nil, nil, fmt.Errorf("shadow duplicate: split %d placed in rack %d, cluster has racks 0..%d", o.Split, o.Rack, n-1)
		}
		cnt[o.Rack]++
		if !o.Done && !o.Duplicated {
			eligible[o.Rack] = append(eligible[o.Rack], i)
		}
	}
	for r := range eligible {
		e := eligible[r]
		sort.Slice(e, func(a, b int) bool { return in.Originals[e[a]].Split < in.Originals[e[b]].Split })
	}
	hasFree := func(r int) bool { return in.FreeSlots == nil || free[r] > 0 }

	var plan []Duplication
	for {
		a := -1
		for r := 0; r < n; r++ {
			if len(eligible[r]) > 0 && (a < 0 || cnt[r] > cnt[a]) {
				a = r
			}
		}
		b := -1
		for r := 0; r < n; r++ {
			if r != a && hasFree(r) && (b < 0 || cnt[r] < cnt[b]) {
				b = r
			}
		}
		if a < 0 || b < 0 || cnt[a]-cnt[b] <= 1 {
			break
		}
		if in.Theta >= 0 && len(plan) >= in.Theta {
			break
		}
		var local []int // positions in eligible[a]
		for k, i := range eligible[a] {
			if contains(in.Originals[i].ReplicaRacks, b) {
				local = append(local, k)
			}
		}
		var k int
		isLocal := len(local) > 0
		if isLocal {
			k = local[pick(in.Rand, len(local))]
		} else {
			k = pick(in.Rand, len(eligible[a]))
		}
		o := in.Originals[eligible[a][k]]
		eligible[a] = append(eligible[a][:k:k], eligible[a][k+1:]...)
		plan = append(plan, Duplication{Split: o.Split, From: a, To: b, Local: isLocal})
		cnt[a]--
		cnt[b]++
		if in.FreeSlots != nil {
			free[b]--
		}
	}
	return plan, cnt, nil
}

// pick is RandomPick over n candidates sorted by split id: the first in
// deterministic mode.
func pick(rng *rand.Rand, n int) int {
	if rng == nil {
		return 0
	}
	return rng.IntN(n)
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// Theta turns the theta arg into a duplicate budget for a job of s maps:
// a fraction f in (0, 1] gives ⌈f·s⌉ (A3, default 0.15); 0 or +Inf means
// unlimited (-1).
func Theta(fraction float64, s int) int {
	if fraction <= 0 || fraction > 1e18 {
		return -1
	}
	x := fraction * float64(s)
	k := int(x)
	if float64(k) < x-1e-9 {
		k++
	}
	return k
}
