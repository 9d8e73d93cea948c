package policy_test

import (
	"fmt"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

// decisionFixture is a 20 × 30 cluster (600 hosts, 8 slots each) with
// 100 jobs of 1,000 maps and 50 reduces running; every slot but one per
// host is taken, so each offer is one decision.
func decisionFixture(b *testing.B, name string) *engine.Engine {
	b.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 20, HostsPerRack: 30, Slots: 8, NICBps: 125e6, Oversubscription: 5})
	if err != nil {
		b.Fatal(err)
	}
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	for i := 0; i < 100; i++ {
		in := fmt.Sprintf("in%d", i)
		ds.Datasets = append(ds.Datasets, workload.Dataset{Name: in, Size: 1000 << 27, BlockSize: 1 << 27})
		w.Jobs = append(w.Jobs, workload.Job{ID: fmt.Sprintf("j%d", i), Queue: []string{"a", "b", "c"}[i%3], Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: in, Selectivity: 0.5},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 50, After: []string{"map"}, Selectivity: 1},
		}})
	}
	p, err := policy.New(name)
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(engine.Config{Seed: 1, SlowStart: 1, Placer: &hdfs.Placer{}}, topo, w, ds, p)
	if err != nil {
		b.Fatal(err)
	}
	if err := e.Advance(0); err != nil {
		b.Fatal(err)
	}
	e.Schedule()
	rd := e.Ready()
	// free one slot per host
	freed := map[cluster.HostID]bool{}
	for _, a := range rd.Launches {
		// a duplicating policy (KMN, Shadow) may kill an attempt it
		// launched in the same round: only a running one can end
		if a.Outcome == engine.AttemptRunning && !freed[a.Host] {
			freed[a.Host] = true
			if err := e.AttemptSucceeded(a.ID, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	e.Ready()
	return e
}

// opsPerFixture is how many operations run on one fixture before a fresh
// one: one offer per host. Each operation launches a task and ends it, so
// the fixture's jobs move on as operations go; on one fixture for all
// of b.N the figure would depend on b.N (how far the jobs had got), so
// every operation is measured within the same first opsPerFixture of a
// fresh fixture, whatever b.N.
const opsPerFixture = 600

// BenchmarkDecision600Hosts measures one scheduling decision at 600 hosts:
// a heartbeat offer of one free slot, the policy's choice, and the
// engine's bookkeeping of the launch and of the attempt's end.
func BenchmarkDecision600Hosts(b *testing.B) {
	for _, name := range policy.Deciding() {
		b.Run(name, func(b *testing.B) {
			e := decisionFixture(b, name)
			hosts := len(e.Topology().Hosts)
			// a round scheduler (Trident) is offered no single host: each
			// operation is then one round over the slots the last one's
			// attempts freed, and launches/op says how many it filled
			kind, err := policy.New(name)
			if err != nil {
				b.Fatal(err)
			}
			_, round := kind.(engine.RoundScheduler)
			b.ResetTimer()
			decisions := 0
			for i := 0; i < b.N; i++ {
				if (i > 0 && i%opsPerFixture == 0) || e.Pending() == 0 {
					b.StopTimer()
					e = decisionFixture(b, name)
					b.StartTimer()
				}
				if round {
					e.Schedule()
				} else {
					e.Offer(cluster.HostID(i % hosts))
				}
				rd := e.Ready()
				for _, a := range rd.Launches {
					decisions++
					if a.Outcome != engine.AttemptRunning {
						continue // killed in the same offer (as above)
					}
					if err := e.AttemptSucceeded(a.ID, nil); err != nil {
						b.Fatal(err)
					}
				}
				e.Ready()
			}
			b.ReportMetric(float64(decisions)/float64(b.N), "launches/op")
		})
	}
}
