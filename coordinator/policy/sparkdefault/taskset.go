package sparkdefault

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Level is a Spark locality level (TaskLocality), most local first.
type Level uint8

// The levels of Spark 2.4. ProcessLocal never is a task set's level here
// (see the package documentation); it stays for Spark's bookkeeping of
// no-preference launches.
const (
	ProcessLocal Level = iota
	NodeLocal
	NoPref
	RackLocal
	Any
)

var levelNames = [...]string{"process", "node", "no-pref", "rack", "any"}

func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "level?"
}

// taskSet is a TaskSetManager: one stage's pending lists, its locality
// levels and its delay-scheduling state.
type taskSet struct {
	job   engine.JobID
	stage int
	isMap bool

	levels     []Level
	cur        int         // currentLocalityIndex
	lastLaunch engine.Time // lastLaunchTime

	// Pending lists as stacks, as Spark's: the top (the end) is taken
	// first; built in reverse index order so the lowest index is on top,
	// and a task back after a failure is pushed on top. Entries of tasks
	// no longer pending are dropped when met.
	byHost map[cluster.HostID][]int32
	byRack map[cluster.RackID][]int32
	noPref []int32
	all    []int32
	// withPrefs holds every task that has a host (and so a rack)
	// preference: "more tasks at NODE or RACK" is "one of these pending".
	withPrefs []int32
}

func newTaskSet(ctx *engine.Context, job engine.JobID, stage int, now engine.Time) *taskSet {
	st := ctx.Job(job).Stages[stage]
	ts := &taskSet{job: job, stage: stage, isMap: st.Spec.Kind == workload.Map, lastLaunch: now,
		byHost: make(map[cluster.HostID][]int32), byRack: make(map[cluster.RackID][]int32)}
	ts.build(ctx)
	return ts
}

// build fills the pending lists with the stage's pending tasks and
// computes the locality levels (computeValidLocalityLevels).
func (ts *taskSet) build(ctx *engine.Context) {
	clear(ts.byHost)
	clear(ts.byRack)
	ts.noPref, ts.all, ts.withPrefs = ts.noPref[:0], ts.all[:0], ts.withPrefs[:0]
	st := ctx.Job(ts.job).Stages[ts.stage]
	for i := len(st.Tasks) - 1; i >= 0; i-- {
		if st.Tasks[i].State == engine.TaskPending {
			ts.add(ctx, int32(i))
		}
	}
	ts.levels = ts.levels[:0]
	topo := ctx.Topology()
	if anyKey(ts.byHost, func(h cluster.HostID) bool { return ctx.Alive(h) }) {
		ts.levels = append(ts.levels, NodeLocal)
	}
	if len(ts.noPref) > 0 {
		ts.levels = append(ts.levels, NoPref)
	}
	if anyKey(ts.byRack, func(r cluster.RackID) bool {
		for _, h := range topo.Racks[r].Hosts {
			if ctx.Alive(h) {
				return true
			}
		}
		return false
	}) {
		ts.levels = append(ts.levels, RackLocal)
	}
	ts.levels = append(ts.levels, Any)
}

// anyKey reports whether some key of m satisfies ok (the order does not
// matter for the answer).
func anyKey[K comparable, V any](m map[K]V, ok func(K) bool) bool {
	for k := range m {
		if ok(k) {
			return true
		}
	}
	return false
}

// add pushes task i onto its lists (addPendingTask): a map onto the lists
// of its live replicas' hosts and racks, a task without input (a reducer)
// onto the no-preference list, every task onto the all list.
func (ts *taskSet) add(ctx *engine.Context, i int32) {
	var reps []workload.Replica
	if ts.isMap {
		ref := engine.TaskRef{Job: ts.job, Stage: int16(ts.stage), Index: i}
		reps = ctx.Replicas(ref)
		if len(reps) == 0 && ctx.Task(ref).Block >= 0 {
			return // its input died: it cannot run anywhere (the engine fails the job)
		}
	}
	if len(reps) == 0 {
		ts.noPref = append(ts.noPref, i)
	} else {
		topo := ctx.Topology()
		for k, r := range reps {
			ts.byHost[r.Host] = pushOnce(ts.byHost[r.Host], i)
			rack := topo.RackOf(r.Host)
			seen := false
			for _, q := range reps[:k] {
				seen = seen || topo.RackOf(q.Host) == rack
			}
			if !seen {
				ts.byRack[rack] = pushOnce(ts.byRack[rack], i)
			}
		}
		ts.withPrefs = append(ts.withPrefs, i)
	}
	ts.all = append(ts.all, i)
}

