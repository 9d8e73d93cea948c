package yarnrm

import (
	"fmt"
	"math"

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

// OffSwitch reports whether the RM types the container it granted, once
// the AM has put a task of locality level in it, off-switch: it tries a
// job's node request, then its rack request (once the rack's delay is
// over), then "*". So a node-local map's container is node-local, a
// rack-local map's is rack-local only past the rack's delay (before it,
// the RM granted the container at "*" and the AM found a map in the
// rack), and a remote map's, a reducer's and a map's without a live
// replica (their requests are all "*") are off-switch.
func (g Grant) OffSwitch(level engine.Locality) bool {
	return !(level == engine.NodeLocal || level == engine.RackLocal && g.RackDelayOver)
}

// Launched records that job j launched a task of locality level in a
// container granted by grant. The count resets after a node- or
// rack-local container, as the RM types it (OffSwitch); an off-switch
// one leaves it as it is. A nil Gate records nothing.
func (g *Gate) Launched(j engine.JobID, grant Grant, level engine.Locality) {
	if g == nil || int(j) >= len(g.missed) {
		return
	}
	if !grant.OffSwitch(level) {
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
