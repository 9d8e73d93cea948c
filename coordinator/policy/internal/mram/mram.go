package mram

import (
	"math"
	"slices"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Hadoop 2.7.2's defaults.
const (
	// RampupLimit is yarn.app.mapreduce.am.job.reduce.rampup.limit: the
	// most of a job's containers its reducers take while maps wait.
	RampupLimit = 0.5
	// PreemptionLimit is yarn.app.mapreduce.am.job.reduce.preemption.limit:
	// the most of them one preemption takes back.
	PreemptionLimit = 0.5
	// Heartbeat is yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms,
	// in seconds: how often the AM reconsiders its reducers.
	Heartbeat engine.Time = 1
)

// counts are a job's tasks by kind and state.
type counts struct {
	maps, mapsDone, mapsPending, mapsRunning, reducesRunning int
}

func jobCounts(j *engine.Job) counts {
	var c counts
	for _, st := range j.Stages {
		if st.Spec.Kind != workload.Map {
			continue
		}
		c.maps += len(st.Tasks)
		c.mapsDone += st.Done
		c.mapsPending += st.Pending
	}
	c.mapsRunning = c.maps - c.mapsDone - c.mapsPending
	c.reducesRunning = max(0, j.Running-c.mapsRunning)
	return c
}

// Headroom is the containers job j may still get, as the RM tells its
// AM: the cluster's free containers, or fewer where the job's queue has
// a maximum it is near (a capacity queue's max capacity).
type Headroom func(ctx *engine.Context, j *engine.Job) int

// ClusterFree is the headroom of a job whose queue has no maximum: the
// cluster's free containers.
func ClusterFree(ctx *engine.Context, _ *engine.Job) int {
	_, running := ctx.EarlyShuffles()
	return max(0, ctx.TotalSlots()-running)
}

// MayStartReducer reports whether job j's AM would ask for one more
// reducer now (scheduleReduces), given its headroom. Once every map has a
// container it asks for all of them.
func MayStartReducer(ctx *engine.Context, j *engine.Job, headroom Headroom) bool {
	c := jobCounts(j)
	if c.mapsPending == 0 || c.maps == 0 {
		return true
	}
	limit := float64(headroom(ctx, j) + j.Running)
	ideal := limit * math.Min(float64(c.mapsDone)/float64(c.maps), RampupLimit)
	final := ideal
	if wanted := float64(c.mapsPending + c.mapsRunning); limit-ideal >= wanted {
		// the maps need less than their ideal share: the rest may go
		// to reducers
		final = limit - wanted
	}
	return float64(c.reducesRunning+1) <= final+1e-9
}

// AM is the preemption side's state: when it last looked.
type AM struct {
	last    engine.Time
	started bool
	// Preempted counts the reducers it killed.
	Preempted int
	victims   []*engine.Attempt
	kills     []kill
}

// Preempt kills, once per Heartbeat, the reducers of every job whose maps
// wait with none running and no headroom (preemptReducesIfNeeded): with
// a queue at its maximum, a free container elsewhere in the cluster is
// not the job's to take.
func (a *AM) Preempt(ctx *engine.Context, headroom Headroom) {
	if a.started && ctx.Now() < a.last+Heartbeat {
		return
	}
	a.started, a.last = true, ctx.Now()
	// every AM decides on the same state, the one its heartbeat saw: the
	// containers one job's kills free are not another's headroom yet
	a.kills = a.kills[:0]
	for _, j := range ctx.Running() {
		c := jobCounts(j)
		if c.mapsPending == 0 || c.mapsRunning > 0 || c.reducesRunning == 0 {
			continue
		}
		free := headroom(ctx, j)
		if free > 0 {
			continue // a map can get a container
		}
		limit := float64(free + j.Running)
		n := int(math.Ceil(math.Min(float64(c.mapsPending), math.Max(1, PreemptionLimit*limit))))
		a.kills = append(a.kills, kill{j, min(n, c.reducesRunning)})
	}
	for _, k := range a.kills {
		a.killLatest(ctx, k.job, k.n)
	}
}

// kill is one job's preemption: n of its reducers.
type kill struct {
	job *engine.Job
	n   int
}

// killLatest kills a job's n latest started reducer attempts: those that
// have fetched least.
func (a *AM) killLatest(ctx *engine.Context, j *engine.Job, n int) {
	a.victims = a.victims[:0]
	for _, st := range j.Stages {
		if st.Spec.Kind == workload.Map {
			continue
		}
		for i := range st.Tasks {
			for _, id := range st.Tasks[i].Running() {
				if at := ctx.Attempt(id); at != nil {
					a.victims = append(a.victims, at)
				}
			}
		}
	}
	slices.SortFunc(a.victims, func(x, y *engine.Attempt) int {
		if x.Start != y.Start {
			if x.Start > y.Start {
				return -1
			}
			return 1
		}
		return int(y.ID - x.ID)
	})
	for _, at := range a.victims[:min(n, len(a.victims))] {
		if ctx.Kill(at.ID) == nil {
			a.Preempted++
		}
	}
}
