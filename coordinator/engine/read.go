package engine

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// Datasets are the run's datasets as placed: the engine's own copy, to
// be read, not modified.
func (e *Engine) Datasets() *workload.Datasets { return e.datasets }

// Now is the engine's current time.
func (e *Engine) Now() Time { return e.now }

// Topology is the cluster the engine schedules.
func (e *Engine) Topology() *cluster.Topology { return e.topo }

// Job returns a job by id.
func (e *Engine) Job(id JobID) *Job { return e.jobs[id] }

// Jobs lists every job in workload order.
func (e *Engine) Jobs() []*Job { return e.jobs }

// Attempt returns a running attempt, or nil.
func (e *Engine) Attempt(id AttemptID) *Attempt { return e.attempts[id] }

// Queues lists the run's queues.
func (e *Engine) Queues() []Queue { return e.queues }

// HasFreeSlot reports whether any live host has an idle slot.
func (e *Engine) HasFreeSlot() bool { return len(e.freeHosts) > 0 }

// JobsFinished is the number of jobs that have succeeded or failed.
func (e *Engine) JobsFinished() int { return e.finished }

// IntermediateTier is the tier on which a host keeps map outputs.
func (e *Engine) IntermediateTier(h cluster.HostID) cluster.TierKind {
	return e.tierFor(h, e.cfg.IntermediateTiers)
}

// StageInfo returns the kind and compute cost (ns per input byte) of a
// task's stage.
func (e *Engine) StageInfo(t TaskRef) (workload.StageKind, float64) {
	st := e.jobs[t.Job].Stages[t.Stage]
	return st.Spec.Kind, st.Spec.ComputeNsPerByte
}

// Done reports whether every job has finished.
func (e *Engine) Done() bool { return e.finished == len(e.jobs) }

// PolicyErr is the error of a policy that found it cannot go on (a
// Failer), or nil.
func (e *Engine) PolicyErr() error {
	if f, ok := e.policy.(Failer); ok {
		return f.Err()
	}
	return nil
}

// Pending is the number of runnable tasks without a running attempt.
func (e *Engine) Pending() int { return e.pending }

// FreeSlots is the number of idle slots on live hosts, of every pool.
func (e *Engine) FreeSlots() int {
	n := 0
	for _, h := range e.freeHosts {
		n += e.hosts[h].free + e.hosts[h].freeReduce
	}
	return n
}

// NextArrival is the time of the next job arrival, if any job has yet to
// arrive.
func (e *Engine) NextArrival() (Time, bool) {
	if e.nextArr >= len(e.arrivals) {
		return 0, false
	}
	return e.jobs[e.arrivals[e.nextArr]].Arrival, true
}

// Ready returns what the driver must act on and clears it.
func (e *Engine) Ready() Ready {
	e.ready.Shuffles = e.shuffleUpdates(e.ready.Shuffles)
	r := e.ready
	e.ready = Ready{}
	return r
}

// SetNetwork hands the engine the driver's latest network measurement.
// Slices are copied; nil slices leave the old values.
func (e *Engine) SetNetwork(n NetworkStatus) {
	copyInto(e.network.UplinkLoad, n.UplinkLoad)
	copyInto(e.network.DownlinkLoad, n.DownlinkLoad)
	copyInto(e.network.HostRxBps, n.HostRxBps)
	copyInto(e.network.HostCrossRxBps, n.HostCrossRxBps)
	if n.SaturationThreshold > 0 {
		e.network.SaturationThreshold = n.SaturationThreshold
	}
	if n.Window > 0 {
		e.network.Window = n.Window
	}
	e.network.Measurements++
	if nm, ok := e.policy.(NetworkMeasuredHook); ok {
		nm.NetworkMeasured(&e.ctx)
	}
}

func copyInto(dst, src []float64) {
	if src != nil {
		copy(dst, src)
	}
}
