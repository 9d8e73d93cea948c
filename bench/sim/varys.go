package sim

import (
	"fmt"
	"math"
	"sort"

	"github.com/racklab/racklab/coordinator/engine"
)

// The network models Options.Network chooses between.
const (
	// NetworkMaxMin shares every resource max-min fairly among its flows,
	// within strict priority classes: roughly what TCP does.
	NetworkMaxMin = "maxmin"
	// NetworkVarys schedules coflows as Varys does (Chowdhury, Zhong and
	// Stoica, SIGCOMM'14): Smallest-Effective-Bottleneck-First between
	// coflows, Minimum-Allocation-for-Desired-Duration within one, and the
	// leftover shared max-min.
	NetworkVarys = "varys"
)

// NetworkNames lists the values Options.Network accepts ("" is maxmin).
func NetworkNames() []string { return []string{NetworkMaxMin, NetworkVarys} }

func validNetwork(name string) error {
	switch name {
	case "", NetworkMaxMin, NetworkVarys:
		return nil
	}
	return fmt.Errorf("network %q is not one of %s, %s", name, NetworkMaxMin, NetworkVarys)
}

// coflowKey names a coflow: the stage of a job whose tasks fetch the
// outputs of earlier stages. In MapReduce that is the job's shuffle.
type coflowKey struct {
	job   engine.JobID
	stage int16
}

// coflow is one stage's shuffle: every fetch flow of its reducers (or
// Generic tasks), from other racks, from its own rack and from the
// reducer's own disk. Its size is what is in flight: reducers fetch in
// rounds, so the simulator, like Varys without prior knowledge of a
// coflow's size, sees the flows open now.
//
// Every other flow (a map's input read, a dependent job's read, an output
// write) is a coflow of its own, ordered with the shuffles by its own
// bottleneck time. Sharing only what the shuffles' MADD rates leave
// instead starves map reads on links the shuffles fill (on FB-2009 at 5:1,
// maps that took 52 s took 554 s, and mean JCT went up 2-5% over max-min).
// Those single-flow coflows have no entry in the registry (Sim.coflows):
// the flow keeps its own (flow.solo).
type coflow struct {
	key     coflowKey
	live    []*flow // its flows that have not ended
	reached uint64  // the recompute whose component took in its flows
	stamp   uint64  // members and gamma belong to the class filling of this stamp
	members []*flow // its flows in the class being filled
	gamma   float64 // effective bottleneck time, the SEBF key
	solo    int64   // a flow of no stage's shuffle, alone: its id + 1; else 0
}

// coflowOf is the coflow of a task's fetches, made on first use.
func (s *Sim) coflowOf(t engine.TaskRef) *coflow {
	k := coflowKey{job: t.Job, stage: t.Stage}
	c := s.coflows[k]
	if c == nil {
		c = &coflow{key: k}
		s.coflows[k] = c
	}
	return c
}

// join makes a started flow one of a coflow's (nil: none). A flow with
// nothing to move, which the network never saw, joins none.
func (n *network) join(f *flow, c *coflow) {
	if c == nil || f.heapIdx < 0 || len(f.res) == 0 {
		return
	}
	f.coflow = c
	f.cfPos = int32(len(c.live))
	c.live = append(c.live, f)
	for _, r := range f.res {
		n.markDirty(r)
	}
}

// leave takes an ended flow out of its coflow; the coflow's other flows
// are re-shared, since its bottleneck has changed.
func (n *network) leave(f *flow, c *coflow) {
	last := c.live[len(c.live)-1]
	c.live[f.cfPos] = last
	last.cfPos = f.cfPos
	c.live[len(c.live)-1] = nil
	c.live = c.live[:len(c.live)-1]
	if len(c.live) > 0 {
		n.markDirty(c.live[0].res[0]) // reaches the rest through the coflow
	}
}

