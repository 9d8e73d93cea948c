package trident

import "fmt"

// Assignment is one matched pair of a scheduling call: the index of the
// task in the caller's slice, the slot it gets, the pair's cost and its
// locality class.
type Assignment struct {
	Task  int
	Slot  Slot
	Cost  int64
	Class Class
}

// Scheduler runs one Trident scheduling call (§2.7 lines 2-6) on a
// snapshot of pending tasks and free resources: Algorithm 1, Algorithm 2,
// the cost matrix of Eq. 1, the matching. It reuses its buffers between
// calls and is not safe for concurrent use.
type Scheduler struct {
	Profile Profile
	Pruning Pruning

	pruner  Pruner
	matcher Matcher
	slots   []Slot
	kept    []int
	costs   []int64
	index   costIndex
	out     []Assignment
}

// Schedule returns min(n', m') assignments of minimum total cost, where n'
// and m' are the tasks and slots left after pruning, and that total. The
// returned slice is reused by the next call.
func (s *Scheduler) Schedule(tasks []Task, sets []ResourceSet) ([]Assignment, int64, error) {
	if err := s.Profile.Validate(); err != nil {
		return nil, 0, err
	}
	if s.Pruning != PruningPaper && s.Pruning != PruningOff {
		return nil, 0, fmt.Errorf("trident: unknown pruning mode %v", s.Pruning)
	}
	var err error
	s.slots, err = s.pruner.ComputeSlots(s.slots[:0], s.Pruning, s.Profile.D, tasks, sets)
	if err != nil {
		return nil, 0, err
	}
	s.kept, err = s.pruner.PruneTasks(s.kept[:0], s.Pruning, s.Profile.D, tasks, s.slots)
	if err != nil {
		return nil, 0, err
	}
	rows, cols := len(s.kept), len(s.slots)
	s.costs = s.index.fill(s.costs, &s.Profile, tasks, s.kept, s.slots)
	rowToCol, total, err := s.matcher.Solve(s.costs, rows, cols)
	if err != nil {
		return nil, 0, err
	}
	s.out = s.out[:0]
	for r, j := range rowToCol {
		if j < 0 {
			continue
		}
		ti := s.kept[r]
		c, class := s.Profile.Cost(&tasks[ti], &s.slots[j])
		s.out = append(s.out, Assignment{Task: ti, Slot: s.slots[j], Cost: c, Class: class})
	}
	return s.out, total, nil
}
