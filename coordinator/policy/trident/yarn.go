package trident

import (
	"cmp"
	"fmt"
	"slices"
)

// The YARN two-level path (§2.9): the MapReduce AM sends resource
// requests with preference maps (BuildRequests), the RM picks the
// cheapest potential containers for them (Allocator.Allocate, Algorithm
// 3: a sort, not a matching, since requests cannot be mapped back to
// tasks), and the AM matches its pending maps to the containers it got
// (Scheduler, where only task pruning can fire: containers never
// outnumber the tasks).

// ScoreCount is one entry of a preference map: how many replicas (or
// tasks' best replicas) score Score.
type ScoreCount struct {
	Score int64
	Count int
}

// Request is one resource request of §2.9.1: the containers wanted at a
// location and the preference map of the scores they would read at.
// PrefMap is sorted by score, ascending.
type Request struct {
	Containers int
	PrefMap    []ScoreCount
}

// Requests are a job's requests at one priority: per node, per rack, and
// "*" (anywhere). Racks lists the racks in order of first appearance over
// the tasks' preferences, for a deterministic walk.
type Requests struct {
	Node, Rack map[int]*Request
	Racks      []int
	Any        Request
}

// BuildRequests is BUILD_REQUESTS (§2.9.1): per node the tasks with a
// replica there and the multiset of those replicas' scores; per rack the
// tasks with a replica in it, each once, with its lowest score in the
// rack; "*" every task, with its lowest score overall. A task without
// preferences counts only in "*", at score 0 (it reads nothing).
func BuildRequests(p *Profile, tasks []Task) Requests {
	rq := Requests{Node: map[int]*Request{}, Rack: map[int]*Request{}}
	nodeScores := map[int][]int64{}
	rackScores := map[int][]int64{}
	anyScores := make([]int64, 0, len(tasks))
	inRack := map[int]int64{} // a task's lowest score per rack
	for i := range tasks {
		best := int64(-1)
		clear(inRack)
		for _, pr := range tasks[i].Prefs {
			s := p.Score(pr.Tier)
			nodeScores[pr.Node] = append(nodeScores[pr.Node], s)
			if _, seen := rq.Rack[pr.Rack]; !seen {
				rq.Rack[pr.Rack] = &Request{}
				rq.Racks = append(rq.Racks, pr.Rack)
			}
			if b, ok := inRack[pr.Rack]; !ok || s < b {
				inRack[pr.Rack] = s
			}
			if best < 0 || s < best {
				best = s
			}
		}
		for k, s := range inRack {
			rackScores[k] = append(rackScores[k], s)
		}
		anyScores = append(anyScores, max(best, 0))
	}
	for n, ss := range nodeScores {
		rq.Node[n] = &Request{Containers: len(ss), PrefMap: prefMap(ss)}
	}
	for k, ss := range rackScores {
		*rq.Rack[k] = Request{Containers: len(ss), PrefMap: prefMap(ss)}
	}
	rq.Any = Request{Containers: len(tasks), PrefMap: prefMap(anyScores)}
	return rq
}

func prefMap(scores []int64) []ScoreCount {
	sorted := slices.Clone(scores)
	slices.Sort(sorted)
	var m []ScoreCount
	for _, s := range sorted {
		if len(m) > 0 && m[len(m)-1].Score == s {
			m[len(m)-1].Count++
			continue
		}
		m = append(m, ScoreCount{Score: s, Count: 1})
	}
	return m
}

// Container is a potential container of Algorithm 3: a slot on a node
// and the cost it is ranked by.
type Container struct {
	Slot Slot
	Cost int64
}

// AddContainers is ADD_CONTAINERS (Algorithm 3 lines 16-20, with the
// spec's errata: the counter decrements): k potential containers on a
// node, costed at the preference map's scores in ascending order, each
// used as many times as its count, plus rackCost.
func AddContainers(pot []Container, k int, slot Slot, q *Request, rackCost int64) []Container {
	entry, remaining := 0, 0
	for x := range k {
		if remaining == 0 {
			if entry == len(q.PrefMap) {
				return pot // the map is exhausted: no more scores to cost by
			}
			remaining = q.PrefMap[entry].Count
			entry++
		}
		s := slot
		s.Index = slot.Index + x
		pot = append(pot, Container{Slot: s, Cost: q.PrefMap[entry-1].Score + rackCost})
		remaining--
	}
	return pot
}

// Allocator runs Algorithm 3, reusing its buffers between calls.
type Allocator struct {
	pot  []Container
	used map[int]int // slots of a node already put in pot
}

// Allocate is ALLOCATE_CONTAINERS (§2.9.2): potential containers from the
// node-local requests on the nodes' free slots; if fewer than total, from
// the rack-local requests on every node of their racks (a node's capacity
// counted once over both passes); if still fewer, the rest on any node
// with free slots at C2, in the order of sets (the paper's "random
// nodes"; spec: only needed with several racks). total is min("*"
// containers, maxContainers); a negative maxContainers is no cap. The
// potentials are sorted by cost, stable, so ties keep their order of
// construction (§2.11), and the first total are returned. Slots of one
// node get consecutive indices from 0.
func (al *Allocator) Allocate(p *Profile, rq *Requests, sets []ResourceSet, maxContainers int) ([]Container, error) {
	for k, s := range sets {
		if s.Free < 0 {
			return nil, fmt.Errorf("trident: resource set %d (node %d) has %d free slots", k, s.Node, s.Free)
		}
	}
	total := rq.Any.Containers
	if maxContainers >= 0 {
		total = min(total, maxContainers)
	}
	al.pot = al.pot[:0]
	if al.used == nil {
		al.used = map[int]int{}
	}
	clear(al.used)
	add := func(s ResourceSet, want int, q *Request, rackCost int64) {
		k := min(s.Free-al.used[s.Node], want)
		if k <= 0 {
			return
		}
		before := len(al.pot)
		al.pot = AddContainers(al.pot, k, Slot{Node: s.Node, Rack: s.Rack, Executor: s.Executor, Index: al.used[s.Node]}, q, rackCost)
		al.used[s.Node] += len(al.pot) - before
	}
	for _, s := range sets {
		if q, ok := rq.Node[s.Node]; ok {
			add(s, q.Containers, q, 0)
		}
	}
	if len(al.pot) < total {
	racks:
		for _, k := range rq.Racks {
			q := rq.Rack[k]
			for _, s := range sets {
				if s.Rack != k {
					continue
				}
				add(s, q.Containers, q, p.C1)
				if len(al.pot) >= total {
					break racks
				}
			}
		}
	}
	if len(al.pot) < total {
		offRack := Request{PrefMap: []ScoreCount{{Score: 0, Count: total}}}
		for _, s := range sets {
			add(s, total-len(al.pot), &offRack, p.C2)
			if len(al.pot) >= total {
				break
			}
		}
	}
	slices.SortStableFunc(al.pot, func(a, b Container) int { return cmp.Compare(a.Cost, b.Cost) })
	return al.pot[:min(total, len(al.pot))], nil
}
