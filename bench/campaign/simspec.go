package campaign

import (
	"fmt"

	"github.com/racklab/racklab/bench/sim"
)

// SimSpec is run r as the simulator runs it: its cluster, workload,
// datasets, policy, seed and mechanisms, as Execute would simulate them
// (writing to r.Dir), whatever r's mode. A live run's is what bench
// fidelity simulates beside it, and what a replay of it runs on. The
// network model is the run set's for a simulated run, the simulator's
// default for a live one (whose network is its emulation mode).
//
// A live run is simulated with exact max-min at every flow change, as
// bench reproduce simulates its twins: the default local updates drift
// from exact by up to a tenth of the jobs finished on an overloaded
// cluster (docs/benchmarks.md), and a comparison with the emulation should
// carry the model's error, not the approximation's.
func (c *Campaign) SimSpec(r Run) (sim.Spec, error) {
	if r.SetIndex < 0 || r.SetIndex >= len(c.Runs) {
		return sim.Spec{}, fmt.Errorf("run %s: the campaign has no run set %d", r.ID(), r.SetIndex)
	}
	topo, err := c.loadTopology(r.Set)
	if err != nil {
		return sim.Spec{}, err
	}
	spec, ok := c.spec(r.Workload)
	if !ok {
		return sim.Spec{}, fmt.Errorf("run %s: the campaign has no workload %q", r.ID(), r.Workload)
	}
	in, err := loadWorkload(spec, topo)
	if err != nil {
		return sim.Spec{}, err
	}
	placer, outputs, err := placers(r.Set)
	if err != nil {
		return sim.Spec{}, err
	}
	opt := sim.Options{MaxSimTime: c.Limits.MaxSimTime, Window: spec.Window, FullRecompute: r.Set.FullRecompute, Resolution: r.Set.Resolution, Background: c.Background}
	if r.Mode == ModeSim {
		opt.Network = r.Set.Network
	} else {
		opt.FullRecompute = -1
	}
	return sim.Spec{Topology: topo, Workload: in.w, Datasets: in.ds, Policy: r.Policy, Seed: r.Seed,
		SlowStart: c.SlowStartOf(r.Set), Queues: c.Queues, Predicted: in.pred, Placer: placer, OutputPlacer: outputs,
		MemoryLRU: r.Set.MemoryLRU, OutputPipeline: r.Set.OutputPipeline, Dir: r.Dir, Options: opt}, nil
}
