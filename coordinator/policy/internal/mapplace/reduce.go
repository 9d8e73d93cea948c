package mapplace

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// ReducePlacement is where reducers go (§2.3, §2.10 A10).
type ReducePlacement string

const (
	// RoundRobin deals reducers to the racks holding the job's maps, by
	// map count descending (the default for every scheme).
	RoundRobin ReducePlacement = "round_robin"
	// Random puts each reducer in a seeded random rack with a free
	// reduce slot.
	Random ReducePlacement = "random"
	// HadoopReduce takes whichever host heartbeats with a free reduce
	// slot (Hadoop 1.x); see OneReducePerHeartbeat.
	HadoopReduce ReducePlacement = "hadoop"
)

// ValidateReducePlacement checks a reduce_placement arg.
func ValidateReducePlacement(r ReducePlacement) error {
	switch r {
	case RoundRobin, Random, HadoopReduce:
		return nil
	}
	return fmt.Errorf("mapplace: reduce_placement %q is not %s, %s or %s", r, RoundRobin, Random, HadoopReduce)
}

// Reason codes of the Reducers' launches.
const (
	ReasonRoundRobin   = "rr-quota"
	ReasonRandomRack   = "random-rack"
	ReasonHadoopReduce = "heartbeat"
)

// RoundRobinQuota deals t reducers over the racks with maps (counts[r] >
// 0), sorted by count descending and then by rack index, one at a time
// and cycling (§2.3); it returns the per-rack quota h and the cycle. With
// no rack holding maps, every rack is in the cycle.
func RoundRobinQuota(counts []int, t int) (h []int, cycle []cluster.RackID) {
	h = make([]int, len(counts))
	for r, c := range counts {
		if c > 0 {
			cycle = append(cycle, cluster.RackID(r))
		}
	}
	if len(cycle) == 0 {
		for r := range counts {
			cycle = append(cycle, cluster.RackID(r))
		}
	}
	sort.SliceStable(cycle, func(a, b int) bool { return counts[cycle[a]] > counts[cycle[b]] })
	if len(cycle) == 0 {
		return h, cycle
	}
	for i := 0; i < t; i++ {
		h[cycle[i%len(cycle)]]++
	}
	return h, cycle
}

// Reducers launches reduce and generic tasks by a ReducePlacement. Its
// zero value is not usable: use NewReducers.
type Reducers struct {
	mode ReducePlacement
	// OneReducePerHeartbeat, under HadoopReduce, ends a heartbeat's
	// reducers at the first: Hadoop 1.x's JobQueueTaskScheduler "never
	// assign[s] more than 1 reduce task per heartbeat". Its Fair Scheduler,
	// where delay scheduling lives, assigns several (assignmultiple, no
	// reduce cap, by default), as the placement does without it.
	OneReducePerHeartbeat bool
	stages                map[stageKey]*plan
	counts                map[engine.JobID][]int // caller's map counts
	buf                   []engine.TaskRef
	free                  []bool
}

type stageKey struct {
	job   engine.JobID
	stage int16
}

// plan is one reduce stage's placement: RoundRobin's quota per rack and
// its cycle, or Random's rack per task (-1: none drawn).
type plan struct {
	quota  []int
	cycle  []cluster.RackID
	target []cluster.RackID
}

// NewReducers returns reducer placement by mode ("" is RoundRobin).
func NewReducers(mode ReducePlacement) *Reducers {
	if mode == "" {
		mode = RoundRobin
	}
	return &Reducers{mode: mode, stages: make(map[stageKey]*plan), counts: make(map[engine.JobID][]int)}
}

// Mode is the placement in use.
func (r *Reducers) Mode() ReducePlacement { return r.mode }

// SetMapCounts sets the per-rack map counts RoundRobin ranks the job's
// racks by (Shadow's planned counts after duplication, §2.3 [I]); it
// replans the job's reduce stages, and reducers already placed count
// against the new quotas. Without it the counts are where the job's maps
// are when its first reducer is placed (MapCounts).
func (r *Reducers) SetMapCounts(j engine.JobID, counts []int) {
	r.counts[j] = append([]int(nil), counts...)
	for k := range r.stages {
		if k.job == j {
			delete(r.stages, k)
		}
	}
}

