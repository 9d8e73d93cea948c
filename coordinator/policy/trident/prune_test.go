package trident

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestComputeSlotsFallbackHasNoDuplicates(t *testing.T) {
	var pr Pruner
	sets := []ResourceSet{{Node: 1, Free: 3}, {Node: 2, Free: 3}, {Node: 3, Free: 3}}
	// The gate opens (9 >= 3*2) but only one slot can host a local task:
	// the printed fallback would return that slot twice (note 1 of §2.4).
	tasks := []Task{{Prefs: []Preference{{Node: 1}}}, {}}
	slots, err := pr.ComputeSlots(nil, PruningPaper, 3, tasks, sets)
	if err != nil {
		t.Fatal(err)
	}
	if len(slots) != 9 {
		t.Fatalf("fallback returned %d slots, want all 9 once: %v", len(slots), slots)
	}
	seen := map[Slot]bool{}
	for _, s := range slots {
		if seen[s] {
			t.Fatalf("slot %+v returned twice", s)
		}
		seen[s] = true
	}
	// Only no-pref tasks: nothing is local anywhere, all slots (note 5).
	if slots, _ := pr.ComputeSlots(nil, PruningPaper, 3, []Task{{}}, sets); len(slots) != 9 {
		t.Fatalf("no-pref tasks got %d slots, want 9", len(slots))
	}
}

func TestPruningOffAndBadInput(t *testing.T) {
	var pr Pruner
	sets := []ResourceSet{{Node: 1, Free: 3}, {Node: 2, Free: 3}}
	tasks := []Task{{Prefs: []Preference{{Node: 1}}}}
	if slots, _ := pr.ComputeSlots(nil, PruningOff, 3, tasks, sets); len(slots) != 6 {
		t.Errorf("pruning=off kept %d of 6 slots", len(slots))
	}
	if slots, _ := pr.ComputeSlots(nil, PruningPaper, 3, tasks, sets); len(slots) != 1 || slots[0].Node != 1 {
		t.Errorf("pruning=paper kept %v, want the one slot on node 1", slots)
	}
	many := []Task{{Prefs: []Preference{{Node: 1}}}, {}, {}}
	if kept, _ := pr.PruneTasks(nil, PruningOff, 3, many, []Slot{{Node: 1}}); !slices.Equal(kept, []int{0, 1, 2}) {
		t.Errorf("pruning=off kept tasks %v", kept)
	}
	if kept, _ := pr.PruneTasks(nil, PruningPaper, 3, many, []Slot{{Node: 1}}); !slices.Equal(kept, []int{0}) {
		t.Errorf("pruning=paper kept tasks %v, want [0]", kept)
	}
	if _, err := pr.ComputeSlots(nil, PruningPaper, 3, tasks, []ResourceSet{{Node: 5, Free: -1}}); err == nil || !strings.Contains(err.Error(), "(node 5) has -1 free") {
		t.Errorf("negative free slots: err %v", err)
	}
	if _, err := pr.PruneTasks(nil, PruningPaper, 0, tasks, nil); err == nil {
		t.Error("d = 0 accepted")
	}
	for _, s := range []string{"paper", "off"} {
		if m, err := ParsePruning(s); err != nil || m.String() != s {
			t.Errorf("ParsePruning(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParsePruning("on"); err == nil {
		t.Error(`ParsePruning("on") accepted`)
	}
}

// TestPruningLemma is the lemma of §2.6 as a property: whenever some
// optimum of the unpruned problem uses node-local edges only, the pruned
// problem (Algorithms 1 and 2) has an optimum of the same cost.
func TestPruningLemma(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 6))
	p := DefaultProfile()
	off := Scheduler{Profile: p, Pruning: PruningOff}
	paper := Scheduler{Profile: p, Pruning: PruningPaper}
	var m Matcher
	var idx costIndex
	var dst []int64
	applicable, pruned := 0, 0
	for trial := range 4000 {
		nodes, racks := 2+rng.IntN(8), 1+rng.IntN(3)
		var sets []ResourceSet
		for n := range nodes {
			sets = append(sets, ResourceSet{Node: n, Rack: n % racks, Free: rng.IntN(4)})
		}
		tasks := make([]Task, 1+rng.IntN(7))
		rows := make([]int, len(tasks))
		for i := range tasks {
			rows[i] = i
			for _, n := range rng.Perm(nodes)[:1+rng.IntN(min(3, nodes))] {
				tasks[i].Prefs = append(tasks[i].Prefs, Preference{Node: n, Rack: n % racks, Tier: Tier(rng.IntN(3))})
			}
		}
		_, unprunedTotal, err := off.Schedule(tasks, sets)
		if err != nil {
			t.Fatal(err)
		}
		// Is some unpruned optimum all node-local? Price every other edge
		// out of reach and see whether the optimum keeps its cost.
		slots, _ := off.pruner.ComputeSlots(nil, PruningOff, p.D, tasks, sets)
		dst = idx.fill(dst, &p, tasks, rows, slots)
		const unreachable = 1 << 30
		for k, c := range dst {
			if c > p.HDD {
				dst[k] = unreachable
			}
		}
		_, localTotal, err := m.Solve(dst, len(tasks), len(slots))
		if err != nil {
			t.Fatal(err)
		}
		if localTotal != unprunedTotal {
			continue
		}
		applicable++
		as, prunedTotal, err := paper.Schedule(tasks, sets)
		if err != nil {
			t.Fatal(err)
		}
		if len(paper.slots) < len(slots) || len(paper.kept) < len(tasks) {
			pruned++
		}
		if prunedTotal != unprunedTotal {
			t.Fatalf("trial %d: pruned optimum %d, unpruned %d (all node-local); tasks %+v sets %+v assignments %+v", trial, prunedTotal, unprunedTotal, tasks, sets, as)
		}
	}
	// The property must have been exercised, with pruning actually biting.
	if applicable < 500 || pruned < 200 {
		t.Fatalf("only %d applicable instances, %d of them pruned", applicable, pruned)
	}
	t.Logf("%d instances with an all-node-local optimum, %d of them pruned", applicable, pruned)
}
