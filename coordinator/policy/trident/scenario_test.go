package trident

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The hand-computed scenarios of trident.md §8, profile P unless stated.
// As §2.11 asks, they assert the optimal total and the multiset of
// locality classes (slots of one node are interchangeable).

// fig2Tasks are the tasks of §8.2 (paper's Fig. 2), all in rack 0.
func fig2Tasks() []Task {
	return []Task{
		{Prefs: []Preference{{Node: 1, Tier: Memory}, {Node: 2, Tier: SSD}, {Node: 4, Tier: HDD}}},
		{Prefs: []Preference{{Node: 1, Tier: HDD}, {Node: 3, Tier: SSD}, {Node: 4, Tier: SSD}}},
		{Prefs: []Preference{{Node: 2, Tier: Memory}, {Node: 3, Tier: HDD}, {Node: 4, Tier: SSD}}},
	}
}

func classes(as []Assignment) []Class {
	var cs []Class
	for _, a := range as {
		cs = append(cs, a.Class)
	}
	slices.Sort(cs)
	return cs
}

type scenario struct {
	name    string
	profile Profile
	pruning Pruning
	tasks   []Task
	sets    []ResourceSet
	total   int64
	classes []Class
	check   func(t *testing.T, as []Assignment)
}

func runScenario(t *testing.T, sc scenario) {
	t.Helper()
	s := Scheduler{Profile: sc.profile, Pruning: sc.pruning}
	as, total, err := s.Schedule(sc.tasks, sc.sets)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, a := range as {
		sum += a.Cost
	}
	if total != sc.total || sum != total {
		t.Errorf("total %d (assignments sum to %d), want %d; %+v", total, sum, sc.total, as)
	}
	if got := classes(as); !slices.Equal(got, sc.classes) {
		t.Errorf("classes %v, want %v", got, sc.classes)
	}
	if sc.check != nil {
		sc.check(t, as)
	}
}

