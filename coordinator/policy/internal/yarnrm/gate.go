package yarnrm

import (
	"fmt"
	"math"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Ways of counting a job's #uniqueRequestedLocations for the off-switch
// rule, as the policies' arg off_switch_locations names them.
const (
	// Estimate takes three per pending map, as if every block had three
	// replicas on distinct nodes; the default, also when empty.
	Estimate = "estimate"
	// Requested counts the distinct hosts and racks the live replicas of
	// the pending maps name: the resource requests an MR AM sends
	// (Hadoop 2.7's getLocalityWaitFactor counts every request but the
	// "*" one).
	Requested = "requested"
)

// CheckLocations refuses an unknown way of counting locations.
func CheckLocations(s string) error {
	switch s {
	case "", Estimate, Requested:
		return nil
	}
	return fmt.Errorf("off_switch_locations is %q: want %s or %s", s, Estimate, Requested)
}

// Gate is the RM's delay scheduling for the maps of the jobs it serves:
// yarn.scheduler.capacity.node-locality-delay and the off-switch rule.
type Gate struct {
	delay     int // node-locality-delay; 0: hosts per rack
	locations string
	missed    []int // per job

	// requested locations: marks of the hosts and racks seen by the
	// current count (a mark equal to gen), and a task buffer
	gen       uint32
	hostMark  []uint32
	rackMark  []uint32
	pendingTs []engine.TaskRef
}

// New returns a gate with node-locality-delay delay (0: the hosts of a
// rack, the Corral spec's setting; Hadoop 2.7 ships 40) and the way
// locations (Estimate or Requested; empty is Estimate) counts a job's
// requested locations. The caller has checked both.
func New(delay int, locations string) *Gate {
	return &Gate{delay: delay, locations: locations}
}

// Grant is what the RM grants a job on the offered node.
type Grant struct {
	// Level is the most distant locality a container may have:
	// NodeLocal, RackLocal or Remote.
	Level engine.Locality
	// RackDelayOver is whether the job has missed more than
	// node-locality-delay opportunities; Launched needs it for the reset
	// rule.
	RackDelayOver bool
}

// Admits reports whether a map of locality level may run in the
// container. A task without a locality preference (NoLocality: a reducer,
// or a map without a live replica) always may.
func (g Grant) Admits(level engine.Locality) bool {
	return level <= g.Level || level == engine.NoLocality
}

// Offer counts one scheduling opportunity of job j (offered a container
// on some node) and returns the most distant locality the RM grants it
// there now: NodeLocal always; RackLocal once missed > min(#nodes,
// node-locality-delay); Remote once missed > the job's pending maps ×
// min(#uniqueRequestedLocations / #nodes, 1). A nil Gate is no gate: it
// grants Remote and counts nothing.
func (g *Gate) Offer(ctx *engine.Context, j engine.JobID) Grant {
	if g == nil {
		return Grant{Level: engine.Remote, RackDelayOver: true}
	}
	if int(j) >= len(g.missed) {
		g.missed = append(g.missed, make([]int, max(int(j)+1, len(ctx.Jobs()))-len(g.missed))...)
	}
	g.missed[j]++
	missed := g.missed[j]
	delay := g.delay
	if delay <= 0 {
		delay = len(ctx.Topology().Racks[0].Hosts)
	}
	nodes := len(ctx.Topology().Hosts)
	pending := ctx.PendingMaps(j)
	// Hadoop 2.7: off-switch once missed > requests × min(locations/nodes, 1)
	locations := g.count(ctx, j, pending, nodes)
	grant := Grant{Level: engine.NodeLocal, RackDelayOver: missed > min(nodes, delay)}
	switch {
	case float64(missed) > float64(pending)*math.Min(float64(locations)/float64(nodes), 1):
		grant.Level = engine.Remote
	case grant.RackDelayOver:
		grant.Level = engine.RackLocal
	}
	return grant
}

// Served is the type the RM gives the map container it grants job j on
// node h, by the request it serves: j's node request if a pending map of
// j has a replica on h (NodeLocal); else its rack request, once the
// rack's delay is over, if one has a replica in h's rack (RackLocal);
// else "*" (Remote: off-switch). It is the RM's, whatever map the AM
// then puts in the container: a rack-local map in a container granted
// before the rack's delay is over is in an off-switch one. Call it
// before the launch, while the map is still pending. A reducer's
// container is always off-switch (its requests are all "*").
func (g Grant) Served(ctx *engine.Context, j engine.JobID, h cluster.HostID) engine.Locality {
	if _, ok := ctx.NextNodeLocal(j, h); ok {
		return engine.NodeLocal
	}
	if g.RackDelayOver {
		if _, ok := ctx.NextRackLocal(j, ctx.Topology().RackOf(h)); ok {
			return engine.RackLocal
		}
	}
	return engine.Remote
}

// Launched records that job j launched a map in a container the RM
// typed served (Served). The count resets after a node- or rack-local
// container; an off-switch one leaves it as it is. A nil Gate records
// nothing.
func (g *Gate) Launched(j engine.JobID, served engine.Locality) {
	if g == nil || int(j) >= len(g.missed) {
		return
	}
	if served != engine.Remote {
		g.missed[j] = 0
	}
}

// Missed is job j's missed opportunities since its last node- or
// rack-local container.
func (g *Gate) Missed(j engine.JobID) int {
	if g != nil && int(j) < len(g.missed) {
		return g.missed[j]
	}
	return 0
}

// count is the job's #uniqueRequestedLocations for the off-switch rule,
// counted at most up to nodes (the factor caps at 1 there).
func (g *Gate) count(ctx *engine.Context, job engine.JobID, pending, nodes int) int {
	if g.locations != Requested {
		return min(pending*3, nodes)
	}
	topo := ctx.Topology()
	if len(g.hostMark) != len(topo.Hosts) || len(g.rackMark) != len(topo.Racks) {
		g.hostMark, g.rackMark, g.gen = make([]uint32, len(topo.Hosts)), make([]uint32, len(topo.Racks)), 0
	}
	g.gen++
	if g.gen == 0 { // wrapped: old marks could match again
		clear(g.hostMark)
		clear(g.rackMark)
		g.gen = 1
	}
	n := 0
	g.pendingTs = ctx.Pending(job, g.pendingTs[:0])
	for _, t := range g.pendingTs {
		if ctx.Job(job).Stages[t.Stage].Spec.Kind != workload.Map {
			continue
		}
		for _, r := range ctx.Replicas(t) {
			if g.hostMark[r.Host] != g.gen {
				g.hostMark[r.Host] = g.gen
				n++
			}
			if k := topo.RackOf(r.Host); g.rackMark[k] != g.gen {
				g.rackMark[k] = g.gen
				n++
			}
		}
		if n >= nodes {
			return nodes
		}
	}
	return n
}
