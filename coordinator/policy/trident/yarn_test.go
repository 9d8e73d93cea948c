package trident

import (
	"reflect"
	"slices"
	"testing"
)

// Fig. 3 (spec §2.9.1): the requests the AM builds for Fig. 2A's tasks.
func TestBuildRequestsFig3(t *testing.T) {
	p := DefaultProfile()
	rq := BuildRequests(&p, fig2Tasks())
	M, S, H := p.Memory, p.SSD, p.HDD
	want := map[int]Request{
		1: {2, []ScoreCount{{M, 1}, {H, 1}}},
		2: {2, []ScoreCount{{M, 1}, {S, 1}}},
		3: {2, []ScoreCount{{S, 1}, {H, 1}}},
		4: {3, []ScoreCount{{S, 2}, {H, 1}}},
	}
	if len(rq.Node) != len(want) {
		t.Errorf("%d node requests, want %d", len(rq.Node), len(want))
	}
	for n, w := range want {
		if got := rq.Node[n]; got == nil || !reflect.DeepEqual(*got, w) {
			t.Errorf("node N%d: %+v, want %+v", n, got, w)
		}
	}
	both := Request{3, []ScoreCount{{M, 2}, {S, 1}}}
	if got := rq.Rack[0]; got == nil || !reflect.DeepEqual(*got, both) || !reflect.DeepEqual(rq.Racks, []int{0}) {
		t.Errorf("rack r1: %+v (racks %v), want %+v", got, rq.Racks, both)
	}
	if !reflect.DeepEqual(rq.Any, both) {
		t.Errorf("*: %+v, want %+v", rq.Any, both)
	}
}

// §8.7: ADD_CONTAINERS uses each score as many times as its count (the
// errata's decrementing counter), plus the rack cost.
func TestAddContainers(t *testing.T) {
	p := DefaultProfile()
	q := Request{Containers: 6, PrefMap: []ScoreCount{{p.Memory, 2}, {p.SSD, 3}, {p.HDD, 1}}}
	costs := func(k int, rackCost int64) []int64 {
		var out []int64
		for _, c := range AddContainers(nil, k, Slot{Node: 7}, &q, rackCost) {
			out = append(out, c.Cost)
		}
		return out
	}
	for _, c := range []struct {
		k        int
		rackCost int64
		want     []int64
	}{
		{3, 0, []int64{1, 1, 8}},
		{6, 0, []int64{1, 1, 8, 8, 8, 20}},
		{3, p.C1, []int64{31, 31, 38}},
		{8, 0, []int64{1, 1, 8, 8, 8, 20}}, // the map holds 6: no more
	} {
		if got := costs(c.k, c.rackCost); !slices.Equal(got, c.want) {
			t.Errorf("k=%d rackCost=%d: %v, want %v", c.k, c.rackCost, got, c.want)
		}
	}
}

// Fig. 3's worked example (§2.9.2) and §8.2's RM side: free N1 2, N2 1,
// N3 0, N4 4 give potentials M(N1) M(N2) S(N4) S(N4) H(N1) H(N4); the RM
// allocates N1(M), N2(M), N4(S) and the AM's matching over them costs 10.
func TestAllocateFig3ThenAM(t *testing.T) {
	p := DefaultProfile()
	tasks := fig2Tasks()
	rq := BuildRequests(&p, tasks)
	sets := []ResourceSet{{Node: 1, Free: 2}, {Node: 2, Free: 1}, {Node: 3, Free: 0}, {Node: 4, Free: 4}, {Node: 5, Free: 3}, {Node: 6, Free: 3}}
	var al Allocator
	got, err := al.Allocate(&p, &rq, sets, -1)
	if err != nil {
		t.Fatal(err)
	}
	type nc struct {
		node int
		cost int64
	}
	var have []nc
	for _, c := range got {
		have = append(have, nc{c.Slot.Node, c.Cost})
	}
	if want := []nc{{1, 1}, {2, 1}, {4, 8}}; !slices.Equal(have, want) {
		t.Fatalf("allocated %v, want %v", have, want)
	}
	// the AM: the containers as resource sets, then Trident's matching
	var amSets []ResourceSet
	for _, c := range got {
		amSets = append(amSets, ResourceSet{Node: c.Slot.Node, Free: 1})
	}
	s := Scheduler{Profile: p, Pruning: PruningPaper}
	pairs, total, err := s.Schedule(tasks, amSets)
	if err != nil {
		t.Fatal(err)
	}
	if total != 10 || len(pairs) != 3 {
		t.Errorf("AM matching: %d pairs of total %d, want 3 of 10", len(pairs), total)
	}
	// a cap below "*" (maxContainers from the queue) takes the cheapest
	if capped, _ := al.Allocate(&p, &rq, sets, 2); len(capped) != 2 || capped[0].Cost != 1 || capped[1].Cost != 1 {
		t.Errorf("capped at 2: %+v", capped)
	}
}

// Too few node-local potentials: the rack pass adds rack-local ones at
// C1 + the rack's best score, a node's capacity counted once over both
// passes; then the off-rack pass adds the rest at C2.
func TestAllocateRackAndOffRackPasses(t *testing.T) {
	p := DefaultProfile()
	// three tasks, each with one HDD replica on node 0 (rack 0)
	tasks := []Task{
		{Prefs: []Preference{{Node: 0, Rack: 0, Tier: HDD}}},
		{Prefs: []Preference{{Node: 0, Rack: 0, Tier: HDD}}},
		{Prefs: []Preference{{Node: 0, Rack: 0, Tier: HDD}}},
	}
	rq := BuildRequests(&p, tasks)
	// node 0 fits 1, node 1 (rack 0) fits 1, node 2 (rack 1) fits 2
	sets := []ResourceSet{{Node: 0, Rack: 0, Free: 1}, {Node: 1, Rack: 0, Free: 1}, {Node: 2, Rack: 1, Free: 2}}
	var al Allocator
	got, err := al.Allocate(&p, &rq, sets, -1)
	if err != nil {
		t.Fatal(err)
	}
	var costs []int64
	perNode := map[int]int{}
	for _, c := range got {
		costs = append(costs, c.Cost)
		perNode[c.Slot.Node]++
	}
	if want := []int64{p.HDD, p.C1 + p.HDD, p.C2}; !slices.Equal(costs, want) {
		t.Errorf("costs %v, want %v", costs, want)
	}
	if perNode[0] != 1 || perNode[1] != 1 || perNode[2] != 1 {
		t.Errorf("containers per node %v, want one on each of 0, 1 and 2 (node 0 counted once)", perNode)
	}
	if _, err := al.Allocate(&p, &rq, []ResourceSet{{Node: 0, Free: -1}}, -1); err == nil {
		t.Error("a negative free count passes")
	}
}