func TestScenarios(t *testing.T) {
	p := DefaultProfile()
	p40 := p
	p40.C1 = 40
	// §8.1: rack A = {1, 2}, rack B = {3, 4}; node 4 busy.
	rackAB := func(n int) int { return (n - 1) / 2 }
	pr := func(n int, tier Tier) Preference { return Preference{Node: n, Rack: rackAB(n), Tier: tier} }
	t81 := []Task{
		{Prefs: []Preference{pr(1, HDD), pr(2, Memory), pr(4, SSD)}},
		{Prefs: []Preference{pr(1, Memory), pr(3, HDD), pr(4, HDD)}},
		{Prefs: []Preference{pr(2, SSD), pr(3, Memory), pr(4, HDD)}},
		{Prefs: []Preference{pr(1, SSD), pr(2, HDD), pr(4, Memory)}},
	}
	s81 := []ResourceSet{{Node: 1, Rack: 0, Free: 2}, {Node: 2, Rack: 0, Free: 1}, {Node: 3, Rack: 1, Free: 1}, {Node: 4, Rack: 1, Free: 0}}
	// §8.3: rack A = {1, 2, 3} free, rack B = {5, 6} busy.
	pa := func(n int, tier Tier) Preference { return Preference{Node: n, Rack: n / 5, Tier: tier} }
	t83 := []Task{
		{Prefs: []Preference{pa(1, Memory), pa(5, HDD), pa(6, HDD)}},
		{Prefs: []Preference{pa(1, Memory), pa(2, HDD), pa(5, HDD)}},
		{Prefs: []Preference{pa(2, Memory), pa(3, HDD), pa(6, HDD)}},
	}
	s83 := []ResourceSet{{Node: 1, Free: 1}, {Node: 2, Free: 1}, {Node: 3, Free: 1}}
	var sixNodes []ResourceSet
	for n := 1; n <= 6; n++ {
		sixNodes = append(sixNodes, ResourceSet{Node: n, Free: 3})
	}
	// §8.6: rack A = {1, 2, 3, 7}, rack B = {4, 5, 6}; all replicas HDD.
	rack86 := func(n int) int {
		if n >= 4 && n <= 6 {
			return 1
		}
		return 0
	}
	p86 := func(ns ...int) Task {
		var t Task
		for _, n := range ns {
			t.Prefs = append(t.Prefs, Preference{Node: n, Rack: rack86(n), Tier: HDD})
		}
		return t
	}
	t86 := []Task{p86(1, 2, 3), p86(1, 2, 3), p86(1, 2, 3), p86(1, 2, 3), p86(4, 5, 6)}
	var s86 []ResourceSet
	for n, free := range map[int]int{1: 1, 2: 1, 3: 1, 4: 3, 5: 3, 6: 3, 7: 3} {
		s86 = append(s86, ResourceSet{Node: n, Rack: rack86(n), Free: free})
	}
	slices.SortFunc(s86, func(a, b ResourceSet) int { return a.Node - b.Node })

	for _, sc := range []scenario{
		{name: "8.1 tiers beat the busy node", profile: p, tasks: t81, sets: s81, total: 11,
			classes: []Class{MemoryLocal, MemoryLocal, MemoryLocal, SSDLocal}},
		{name: "8.2 Fig. 2", profile: p, tasks: fig2Tasks(), total: 10,
			sets:    []ResourceSet{{Node: 1, Free: 2}, {Node: 2, Free: 1}, {Node: 4, Free: 1}},
			classes: []Class{MemoryLocal, MemoryLocal, SSDLocal},
			check: func(t *testing.T, as []Assignment) {
				want := map[int]int{0: 1, 1: 4, 2: 2} // task -> node, the unique optimum
				for _, a := range as {
					if want[a.Task] != a.Slot.Node {
						t.Errorf("task T%d on node N%d, want N%d", a.Task+1, a.Slot.Node, want[a.Task])
					}
				}
			}},
		{name: "8.3 sum objective, c1 = 30", profile: p, tasks: t83, sets: s83, total: 33,
			classes: []Class{MemoryLocal, MemoryLocal, RackLocal}},
		{name: "8.3 sum objective, c1 = 40", profile: p40, tasks: t83, sets: s83, total: 41,
			classes: []Class{MemoryLocal, HDDLocal, HDDLocal}},
		{name: "8.4 resource pruning", profile: p, tasks: fig2Tasks(), sets: sixNodes, total: 10,
			classes: []Class{MemoryLocal, MemoryLocal, SSDLocal}},
		{name: "8.4 without pruning", profile: p, pruning: PruningOff, tasks: fig2Tasks(), sets: sixNodes, total: 10,
			classes: []Class{MemoryLocal, MemoryLocal, SSDLocal}},
		{name: "8.5 task pruning", profile: p, tasks: fig2Tasks(), sets: []ResourceSet{{Node: 2, Free: 1}}, total: 1,
			classes: []Class{MemoryLocal},
			check: func(t *testing.T, as []Assignment) {
				if as[0].Task != 2 {
					t.Errorf("T%d got the slot on N2, want T3", as[0].Task+1)
				}
			}},
		{name: "8.6 pruning=paper loses optimality", profile: p, tasks: t86, sets: s86, total: 1080,
			classes: []Class{HDDLocal, HDDLocal, HDDLocal, HDDLocal, OffRack}},
		{name: "8.6 pruning=off", profile: p, pruning: PruningOff, tasks: t86, sets: s86, total: 130,
			classes: []Class{HDDLocal, HDDLocal, HDDLocal, HDDLocal, RackLocal},
			check: func(t *testing.T, as []Assignment) {
				for _, a := range as {
					if a.Class == RackLocal && a.Slot.Node != 7 {
						t.Errorf("rack-local task on N%d, want N7", a.Slot.Node)
					}
				}
			}},
	} {
		t.Run(sc.name, func(t *testing.T) { runScenario(t, sc) })
	}
}

