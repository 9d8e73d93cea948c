package engine

import (
	"errors"
	"fmt"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
)

func (e *Engine) addFree(h cluster.HostID) {
	hs := &e.hosts[h]
	if hs.freePos >= 0 || !hs.alive || !hs.hasFree() {
		return
	}
	hs.freePos = len(e.freeHosts)
	e.freeHosts = append(e.freeHosts, h)
}

func (e *Engine) dropFree(h cluster.HostID) {
	hs := &e.hosts[h]
	if hs.freePos < 0 {
		return
	}
	last := e.freeHosts[len(e.freeHosts)-1]
	e.freeHosts[hs.freePos] = last
	e.hosts[last].freePos = hs.freePos
	e.freeHosts = e.freeHosts[:len(e.freeHosts)-1]
	hs.freePos = -1
}

// Schedule offers the free slots to the policy: host by host for a
// HostScheduler (a heartbeat from every host with a free slot, in a
// rotating order), or all at once for a RoundScheduler (when some host
// has split pools: a round of the map pools, then one of the reduce
// pools).
func (e *Engine) Schedule() {
	if e.pending == 0 || len(e.freeHosts) == 0 {
		return
	}
	if rs, ok := e.policy.(RoundScheduler); ok {
		if e.anySplit {
			e.roundSplit(rs)
			return
		}
		free := e.sortedFree()
		e.timed(func() { rs.ScheduleRound(&e.ctx, free) })
		return
	}
	// heartbeats come in no fixed order: offer the free hosts in a seeded
	// random order, from a stream of its own so that the policy's draws do
	// not depend on how often the driver schedules
	hosts := append(e.offerBuf[:0], e.freeHosts...)
	e.offerBuf = hosts
	e.offerRng.Shuffle(len(hosts), func(a, b int) { hosts[a], hosts[b] = hosts[b], hosts[a] })
	for _, h := range hosts {
		if e.pending == 0 {
			break
		}
		e.Offer(h)
	}
}

func (e *Engine) sortedFree() []cluster.HostID {
	hosts := append([]cluster.HostID(nil), e.freeHosts...)
	sort.Slice(hosts, func(a, b int) bool { return hosts[a] < hosts[b] })
	return hosts
}

// Offer offers one host's free slots to a HostScheduler (a heartbeat); a
// host with split pools offers its map pool, then its reduce pool, each
// only if it has a free slot and a task of its kind waits (Offering).
func (e *Engine) Offer(h cluster.HostID) {
	hs, ok := e.policy.(HostScheduler)
	if !ok || int(h) >= len(e.hosts) || h < 0 {
		return
	}
	if !e.hosts[h].hasFree() || !e.hosts[h].alive || e.pending == 0 {
		return
	}
	if e.hosts[h].split {
		e.offerSplit(hs, h)
		return
	}
	e.timed(func() { hs.OfferHost(&e.ctx, h) })
}

func (e *Engine) timed(f func()) {
	e.Stats.Decisions++
	if e.cfg.Stopwatch == nil {
		f()
		return
	}
	t0 := e.cfg.Stopwatch()
	f()
	ns := e.cfg.Stopwatch() - t0
	e.Stats.DecisionTimes.Add(ns)
	if e.cfg.OnDecision != nil {
		e.cfg.OnDecision(ns)
	}
}

func (e *Engine) reject(reason string) {
	e.Stats.Rejected++
	e.Stats.RejectedByReason[reason]++
}

var errRejected = errors.New("rejected")

func (e *Engine) rejectf(reason, format string, args ...any) error {
	e.reject(reason)
	return fmt.Errorf("%w: %s: %s", errRejected, reason, fmt.Sprintf(format, args...))
}

func (e *Engine) lookup(t TaskRef) (*Job, *Stage, *Task, bool) {
	if t.Job < 0 || int(t.Job) >= len(e.jobs) {
		return nil, nil, nil, false
	}
	j := e.jobs[t.Job]
	if t.Stage < 0 || int(t.Stage) >= len(j.Stages) {
		return nil, nil, nil, false
	}
	st := j.Stages[t.Stage]
	if t.Index < 0 || int(t.Index) >= len(st.Tasks) {
		return nil, nil, nil, false
	}
	return j, st, &st.Tasks[t.Index], true
}
