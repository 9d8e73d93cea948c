package dawn

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// stageKind is how the plan treats a job's current stage (§2.3.4).
type stageKind uint8

const (
	mapLike    stageKind = iota // reads blocks: max_map (Eq. 2–3)
	middle                      // reads upstream stages, feeds another: Eq. 4 only
	outputLike                  // reads upstream stages, writes the job's output: Eq. 4–7
)

// pref is one preferred rack and the cross-rack bytes of running the
// stage there (cost_x(r)).
type pref struct {
	rack cluster.RackID
	cost int64
}

// jobPlan is a job's plan for its current stage (§2.3.1), the whole map
// phase while a map stage is current (planStage).
type jobPlan struct {
	stage   int // planStage's index (the first map stage's for the map phase); -1: none yet
	kind    stageKind
	since   engine.Time // when the stage (the map phase: its first map stage) was released: its oldest pending task waits since
	total   int64       // |In_x| or |Inter_x|
	byRack  []int64     // |In_{x,r}| or Inter_{x,r}
	byHost  map[cluster.HostID]int64
	maxRack cluster.RackID // max_map or max_reduce
	maxCost int64
	depRack cluster.RackID // dep_reduce (outputLike only)
	depCost int64
	pref    []pref // max first, then dep, then balancing's adds
	adds    int    // how many of pref's entries balancing added
	lost    bool   // a host was lost since the plan was made: plan again
	// weighed is Policy.weighed when dep_reduce was computed: a job it
	// weighs finished since may move it (A2-13..16)
	weighed int
}

func (p *jobPlan) prefers(r cluster.RackID) bool {
	_, ok := p.costAt(r)
	return ok
}

func (p *jobPlan) costAt(r cluster.RackID) (int64, bool) {
	for _, e := range p.pref {
		if e.rack == r {
			return e.cost, true
		}
	}
	return 0, false
}

// balancedAt reports whether rack r is in Pref only because balancing
// added it.
func (p *jobPlan) balancedAt(r cluster.RackID) bool {
	for _, e := range p.pref[len(p.pref)-p.adds:] {
		if e.rack == r {
			return true
		}
	}
	return false
}

// stageCost is the cross-rack bytes of running the stage on rack r.
func (p *jobPlan) stageCost(r cluster.RackID) int64 { return p.total - p.byRack[r] }

// nodeCost is the bytes the stage's input has away from host h (A1-31).
func (p *jobPlan) nodeCost(h cluster.HostID) int64 { return p.total - p.byHost[h] }

// currentStage is the first released stage of a job with pending tasks.
func currentStage(j *engine.Job) (*engine.Stage, bool) {
	for _, st := range j.Stages {
		if st.Released && st.Pending > 0 {
			return st, true
		}
	}
	return nil, false
}

// planStage is the stage a job's plan is for while st is current: a map
// stage stands for the job's whole map phase, its first map stage, since
// max_map is set once over all of the job's input (§2.3.1-2: In_x, every
// map stage's blocks, a TPC-H join's two tables alike); any other stage
// is planned on its own (§2.3.4).
func planStage(j *engine.Job, st *engine.Stage) int {
	if st.Spec.Kind != workload.Map {
		return st.Index
	}
	for _, s := range j.Stages {
		if s.Spec.Kind == workload.Map {
			return s.Index
		}
	}
	return st.Index
}

// mapsPending reports whether a map stage of the job has pending tasks.
func mapsPending(j *engine.Job) bool {
	for _, st := range j.Stages {
		if st.Spec.Kind == workload.Map && st.Pending > 0 {
			return true
		}
	}
	return false
}

// upstream resolves a stage's After names (default: the stage before).
func upstream(j *engine.Job, st *engine.Stage) []int {
	if len(st.Spec.After) == 0 {
		if st.Index > 0 {
			return []int{st.Index - 1}
		}
		return nil
	}
	var out []int
	for _, name := range st.Spec.After {
		for _, s := range j.Stages {
			if s.Spec.Name == name {
				out = append(out, s.Index)
			}
		}
	}
	return out
}