// recomputeCoflows sets the rates the Varys way, exactly, for the flows
// a change can reach: the closure of the changed resources under "shares
// a resource with" and "belongs to the same coflow" (a coflow's flows are
// tied together through its bottleneck). Outside it the allocation is the
// one the same algorithm gave at the last change there; the order of
// coflows matters only among coflows that share resources. For each
// priority class in turn (strict, as under max-min):
//
//  1. its coflows are ordered by Γ, the effective bottleneck: the
//     largest, over the resources the coflow's flows cross, of the
//     coflow's remaining bytes through the resource over what higher
//     classes left of it (Smallest-Effective-Bottleneck-First);
//  2. in that order each coflow gets, on what earlier coflows left,
//     τ = its Γ on that residual, and each of its flows the rate
//     remaining / τ (MADD), so that they all end together at now + τ
//     and no flow takes more than that end needs; a coflow with a flow
//     through a resource that is already full waits (τ infinite);
//  3. what is left is shared max-min among all the class's flows, on
//     top of the rates they have: no resource stays idle while a flow
//     through it could go faster (the flows of a coflow that waits on a
//     full port move on its other ports).
//
// Ports: Varys's are the hosts' NIC directions. Here a coflow's ports are
// every resource its flows cross: NICs, rack uplinks and downlinks (what
// makes an oversubscribed uplink a coflow's bottleneck), the core when it
// is modelled, and the intermediate tier a reducer reads its own host's
// outputs from. Without those, a MADD rate could exceed what a link has.
func (n *network) recomputeCoflows(now float64) {
	n.stamp++
	st := n.stamp
	n.compRes = n.compRes[:0]
	n.compFl = n.compFl[:0]
	addRes := func(r int32) {
		if n.res[r].stamp != st {
			n.res[r].stamp = st
			n.compRes = append(n.compRes, r)
		}
	}
	var include func(f *flow)
	include = func(f *flow) {
		if f.stamp == st {
			return
		}
		f.stamp = st
		n.compFl = append(n.compFl, f)
		for _, r := range f.res {
			addRes(r)
		}
		if c := f.coflow; c != nil && c.reached != st {
			c.reached = st
			for _, g := range c.live {
				include(g)
			}
		}
	}
	for _, r := range n.dirty {
		addRes(r) // a resource that lost its last flow is cleared too
	}
	for i := 0; i < len(n.compRes); i++ {
		for _, f := range n.res[n.compRes[i]].flows {
			include(f)
		}
	}
	n.prios = n.prios[:0]
	for _, f := range n.compFl {
		// its progress up to now, at the rate it had: MADD needs what
		// is left of every flow
		n.settleFlow(now, f)
		f.oldRate = f.rate
		f.rate = 0
		f.frozen = false
		n.notePrio(f.prio)
	}
	for _, r := range n.compRes {
		rs := &n.res[r]
		n.settleRes(now, rs)
		rs.load = 0
		rs.residual = rs.capacity
	}
	sort.Slice(n.prios, func(a, b int) bool { return n.prios[a] < n.prios[b] })
	for _, p := range n.prios {
		n.allocateCoflows(p)
		n.fillClass(p)
	}
	for _, f := range n.compFl {
		for _, r := range f.res {
			n.res[r].load += f.rate
		}
		n.recount(now, f, f.oldRate, f.rate)
		if f.remaining <= 0 {
			f.finish = now
			n.byEnd.fix(f.heapIdx, f.finish)
			continue
		}
		n.projectEnd(now, f)
	}
	n.clearDirty()
}

// allocateCoflows gives the coflows of class p their MADD rates in SEBF
// order, taking them from the resources' residuals.
func (n *network) allocateCoflows(p uint8) {
	n.cfStamp++
	cst := n.cfStamp
	n.cfOrder = n.cfOrder[:0]
	for _, f := range n.compFl {
		if f.prio != p {
			continue
		}
		c := f.coflow
		if c == nil {
			if f.solo == nil {
				f.solo = &coflow{key: coflowKey{job: math.MaxInt32}, solo: f.id + 1}
			}
			c = f.solo
		}
		if c.stamp != cst {
			c.stamp = cst
			c.members = c.members[:0]
			n.cfOrder = append(n.cfOrder, c)
		}
		c.members = append(c.members, f)
	}
	if len(n.cfOrder) == 0 {
		return
	}
	for _, c := range n.cfOrder {
		c.gamma = n.bottleneck(c)
	}
	sort.Slice(n.cfOrder, func(a, b int) bool {
		x, y := n.cfOrder[a], n.cfOrder[b]
		if x.gamma != y.gamma {
			return x.gamma < y.gamma
		}
		if x.key != y.key {
			return x.key.job < y.key.job || x.key.job == y.key.job && x.key.stage < y.key.stage
		}
		return x.solo < y.solo
	})
	for _, c := range n.cfOrder {
		tau := n.bottleneck(c)
		if tau <= 0 || math.IsInf(tau, 1) {
			// nothing left to move, or a port is full: the coflow
			// waits for its turn, or for what step 3 leaves it
			continue
		}
		for _, f := range c.members {
			rate := f.remaining / tau
			f.rate = rate
			for _, r := range f.res {
				n.res[r].residual -= rate
			}
		}
	}
}

// bottleneck is a coflow's Γ on the resources' residuals: the longest,
// over its ports, its remaining bytes through the port take at what the
// port has left. A port with (nearly) nothing left makes it infinite.
func (n *network) bottleneck(c *coflow) float64 {
	n.cfStamp++
	mark := n.cfStamp
	n.cfPorts = n.cfPorts[:0]
	for _, f := range c.members {
		for _, r := range f.res {
			rs := &n.res[r]
			if rs.cfStamp != mark {
				rs.cfStamp = mark
				rs.cfBytes = 0
				n.cfPorts = append(n.cfPorts, r)
			}
			rs.cfBytes += f.remaining
		}
	}
	gamma := 0.0
	for _, r := range n.cfPorts {
		rs := &n.res[r]
		if rs.cfBytes <= 0 {
			continue
		}
		if rs.residual <= rs.capacity*1e-12 {
			return math.Inf(1)
		}
		gamma = math.Max(gamma, rs.cfBytes/rs.residual)
	}
	return gamma
}
