package trident

import "fmt"

// Pruning selects whether Algorithms 1 and 2 run (§2.6's recommendation:
// as published, on by default, with an off switch). The zero value is
// PruningPaper.
type Pruning uint8

// Pruning modes.
const (
	PruningPaper Pruning = iota // Algorithms 1 and 2 as published (note 1 of §2.4 fixed)
	PruningOff                  // every free slot and every pending task enter the matching
)

func (p Pruning) String() string {
	switch p {
	case PruningPaper:
		return "paper"
	case PruningOff:
		return "off"
	}
	return fmt.Sprintf("pruning(%d)", uint8(p))
}

// ParsePruning reads "paper" or "off".
func ParsePruning(s string) (Pruning, error) {
	switch s {
	case "paper":
		return PruningPaper, nil
	case "off":
		return PruningOff, nil
	}
	return 0, fmt.Errorf("trident: pruning %q is neither \"paper\" nor \"off\"", s)
}

// ResourceSet is the free capacity of one node already cut into Free
// slots (computeAvailableSlots(S_j) of §1.1).
type ResourceSet struct {
	Node, Rack, Executor int
	Free                 int
}

// Pruner runs Algorithms 1 and 2, reusing its scratch space between calls.
// Its zero value is ready; it is not safe for concurrent use.
type Pruner struct {
	localCount map[int]int
	resNodes   map[int]struct{}
}

// ComputeSlots is Algorithm 1 (§2.4): it appends to dst the slots the
// matching should consider. With PruningPaper and at least d*len(tasks)
// free slots, each node keeps only min(free, number of tasks with a
// replica there) slots; if fewer than len(tasks) slots survive, or the
// gate is closed, or pruning is off, all free slots are returned, each
// once (the spec's fix of the printed fallback). Slots come in the order
// of sets, then by index (§2.11).
func (pr *Pruner) ComputeSlots(dst []Slot, mode Pruning, d int, tasks []Task, sets []ResourceSet) ([]Slot, error) {
	if d < 1 {
		return dst, fmt.Errorf("trident: replication factor d = %d must be at least 1", d)
	}
	total := 0
	for k, s := range sets {
		if s.Free < 0 {
			return dst, fmt.Errorf("trident: resource set %d (node %d) has %d free slots", k, s.Node, s.Free)
		}
		total += s.Free
	}
	start := len(dst)
	if mode == PruningPaper && total >= d*len(tasks) {
		if pr.localCount == nil {
			pr.localCount = make(map[int]int)
		}
		clear(pr.localCount)
		for i := range tasks {
			for _, p := range tasks[i].Prefs {
				pr.localCount[p.Node]++
			}
		}
		for _, s := range sets {
			if c, ok := pr.localCount[s.Node]; ok {
				dst = appendSlots(dst, s, min(s.Free, c))
			}
		}
		if len(dst)-start >= len(tasks) {
			return dst, nil
		}
		dst = dst[:start] // fall back to all slots, without duplicates
	}
	for _, s := range sets {
		dst = appendSlots(dst, s, s.Free)
	}
	return dst, nil
}

func appendSlots(dst []Slot, s ResourceSet, k int) []Slot {
	for x := range k {
		dst = append(dst, Slot{Node: s.Node, Rack: s.Rack, Executor: s.Executor, Index: x})
	}
	return dst
}

// PruneTasks is Algorithm 2 (§2.5): it appends to dst the indices of the
// tasks the matching should consider. With PruningPaper and at least
// d*len(slots) tasks, only the tasks with a replica on a node that has a
// free slot are kept (in their original order), provided at least
// len(slots) of them exist; otherwise all tasks are kept.
func (pr *Pruner) PruneTasks(dst []int, mode Pruning, d int, tasks []Task, slots []Slot) ([]int, error) {
	if d < 1 {
		return dst, fmt.Errorf("trident: replication factor d = %d must be at least 1", d)
	}
	start := len(dst)
	if mode == PruningPaper && len(tasks) >= d*len(slots) {
		if pr.resNodes == nil {
			pr.resNodes = make(map[int]struct{})
		}
		clear(pr.resNodes)
		for _, s := range slots {
			pr.resNodes[s.Node] = struct{}{}
		}
		for i := range tasks {
			for _, p := range tasks[i].Prefs {
				if _, ok := pr.resNodes[p.Node]; ok {
					dst = append(dst, i)
					break
				}
			}
		}
		if len(dst)-start >= len(slots) {
			return dst, nil
		}
		dst = dst[:start]
	}
	for i := range tasks {
		dst = append(dst, i)
	}
	return dst, nil
}