// measure fills the plan's totals: the map phase's distinct input bytes
// per rack and host over every map stage of the job (a block counts once
// wherever any replica is), or an upstream-reading stage's intermediate
// bytes where its upstream's done tasks wrote them.
func (p *jobPlan) measure(ctx *engine.Context, j *engine.Job, st *engine.Stage) {
	topo := ctx.Topology()
	p.total = 0
	p.byRack = make([]int64, len(topo.Racks))
	p.byHost = make(map[cluster.HostID]int64)
	if st.Spec.Kind == workload.Map {
		var racks []cluster.RackID
		for _, ms := range j.Stages {
			if ms.Spec.Kind != workload.Map {
				continue
			}
			for i := range ms.Tasks {
				ref := engine.TaskRef{Job: j.ID, Stage: int16(ms.Index), Index: int32(i)}
				size := ms.Tasks[i].InputBytes
				p.total += size
				racks = racks[:0]
				for _, rep := range ctx.Replicas(ref) {
					r := topo.RackOf(rep.Host)
					if !containsRack(racks, r) {
						racks = append(racks, r)
						p.byRack[r] += size
					}
				}
				seen := map[cluster.HostID]bool{}
				for _, rep := range ctx.Replicas(ref) {
					if !seen[rep.Host] {
						seen[rep.Host] = true
						p.byHost[rep.Host] += size
					}
				}
			}
		}
		return
	}
	for _, u := range upstream(j, st) {
		us := j.Stages[u]
		for i := range us.Tasks {
			t := &us.Tasks[i]
			if t.State != engine.TaskDone {
				continue
			}
			p.total += t.OutputBytes
			p.byHost[t.OutHost] += t.OutputBytes
			p.byRack[topo.RackOf(t.OutHost)] += t.OutputBytes
		}
	}
}

func containsRack(rs []cluster.RackID, r cluster.RackID) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// argmaxRack is the rack with the most bytes; ties go to the smaller
// P_r, then the lower index (§2.3.2).
func argmaxRack(bytes []int64, load []int) cluster.RackID {
	best := 0
	for r := 1; r < len(bytes); r++ {
		if bytes[r] > bytes[best] || bytes[r] == bytes[best] && load[r] < load[best] {
			best = r
		}
	}
	return cluster.RackID(best)
}

// estOutput is the job output a final stage will write: its fixed
// output size, or its selectivity times its intermediate input (DR-2).
func estOutput(st *engine.Stage, inter int64) int64 {
	if st.Spec.OutputBytes > 0 {
		return st.Spec.OutputBytes
	}
	return int64(st.Spec.Selectivity * float64(inter))
}

// jobOutputByRack is a finished job's output per rack (Out_z^Rack).
func jobOutputByRack(ctx *engine.Context, z *engine.Job, buf []int64) []int64 {
	buf = buf[:0]
	for range ctx.Topology().Racks {
		buf = append(buf, 0)
	}
	var tmp []int64
	for _, st := range z.Stages {
		if !st.Final {
			continue
		}
		tmp = ctx.StageOutputByRack(z.ID, st.Index, tmp[:0])
		for r, v := range tmp {
			buf[r] += v
		}
	}
	return buf
}

// depReduce is DR-1..DR-15: the rack where x's output best serves its
// children given their finished other parents, and the shuffle cost of
// running x's reducers there.
func (p *Policy) depReduce(ctx *engine.Context, x *engine.Job, st *engine.Stage, pl *jobPlan, load []int) (cluster.RackID, int64) {
	nr := len(pl.byRack)
	nc := make([]int64, nr)
	out := estOutput(st, pl.total)
	v := make([]int64, nr)
	var zout []int64
	for _, y := range p.deps.Next[x.ID] {
		clear(v)
		var base int64
		for _, z := range p.deps.Prev(x.ID, y) {
			zj := ctx.Job(z)
			if zj.State != engine.JobSucceeded {
				continue // DR-7: the greedy step ignores unfinished parents
			}
			zout = jobOutputByRack(ctx, zj, zout)
			for k, b := range zout {
				v[k] += b
				base += b
			}
		}
		for r := 0; r < nr; r++ {
			v[r] += out
			var best int64
			for _, b := range v {
				best = max(best, b)
			}
			nc[r] += base + out - best
			v[r] -= out
		}
	}
	dep := 0
	for r := 1; r < nr; r++ {
		switch {
		case nc[r] < nc[dep]:
			dep = r
		case nc[r] > nc[dep]:
		case pl.byRack[r] > pl.byRack[dep]:
			dep = r
		case pl.byRack[r] < pl.byRack[dep]:
		case load[r] < load[dep]:
			dep = r
		}
	}
	return cluster.RackID(dep), pl.total - pl.byRack[dep]
}
