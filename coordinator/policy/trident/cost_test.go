package trident

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestCostRules(t *testing.T) {
	p := DefaultProfile()
	// Rack A = {1, 2, 3}, rack B = {4, 5}.
	pref := func(node int, tier Tier) Preference {
		rack := 0
		if node >= 4 {
			rack = 1
		}
		return Preference{Node: node, Rack: rack, Tier: tier}
	}
	slotOn := func(node, executor int) Slot {
		s := Slot{Node: node, Executor: executor}
		if node >= 4 {
			s.Rack = 1
		}
		return s
	}
	cases := []struct {
		name  string
		task  Task
		slot  Slot
		cost  int64
		class Class
	}{
		{"process-local on the caching executor", Task{Prefs: []Preference{pref(1, Memory)}, ProcessLocal: true, Executor: 7}, slotOn(1, 7), 0, ProcessLocal},
		{"process-local task on another executor of the host is memory-local (e)", Task{Prefs: []Preference{pref(1, Memory)}, ProcessLocal: true, Executor: 7}, slotOn(1, 8), 1, MemoryLocal},
		{"no preference costs C0 anywhere", Task{}, slotOn(4, 0), 25, NoPref},
		{"node-local takes the local score", Task{Prefs: []Preference{pref(1, SSD), pref(4, Memory)}}, slotOn(1, 0), 8, SSDLocal},
		{"node-local HDD wins over a cheaper rack-local memory read (b)", Task{Prefs: []Preference{pref(1, HDD), pref(2, Memory)}}, slotOn(1, 0), 20, HDDLocal},
		{"rack-local uses the lowest score in the slot's rack (a)", Task{Prefs: []Preference{pref(2, HDD), pref(3, SSD), pref(4, Memory)}}, slotOn(1, 0), 30 + 8, RackLocal},
		{"two replicas on one node take the minimum (c)", Task{Prefs: []Preference{pref(1, HDD), pref(1, SSD)}}, slotOn(1, 0), 8, SSDLocal},
		{"off-rack has no tier term", Task{Prefs: []Preference{pref(1, Memory), pref(2, Memory)}}, slotOn(5, 0), 1000, OffRack},
	}
	for _, c := range cases {
		cost, class := p.Cost(&c.task, &c.slot)
		if cost != c.cost || class != c.class {
			t.Errorf("%s: got %d %v, want %d %v", c.name, cost, class, c.cost, c.class)
		}
	}
}

func TestProfileValidate(t *testing.T) {
	if err := DefaultProfile().Validate(); err != nil {
		t.Fatalf("profile P rejected: %v", err)
	}
	p := DefaultProfile()
	if p.Memory != 1 || p.SSD != 8 || p.HDD != 20 || p.C0 != 25 || p.C1 != 30 || p.C2 != 1000 || p.D != 3 {
		t.Fatalf("profile P is %+v", p)
	}
	bad := []struct {
		change func(*Profile)
		want   string
	}{
		{func(p *Profile) { p.C2 = p.C1 }, "C2 = 30 must exceed"},
		{func(p *Profile) { p.C2 = 45 }, "C2 = 45 must exceed C1 + the highest tier score = 50"},
		{func(p *Profile) { p.C0 = p.C1 }, "C0 = 30 must be below C1 = 30"},
		{func(p *Profile) { p.SSD = -1 }, "SSD = -1 is negative"},
		{func(p *Profile) { p.C2 = 1 << 50 }, "C2 = 1125899906842624 exceeds"},
		{func(p *Profile) { p.D = 0 }, "D = 0"},
	}
	for _, b := range bad {
		q := DefaultProfile()
		b.change(&q)
		err := q.Validate()
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: error %v, want it to mention %q", q, err, b.want)
		}
	}
}

// TestCostMatrixMatchesCost checks the scheduler's row-wise matrix fill
// against Cost cell by cell, with several slots and executors per node,
// process-local and no-preference tasks and replicas sharing a node.
func TestCostMatrixMatchesCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	p := DefaultProfile()
	var x costIndex
	var dst []int64
	for trial := range 300 {
		nodes, racks := 1+rng.IntN(8), 1+rng.IntN(3)
		var slots []Slot
		for range rng.IntN(12) {
			n := rng.IntN(nodes)
			slots = append(slots, Slot{Node: n, Rack: n % racks, Executor: rng.IntN(3), Index: rng.IntN(2)})
		}
		tasks := make([]Task, 1+rng.IntN(6))
		rows := make([]int, len(tasks))
		for i := range tasks {
			rows[i] = i
			for range rng.IntN(4) {
				n := rng.IntN(nodes + 2) // some replicas on nodes without slots
				tasks[i].Prefs = append(tasks[i].Prefs, Preference{Node: n, Rack: n % (racks + 1), Tier: Tier(rng.IntN(3))})
			}
			if rng.IntN(4) == 0 {
				tasks[i].ProcessLocal, tasks[i].Executor = true, rng.IntN(3)
			}
		}
		dst = x.fill(dst, &p, tasks, rows, slots)
		for i := range tasks {
			for j := range slots {
				if want, _ := p.Cost(&tasks[i], &slots[j]); dst[i*len(slots)+j] != want {
					t.Fatalf("trial %d: cell (%d,%d) = %d, Cost says %d; task %+v slot %+v", trial, i, j, dst[i*len(slots)+j], want, tasks[i], slots[j])
				}
			}
		}
	}
}
