package engine

import (
	"math"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

func (e *Engine) launch(ref TaskRef, h cluster.HostID, opt LaunchOptions, dup bool) (AttemptID, error) {
	j, st, t, ok := e.lookup(ref)
	if !ok {
		return 0, e.rejectf("unknown task", "%+v", ref)
	}
	if h < 0 || int(h) >= len(e.hosts) {
		return 0, e.rejectf("unknown host", "host %d", h)
	}
	hs := &e.hosts[h]
	if !hs.alive {
		return 0, e.rejectf("dead host", "host %s", e.topo.Hosts[h].Name)
	}
	pool := e.poolOf(h, st.Spec.Kind)
	if e.freeOf(h, pool) == 0 {
		if pool == AnySlot {
			return 0, e.rejectf("full host", "host %s has no free slot", e.topo.Hosts[h].Name)
		}
		return 0, e.rejectf("full host", "host %s has no free %s slot for %s/%s[%d]", e.topo.Hosts[h].Name, pool, j.Spec.ID, st.Spec.Name, ref.Index)
	}
	if j.State != JobRunning {
		return 0, e.rejectf("job not running", "job %s is %s", j.Spec.ID, j.State)
	}
	switch {
	case !dup && t.State != TaskPending:
		return 0, e.rejectf("task not pending", "%s/%s[%d]", j.Spec.ID, st.Spec.Name, ref.Index)
	case dup && t.State != TaskRunning:
		return 0, e.rejectf("duplicate of a task not running", "%s/%s[%d]", j.Spec.ID, st.Spec.Name, ref.Index)
	}
	if !opt.Note.valid() {
		return 0, e.rejectf("bad decision note", "saturation %d, reason %q: want a known saturation and a reason of at most %d bytes of a-z, 0-9 and '-'", opt.Note.Saturation, opt.Note.Reason, MaxReasonLen)
	}
	if !opt.OverEarlyLimit && e.heldByEarlyLimit(st) {
		return 0, e.rejectf("early shuffle limit", "%s/%s[%d] would take a slot its upstream may need", j.Spec.ID, st.Spec.Name, ref.Index)
	}
	a := &Attempt{ID: e.nextID, Task: ref, Host: h, Start: e.now, Priority: opt.Priority, Duplicate: dup, Locality: NoLocality, Note: opt.Note}
	a.Source.Host = -1
	if st.Spec.Kind == workload.Map {
		if t.Block >= 0 {
			src, err := e.chooseSource(st, ref.Index, h, opt.Source)
			if err != nil {
				return 0, err
			}
			a.Source = src
			a.Locality = e.localityOf(src.Host, h)
		}
		a.InputBytes = t.InputBytes
		a.InputFixed = true
	} else {
		a.InputBytes = e.shuffleInput(j, st, ref.Index)
		t.InputBytes = a.InputBytes
		t.OutputBytes = e.reduceOutput(st, ref.Index, a.InputBytes)
		e.fixShuffle(a)
	}
	a.OutputBytes = t.OutputBytes
	if a.Source.Host >= 0 {
		// the block is used, whichever replica is read; before the
		// output's admission, which may evict to make room
		e.touchInput(a)
	}
	a.OutputReplicas = e.placeOutput(st, a)
	if e.lru != nil && st.Final {
		e.admitOutput(a)
	}
	e.nextID++
	if !dup {
		e.unPend(j, st)
		t.State = TaskRunning
	} else {
		e.Stats.Duplicates++
		j.Duplicates++
	}
	t.Attempts++
	t.running = append(t.running, a.ID)
	st.running++
	if len(st.upstream) > 0 && !st.upDone {
		e.early++
	}
	j.Attempts++
	j.Running++
	e.queues[j.Queue].Running++
	if !j.launched {
		j.launched = true
		j.Started = e.now
	}
	hs.running = append(hs.running, a.ID)
	e.takeSlot(h, pool)
	e.attempts[a.ID] = a
	e.Stats.Launches++
	e.ready.Launches = append(e.ready.Launches, a)
	return a.ID, nil
}

func (e *Engine) localityOf(src, dst cluster.HostID) Locality {
	switch {
	case src == dst:
		return NodeLocal
	case e.topo.RackOf(src) == e.topo.RackOf(dst):
		return RackLocal
	}
	return Remote
}

// chooseSource picks the replica a map attempt on host h reads: the
// policy's choice if valid, else the closest live replica, fastest tier
// first, then lowest host id.
func (e *Engine) chooseSource(st *Stage, i int32, h cluster.HostID, want *workload.Replica) (workload.Replica, error) {
	reps := e.liveReplicas(st, i)
	if len(reps) == 0 {
		return workload.Replica{}, e.rejectf("input lost", "every replica of the block is on a dead host")
	}
	if want != nil {
		for _, r := range reps {
			if r == *want {
				return r, nil
			}
		}
		return workload.Replica{}, e.rejectf("bad source replica", "replica %d:%s does not hold the task's block", want.Host, want.Tier)
	}
	best := reps[0]
	for _, r := range reps[1:] {
		lb, lr := e.localityOf(best.Host, h), e.localityOf(r.Host, h)
		if lr < lb || (lr == lb && (r.Tier < best.Tier || (r.Tier == best.Tier && r.Host < best.Host))) {
			best = r
		}
	}
	return best, nil
}

// shuffleInput is what a reduce or generic task fetches in all: its
// partition of every upstream task's output. Before the upstream is done
// it is the expectation from the stage specs.
func (e *Engine) shuffleInput(j *Job, st *Stage, i int32) int64 {
	var n int64
	for _, u := range st.upstream {
		us := j.Stages[u]
		n += partition(st.cumShares, int(i), e.stageOutputTotal(us))
	}
	return n
}

// stageOutputTotal is a stage's total output as its tasks hold it now:
// what done tasks wrote, and what launched ones will write; a reduce or
// generic task not launched yet counts 0 (expectedOutput counts it). A
// shuffling attempt launched before its upstream is done takes its input
// from it as an estimate, fixed when the upstream is done (fixShuffle).
func (e *Engine) stageOutputTotal(st *Stage) int64 {
	var n int64
	for k := range st.Tasks {
		n += st.Tasks[k].OutputBytes
	}
	return n
}

func (e *Engine) reduceOutput(st *Stage, i int32, input int64) int64 {
	if st.Spec.OutputBytes > 0 {
		return partition(st.cumShares, int(i), st.Spec.OutputBytes)
	}
	return int64(math.Round(float64(input) * st.Spec.Selectivity))
}

func (e *Engine) placeOutput(st *Stage, a *Attempt) []workload.Replica {
	if !st.Final {
		return []workload.Replica{{Host: a.Host, Tier: e.tierFor(a.Host, e.cfg.IntermediateTiers)}}
	}
	n := max(st.Spec.OutputReplicas, 1)
	if op, ok := e.policy.(OutputPlacer); ok {
		if reps := op.PlaceOutput(&e.ctx, a, n); e.validReplicas(reps) && reps[0].Host == a.Host {
			return reps
		}
		e.reject("bad output placement")
	}
	if e.cfg.OutputPlacer != nil {
		alive := func(h cluster.HostID) bool { return e.hosts[h].alive }
		if reps := e.cfg.OutputPlacer.PlaceReplicas(e.topo, e.rng, a.Host, n, alive); e.validReplicas(reps) && reps[0].Host == a.Host {
			return reps
		}
		e.reject("bad output placement")
	}
	return e.defaultOutput(a.Host, n)
}

func (e *Engine) validReplicas(reps []workload.Replica) bool {
	if len(reps) == 0 {
		return false
	}
	for _, r := range reps {
		if r.Host < 0 || int(r.Host) >= len(e.hosts) || !e.hosts[r.Host].alive {
			return false
		}
		if _, ok := e.topo.Hosts[r.Host].Tier(r.Tier); !ok {
			return false
		}
	}
	return true
}

// defaultOutput writes the first replica on the writer and the others on
// other live hosts of its rack (HDFS-style pipeline kept in-rack).
func (e *Engine) defaultOutput(h cluster.HostID, n int) []workload.Replica {
	reps := []workload.Replica{{Host: h, Tier: e.tierFor(h, e.cfg.OutputTiers)}}
	rack := e.topo.Racks[e.topo.RackOf(h)]
	start := int(h)
	for k := 0; k < len(rack.Hosts) && len(reps) < n; k++ {
		o := rack.Hosts[(start+k)%len(rack.Hosts)]
		if o != h && e.hosts[o].alive {
			reps = append(reps, workload.Replica{Host: o, Tier: e.tierFor(o, e.cfg.OutputTiers)})
		}
	}
	return reps
}

func (e *Engine) tierFor(h cluster.HostID, pref []cluster.TierKind) cluster.TierKind {
	host := &e.topo.Hosts[h]
	for _, k := range pref {
		if _, ok := host.Tier(k); ok {
			return k
		}
	}
	return host.Tiers[0].Kind
}

func (e *Engine) setPriority(id AttemptID, class uint8) error {
	a := e.attempts[id]
	if a == nil {
		return e.rejectf("unknown attempt", "attempt %d is not running", id)
	}
	if a.Priority != class {
		a.Priority = class
		e.ready.Priorities = append(e.ready.Priorities, id)
	}
	return nil
}

func (e *Engine) kill(id AttemptID, why string) error {
	a := e.attempts[id]
	if a == nil {
		return e.rejectf("unknown attempt", "attempt %d is not running", id)
	}
	e.endAttempt(a, AttemptKilled)
	e.ready.Kills = append(e.ready.Kills, id)
	_ = why
	// the task's only attempt: it must run again
	j, st, t, _ := e.lookup(a.Task)
	return e.requeue(j, st, t, a)
}

// requeue makes a running task whose last attempt ended unsuccessfully
// runnable again, or uses an output held back from an earlier attempt.
func (e *Engine) requeue(j *Job, st *Stage, t *Task, a *Attempt) error {
	if t.State == TaskRunning && len(t.running) == 0 && j.State == JobRunning {
		if len(t.held) > 0 {
			return e.useHeld(t.held[0].ID)
		}
		t.State = TaskBlocked
		e.makePending(j, st, a.Task.Index)
	}
	return nil
}

// preemptEarly kills the youngest attempts started before their upstream
// finished until they fit the early-shuffle limit again, as Hadoop
// preempts reducers when maps starve. It is needed when a host's loss
// shrinks the slots or sends finished maps back to run: reducers holding
// every live slot would wait forever for maps that have no slot.
func (e *Engine) preemptEarly() {
	limit := e.cfg.EarlyShuffleLimit * float64(e.liveSlots)
	if float64(e.early) <= limit {
		return
	}
	var early []*Attempt
	for _, a := range e.attempts {
		if _, st, _, ok := e.lookup(a.Task); ok && len(st.upstream) > 0 && !st.upDone {
			early = append(early, a)
		}
	}
	// youngest first; ids break ties, so the choice is deterministic
	sort.Slice(early, func(i, k int) bool {
		if early[i].Start != early[k].Start {
			return early[i].Start > early[k].Start
		}
		return early[i].ID > early[k].ID
	})
	for _, a := range early {
		if float64(e.early) <= limit {
			return
		}
		_ = e.kill(a.ID, "preempted: its upstream needs the slot")
	}
}

// expectedOutput is a stage's total output as far as it can be told now:
// stageOutputTotal, and for each reduce or generic task not launched yet
// what it is expected to write from its upstream stages' expected output
// (recursively; a map stage's outputs are set when it is released).
func (e *Engine) expectedOutput(j *Job, st *Stage) int64 {
	var n int64
	var up []int64
	for k := range st.Tasks {
		t := &st.Tasks[k]
		if st.Spec.Kind == workload.Map || t.OutputBytes > 0 || t.State == TaskDone || t.State == TaskRunning {
			n += t.OutputBytes
			continue
		}
		if up == nil {
			up = make([]int64, len(st.upstream))
			for x, u := range st.upstream {
				up[x] = e.expectedOutput(j, j.Stages[u])
			}
		}
		var in int64
		for x := range st.upstream {
			in += partition(st.cumShares, k, up[x])
		}
		n += e.reduceOutput(st, int32(k), in)
	}
	return n
}
