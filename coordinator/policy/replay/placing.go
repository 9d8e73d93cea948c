package replay

import (
	"fmt"
	"math/rand/v2"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// placing is a replay that places the input datasets as the recorded
// run's policy did: the engine asks the policy, not its own placer, when
// the policy is a DatasetPlacer, so the replay is one only in this form.
type placing struct {
	*Policy
	placer  engine.DatasetPlacer
	planner engine.Planner // nil if the placer plans nothing first
}

// WithPlacer returns the replay p placing the datasets with recorded, a
// fresh instance of the recorded run's policy (with its args), which
// must be an engine.DatasetPlacer. Its Plan runs before the replay's own,
// on the same context: the run's random draws then come in the recorded
// order, and each block lands where it did.
func WithPlacer(p *Policy, recorded engine.Policy) (engine.Policy, error) {
	pl, ok := recorded.(engine.DatasetPlacer)
	if !ok {
		return nil, fmt.Errorf("arg placer: policy %s does not place datasets; leave placer out to replay its run", recorded.Name())
	}
	w := &placing{Policy: p, placer: pl}
	w.planner, _ = recorded.(engine.Planner)
	return w, nil
}

// Plan runs the recorded policy's plan, then the replay's.
func (p *placing) Plan(ctx *engine.Context, fk *engine.Foreknowledge) {
	if p.planner != nil {
		p.planner.Plan(ctx, fk)
	}
	p.Policy.Plan(ctx, fk)
}

// PlaceDataset places a dataset as the recorded policy does.
func (p *placing) PlaceDataset(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, sizes []int64) ([][]workload.Replica, error) {
	return p.placer.PlaceDataset(t, rng, d, sizes)
}