// JobFinished forgets a job; a policy calls it from its JobFinishedHook.
func (r *Reducers) JobFinished(j engine.JobID) {
	delete(r.counts, j)
	for k := range r.stages {
		if k.job == j {
			delete(r.stages, k)
		}
	}
}

// MapCounts is, per rack, the number of the job's map tasks there now: a
// done task's output, else its oldest running attempt.
func MapCounts(ctx *engine.Context, j engine.JobID) []int {
	topo := ctx.Topology()
	l := make([]int, len(topo.Racks))
	for _, st := range ctx.Job(j).Stages {
		if st.Spec.Kind != workload.Map {
			continue
		}
		for i := range st.Tasks {
			if h, ok := placedOn(ctx, &st.Tasks[i]); ok {
				l[topo.RackOf(h)]++
			}
		}
	}
	return l
}

// placedOn is where a task is: its output's host once done, else the
// host of its oldest running attempt.
func placedOn(ctx *engine.Context, t *engine.Task) (cluster.HostID, bool) {
	switch t.State {
	case engine.TaskDone:
		return t.OutHost, true
	case engine.TaskRunning:
		for _, id := range t.Running() {
			if a := ctx.Attempt(id); a != nil {
				return a.Host, true
			}
		}
	}
	return -1, false
}

// Placed is, per rack, the number of the stage's tasks placed there
// (done, or running).
func Placed(ctx *engine.Context, j engine.JobID, stage int) []int {
	topo := ctx.Topology()
	n := make([]int, len(topo.Racks))
	st := ctx.Job(j).Stages[stage]
	for i := range st.Tasks {
		if h, ok := placedOn(ctx, &st.Tasks[i]); ok {
			n[topo.RackOf(h)]++
		}
	}
	return n
}

// Quota is RoundRobin's per-rack quota of a reduce stage (the planned H,
// moves included), planning it now if need be; nil for other placements.
func (r *Reducers) Quota(ctx *engine.Context, j engine.JobID, stage int) []int {
	if r.mode != RoundRobin {
		return nil
	}
	return append([]int(nil), r.plan(ctx, j, stage).quota...)
}

func (r *Reducers) plan(ctx *engine.Context, j engine.JobID, stage int) *plan {
	k := stageKey{j, int16(stage)}
	p := r.stages[k]
	if p != nil {
		return p
	}
	p = &plan{}
	st := ctx.Job(j).Stages[stage]
	switch r.mode {
	case RoundRobin:
		counts := r.counts[j]
		if counts == nil {
			counts = MapCounts(ctx, j)
		}
		p.quota, p.cycle = RoundRobinQuota(counts, len(st.Tasks))
	case Random:
		p.target = make([]cluster.RackID, len(st.Tasks))
		for i := range p.target {
			p.target[i] = -1
		}
	}
	r.stages[k] = p
	return p
}

// OfferReducers launches the running jobs' pending reduce and generic
// tasks on host h, in FIFO job order, while h has a free reduce slot and
// the placement lets one run there; it returns how many it launched. It
// launches nothing while a map pool is being offered.
func (r *Reducers) OfferReducers(ctx *engine.Context, h cluster.HostID) int {
	if ctx.Offering() == engine.MapSlot {
		return 0
	}
	n := 0
	for _, j := range ctx.Running() {
		if ctx.PendingShuffles(j.ID) == 0 {
			continue
		}
		r.buf = ctx.Pending(j.ID, r.buf[:0])
		var placed []int // the stage's tasks per rack, under RoundRobin
		stage := int16(-1)
		for _, t := range r.buf {
			if ctx.FreeReduceSlots(h) == 0 || r.OneReducePerHeartbeat && r.mode == HadoopReduce && n > 0 {
				return n
			}
			if ctx.Job(j.ID).Stages[t.Stage].Spec.Kind == workload.Map || !ctx.CanRun(t) {
				continue
			}
			if r.mode == RoundRobin && t.Stage != stage {
				stage, placed = t.Stage, Placed(ctx, j.ID, int(t.Stage))
			}
			reason, ok := r.allows(ctx, t, h, placed)
			if !ok {
				continue
			}
			if _, err := ctx.Launch(t, h, engine.LaunchOptions{Note: engine.DecisionNote{Reason: reason}}); err != nil {
				return n
			}
			if placed != nil {
				placed[ctx.Topology().RackOf(h)]++
			}
			n++
		}
	}
	return n
}