// pushOnce pushes i unless it is already on top (two replicas of a block
// on one host list it once).
func pushOnce(s []int32, i int32) []int32 {
	if n := len(s); n > 0 && s[n-1] == i {
		return s
	}
	return append(s, i)
}

// recompute is recomputeLocality after a host is lost: the lists again
// from the pending tasks, the levels again, and the current index moved to
// the level it pointed at (or the next present one).
func (ts *taskSet) recompute(ctx *engine.Context) {
	prev := ts.levels[ts.cur]
	ts.build(ctx)
	ts.cur = ts.localityIndex(prev)
}

// localityIndex is getLocalityIndex: the first level at least as far as l.
func (ts *taskSet) localityIndex(l Level) int {
	i := 0
	for i < len(ts.levels)-1 && l > ts.levels[i] {
		i++
	}
	return i
}

func (ts *taskSet) pending(ctx *engine.Context, i int32) bool {
	return ctx.Task(engine.TaskRef{Job: ts.job, Stage: int16(ts.stage), Index: i}).State == engine.TaskPending
}

// top drops the entries of tasks no longer pending from the top of s and
// returns the remaining stack and its top task, if any.
func (ts *taskSet) top(ctx *engine.Context, s []int32) ([]int32, int32, bool) {
	for len(s) > 0 {
		i := s[len(s)-1]
		if ts.pending(ctx, i) {
			return s, i, true
		}
		s = s[:len(s)-1]
	}
	return s, 0, false
}

// moreTasks reports whether a pending task is left at level l.
func (ts *taskSet) moreTasks(ctx *engine.Context, l Level) bool {
	var ok bool
	switch l {
	case NodeLocal, RackLocal:
		ts.withPrefs, _, ok = ts.top(ctx, ts.withPrefs)
	case NoPref:
		ts.noPref, _, ok = ts.top(ctx, ts.noPref)
	default:
		ts.all, _, ok = ts.top(ctx, ts.all)
	}
	return ok
}

// allowedLevel is getAllowedLocalityLevel: from the current level, move on
// while no task is left at it (restarting the wait at now) or its wait
// has run out (the next wait starts where this one ended).
func (ts *taskSet) allowedLevel(ctx *engine.Context, now engine.Time, wait float64) Level {
	for ts.cur < len(ts.levels)-1 {
		switch {
		case !ts.moreTasks(ctx, ts.levels[ts.cur]):
			ts.lastLaunch = now
			ts.cur++
		case now-ts.lastLaunch >= wait:
			ts.lastLaunch += wait
			ts.cur++
		default:
			return ts.levels[ts.cur]
		}
	}
	return ts.levels[ts.cur]
}

// dequeue is dequeueTask: the first pending task for host h no farther
// than allowed, with the level Spark books it at (PROCESS_LOCAL for a
// no-preference task) and whether it came off the no-preference list.
// It only looks: the launch takes the task out of the pending state and
// so out of the lists.
func (ts *taskSet) dequeue(ctx *engine.Context, h cluster.HostID, allowed Level) (int32, Level, bool, bool) {
	var i int32
	var ok bool
	if allowed >= NodeLocal {
		if s, found := ts.byHost[h]; found {
			s, i, ok = ts.top(ctx, s)
			ts.byHost[h] = s
			if ok {
				return i, NodeLocal, false, true
			}
		}
	}
	if allowed >= NoPref {
		if ts.noPref, i, ok = ts.top(ctx, ts.noPref); ok {
			return i, ProcessLocal, true, true
		}
	}
	if allowed >= RackLocal {
		rack := ctx.Topology().RackOf(h)
		if s, found := ts.byRack[rack]; found {
			s, i, ok = ts.top(ctx, s)
			ts.byRack[rack] = s
			if ok {
				return i, RackLocal, false, true
			}
		}
	}
	if allowed >= Any {
		if ts.all, i, ok = ts.top(ctx, ts.all); ok {
			return i, Any, false, true
		}
	}
	return 0, 0, false, false
}