// TestScenarioPruningSizes checks the graph sizes §8.4-8.6 state.
func TestScenarioPruningSizes(t *testing.T) {
	var pr Pruner
	var six []ResourceSet
	for n := 1; n <= 6; n++ {
		six = append(six, ResourceSet{Node: n, Free: 3})
	}
	slots, err := pr.ComputeSlots(nil, PruningPaper, 3, fig2Tasks(), six)
	if err != nil {
		t.Fatal(err)
	}
	perNode := map[int]int{}
	for _, s := range slots {
		perNode[s.Node]++
	}
	if want := map[int]int{1: 2, 2: 2, 3: 2, 4: 3}; fmt.Sprint(perNode) != fmt.Sprint(want) {
		t.Errorf("8.4 kept slots per node %v, want %v", perNode, want)
	}
	kept, err := pr.PruneTasks(nil, PruningPaper, 3, fig2Tasks(), []Slot{{Node: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept, []int{0, 2}) {
		t.Errorf("8.5 kept tasks %v, want [0 2] (T1, T3)", kept)
	}
}

func TestScheduleRejectsBadConfigAndHandlesEmpty(t *testing.T) {
	s := Scheduler{Profile: DefaultProfile(), Pruning: Pruning(9)}
	if _, _, err := s.Schedule(fig2Tasks(), []ResourceSet{{Node: 1, Free: 1}}); err == nil {
		t.Error("unknown pruning mode accepted")
	}
	s = Scheduler{Profile: Profile{}}
	if _, _, err := s.Schedule(fig2Tasks(), nil); err == nil {
		t.Error("zero profile accepted")
	}
	s = Scheduler{Profile: DefaultProfile()}
	for _, c := range []struct {
		tasks []Task
		sets  []ResourceSet
	}{{nil, nil}, {fig2Tasks(), nil}, {nil, []ResourceSet{{Node: 1, Free: 2}}}, {fig2Tasks(), []ResourceSet{{Node: 1}}}} {
		as, total, err := s.Schedule(c.tasks, c.sets)
		if err != nil || len(as) != 0 || total != 0 {
			t.Errorf("%d tasks, sets %v: %v %d %v, want nothing", len(c.tasks), c.sets, as, total, err)
		}
	}
}

// TestScheduleAtMostAgainstBruteForce checks the fair-share cap: with a
// limit k, the result is a minimum-cost matching of exactly
// min(k, n, m) pairs, over every choice of which tasks run.
func TestScheduleAtMostAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 14))
	s := Scheduler{Profile: DefaultProfile(), Pruning: PruningOff}
	for trial := range 600 {
		nodes := 1 + rng.IntN(4)
		tasks, sets := randomWorkload(rng, 1+rng.IntN(5), nodes, 1+rng.IntN(2), 3)
		for k := range sets {
			sets[k].Free = rng.IntN(3)
		}
		var slots []Slot
		for _, rs := range sets {
			slots = appendSlots(slots, rs, rs.Free)
		}
		limit := rng.IntN(len(tasks) + 1)
		want := min(limit, len(tasks), len(slots))
		got, total, err := s.ScheduleAtMost(tasks, sets, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Fatalf("trial %d: %d assignments, want min(limit %d, tasks %d, slots %d) = %d", trial, len(got), limit, len(tasks), len(slots), want)
		}
		var sum int64
		for _, a := range got {
			sum += a.Cost
		}
		// brute force: each task takes a free slot or none, exactly want of them
		best := int64(math.MaxInt64)
		used := make([]bool, len(slots))
		var rec func(i, placed int, cost int64)
		rec = func(i, placed int, cost int64) {
			if i == len(tasks) {
				if placed == want {
					best = min(best, cost)
				}
				return
			}
			rec(i+1, placed, cost)
			for j := range slots {
				if !used[j] && placed < want {
					used[j] = true
					c, _ := s.Profile.Cost(&tasks[i], &slots[j])
					rec(i+1, placed+1, cost+c)
					used[j] = false
				}
			}
		}
		rec(0, 0, 0)
		if sum != best || total != best {
			t.Fatalf("trial %d (limit %d): cost %d (solver total %d), brute force %d", trial, limit, sum, total, best)
		}
	}
}

// TestLocalOnlyAgainstBruteForce checks trident+delay's matching (§2.10):
// with every task LocalOnly, the pairs are a largest set of node-local
// pairs, and of those the cheapest; no pair is rack-local or off-rack.
func TestLocalOnlyAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 10))
	s := Scheduler{Profile: DefaultProfile(), Pruning: PruningOff}
	for trial := range 600 {
		tasks, sets := randomWorkload(rng, 1+rng.IntN(5), 1+rng.IntN(5), 1+rng.IntN(2), 1+rng.IntN(3))
		for k := range sets {
			sets[k].Free = rng.IntN(3)
		}
		for i := range tasks {
			tasks[i].LocalOnly = true
		}
		var slots []Slot
		for _, rs := range sets {
			slots = appendSlots(slots, rs, rs.Free)
		}
		got, total, err := s.Schedule(tasks, sets)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, a := range got {
			if a.Class > HDDLocal {
				t.Fatalf("trial %d: a %v pair for a local-only task", trial, a.Class)
			}
			sum += a.Cost
		}
		// brute force over node-local pairs only: most pairs, then cheapest
		bestN, bestCost := -1, int64(0)
		used := make([]bool, len(slots))
		var rec func(i, n int, cost int64)
		rec = func(i, n int, cost int64) {
			if i == len(tasks) {
				if n > bestN || n == bestN && cost < bestCost {
					bestN, bestCost = n, cost
				}
				return
			}
			rec(i+1, n, cost)
			for j := range slots {
				if c, class := s.Profile.Cost(&tasks[i], &slots[j]); !used[j] && class <= HDDLocal {
					used[j] = true
					rec(i+1, n+1, cost+c)
					used[j] = false
				}
			}
		}
		rec(0, 0, 0)
		if len(got) != bestN || sum != bestCost || total != bestCost {
			t.Fatalf("trial %d: %d pairs of cost %d (total %d), brute force %d of %d", trial, len(got), sum, total, bestN, bestCost)
		}
	}
	mixed := []Task{{Prefs: []Preference{{Node: 0}}, LocalOnly: true}, {Prefs: []Preference{{Node: 1}}}}
	if _, _, err := s.Schedule(mixed, []ResourceSet{{Node: 0, Free: 2}}); err == nil {
		t.Error("a call mixing local-only tasks with others passes")
	}
}
