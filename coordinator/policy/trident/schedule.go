package trident

import (
	"errors"
	"fmt"
)

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
	return s.ScheduleAtMost(tasks, sets, -1)
}

// ScheduleAtMost is Schedule for a job that may take at most limit slots
// (its fair share; a negative limit is no limit): it returns
// min(n', m', limit) assignments of minimum total cost among all matchings
// of that size. The cap is exact, not a trim of the full matching: n' -
// limit zero-cost dummy columns absorb the tasks left out, so the solver
// itself chooses which tasks run.
func (s *Scheduler) ScheduleAtMost(tasks []Task, sets []ResourceSet, limit int) ([]Assignment, int64, error) {
	if err := s.Profile.Validate(); err != nil {
		return nil, 0, err
	}
	if s.Pruning != PruningPaper && s.Pruning != PruningOff {
		return nil, 0, fmt.Errorf("trident: unknown pruning mode %v", s.Pruning)
	}
	if err := checkLocalOnly(tasks); err != nil {
		return nil, 0, err
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
	width := cols
	if limit >= 0 && limit < min(rows, cols) {
		width = cols + rows - limit
		s.costs = widen(s.costs, rows, cols, width)
	}
	rowToCol, _, err := s.matcher.Solve(s.costs, rows, width)
	if err != nil {
		return nil, 0, err
	}
	s.out = s.out[:0]
	var total int64
	for r, j := range rowToCol {
		if j < 0 || j >= cols { // unmatched, or a dummy column
			continue
		}
		ti := s.kept[r]
		c, class := s.Profile.Cost(&tasks[ti], &s.slots[j])
		if tasks[ti].LocalOnly && class > HDDLocal && class != NoPref {
			continue // a dropped edge: the task waits
		}
		if limit >= 0 && len(s.out) == limit {
			break // a zero-cost tie may match more real columns than asked
		}
		s.out = append(s.out, Assignment{Task: ti, Slot: s.slots[j], Cost: c, Class: class})
		total += c
	}
	return s.out, total, nil
}

// widen turns a rows x cols row-major matrix into rows x width, the extra
// columns at cost 0, in place when capacity allows (rows are moved from
// the last, so none is overwritten before it is copied).
func widen(costs []int64, rows, cols, width int) []int64 {
	if cap(costs) < rows*width {
		wider := make([]int64, rows*width, 2*rows*width)
		copy(wider, costs[:rows*cols])
		costs = wider
	}
	costs = costs[:rows*width]
	for r := rows - 1; r >= 0; r-- {
		copy(costs[r*width:r*width+cols], costs[r*cols:(r+1)*cols])
		clear(costs[r*width+cols : (r+1)*width])
	}
	return costs
}

// checkLocalOnly refuses a call that mixes tasks with preferences that
// are LocalOnly and that are not: the cost standing for a dropped edge
// (Profile.droppedEdge) is only large enough against node-local costs,
// and a caller delays a whole job (a stage) at once.
func checkLocalOnly(tasks []Task) error {
	some, all := false, true
	for i := range tasks {
		if len(tasks[i].Prefs) == 0 {
			continue
		}
		some = some || tasks[i].LocalOnly
		all = all && tasks[i].LocalOnly
	}
	if some && !all {
		return errors.New("trident: a call mixes local-only tasks with tasks that may run anywhere")
	}
	return nil
}