// allows reports whether task t may run on host h now; placed is, under
// RoundRobin, the tasks of t's stage per rack.
func (r *Reducers) allows(ctx *engine.Context, t engine.TaskRef, h cluster.HostID, placed []int) (string, bool) {
	switch r.mode {
	case HadoopReduce:
		return ReasonHadoopReduce, true
	case Random:
		p := r.plan(ctx, t.Job, int(t.Stage))
		rack := ctx.Topology().RackOf(h)
		if cur := p.target[t.Index]; cur < 0 || (cur != rack && !r.rackHasFree(ctx, cur)) {
			p.target[t.Index] = r.drawRack(ctx)
		}
		return ReasonRandomRack, p.target[t.Index] == rack
	}
	p := r.plan(ctx, t.Job, int(t.Stage))
	rack := ctx.Topology().RackOf(h)
	if placed[rack] >= p.quota[rack] {
		r.passOn(ctx, p, placed)
	}
	return ReasonRoundRobin, placed[rack] < p.quota[rack]
}

// passOn moves the quota left in racks with no free reduce slot on a live
// host to the next rack of the cycle that has one; with no such rack in
// the cycle, nothing moves and the reducers wait.
func (r *Reducers) passOn(ctx *engine.Context, p *plan, placed []int) {
	r.free = r.free[:0]
	anyFree := false
	for _, rk := range p.cycle {
		f := r.rackHasFree(ctx, rk)
		r.free = append(r.free, f)
		anyFree = anyFree || f
	}
	if !anyFree {
		return
	}
	for i, rk := range p.cycle {
		left := p.quota[rk] - placed[rk]
		if left <= 0 || r.free[i] {
			continue
		}
		for k := 1; k < len(p.cycle); k++ {
			next := (i + k) % len(p.cycle)
			if r.free[next] {
				p.quota[rk] -= left
				p.quota[p.cycle[next]] += left
				break
			}
		}
	}
}

// rackHasFree reports whether a live host of the rack has a free reduce
// slot.
func (r *Reducers) rackHasFree(ctx *engine.Context, rk cluster.RackID) bool {
	for _, h := range ctx.Topology().Racks[rk].Hosts {
		if ctx.Alive(h) && ctx.FreeReduceSlots(h) > 0 {
			return true
		}
	}
	return false
}

// drawRack draws a rack uniformly among those with a free reduce slot on
// a live host (-1: none).
func (r *Reducers) drawRack(ctx *engine.Context) cluster.RackID {
	var cands []cluster.RackID
	for i := range ctx.Topology().Racks {
		if r.rackHasFree(ctx, cluster.RackID(i)) {
			cands = append(cands, cluster.RackID(i))
		}
	}
	if len(cands) == 0 {
		return -1
	}
	return cands[ctx.Rand().IntN(len(cands))]
}

// PlannedQuota is RoundRobin's quota of a reduce stage if it is planned
// yet (for inspection; Quota plans it).
func (r *Reducers) PlannedQuota(j engine.JobID, stage int) ([]int, bool) {
	p := r.stages[stageKey{j, int16(stage)}]
	if p == nil || p.quota == nil {
		return nil, false
	}
	return append([]int(nil), p.quota...), true
}

// Braces prints per-rack counts as the spec writes them: {4,1,1}.
func Braces(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return "{" + strings.Join(s, ",") + "}"
}
