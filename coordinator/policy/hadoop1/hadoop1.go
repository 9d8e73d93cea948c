package hadoop1

import (
	"fmt"
	"strings"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/internal/mapplace"
	"github.com/racklab/racklab/coordinator/workload"
)

// DefaultSlowStart is the paper's mapred.reduce.slowstart.completed.maps
// (§5.1, Appendix A).
const DefaultSlowStart = 0.8

// HadoopConfig is the args of the hadoop policy.
type HadoopConfig struct {
	// ReducePlacement is round_robin, random or hadoop (§2.3).
	ReducePlacement string `yaml:"reduce_placement"`
	// SlowStart is the reduce slow-start asked of the run unless it sets
	// one; 0 leaves the engine's default.
	SlowStart float64 `yaml:"slow_start"`
}

// DelayConfig is the args of the delay policy.
type DelayConfig struct {
	// RackLocalityDelay is how long, in seconds, a job declines slots
	// outside its maps' replica racks (§4.2).
	RackLocalityDelay float64 `yaml:"rack_locality_delay"`
	ReducePlacement   string  `yaml:"reduce_placement"`
	SlowStart         float64 `yaml:"slow_start"`
}

// EvenConfig is the args of the even policy.
type EvenConfig struct {
	// Even is the variant: oblivious or locality_aware (§4.3).
	Even            string  `yaml:"even"`
	ReducePlacement string  `yaml:"reduce_placement"`
	SlowStart       float64 `yaml:"slow_start"`
}

// DefaultHadoopConfig, DefaultDelayConfig and DefaultEvenConfig are the
// spec's defaults.
func DefaultHadoopConfig() HadoopConfig {
	return HadoopConfig{ReducePlacement: string(mapplace.RoundRobin), SlowStart: DefaultSlowStart}
}

// DefaultDelayConfig: see DefaultHadoopConfig.
func DefaultDelayConfig() DelayConfig {
	return DelayConfig{RackLocalityDelay: mapplace.DefaultRackLocalityDelay, ReducePlacement: string(mapplace.RoundRobin), SlowStart: DefaultSlowStart}
}

// DefaultEvenConfig: see DefaultHadoopConfig.
func DefaultEvenConfig() EvenConfig {
	return EvenConfig{Even: string(mapplace.Oblivious), ReducePlacement: string(mapplace.RoundRobin), SlowStart: DefaultSlowStart}
}

func validate(name, reduce string, slowStart float64) error {
	if err := mapplace.ValidateReducePlacement(mapplace.ReducePlacement(reduce)); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if !(slowStart >= 0 && slowStart <= 1) {
		return fmt.Errorf("%s: slow_start %g is outside [0,1]", name, slowStart)
	}
	return nil
}

// Validate checks the args' values.
func (c HadoopConfig) Validate() error { return validate("hadoop", c.ReducePlacement, c.SlowStart) }

// Validate checks the args' values.
func (c DelayConfig) Validate() error {
	if !(c.RackLocalityDelay >= 0) {
		return fmt.Errorf("delay: rack_locality_delay %g s is negative", c.RackLocalityDelay)
	}
	return validate("delay", c.ReducePlacement, c.SlowStart)
}

// Validate checks the args' values.
func (c EvenConfig) Validate() error {
	if err := mapplace.ValidateEven(mapplace.EvenVariant(c.Even)); err != nil {
		return fmt.Errorf("even: %w", err)
	}
	return validate("even", c.ReducePlacement, c.SlowStart)
}

// Policy is one of the three baselines.
type Policy struct {
	name      string
	slowStart float64
	Maps      *mapplace.Placer
	Reducers  *mapplace.Reducers
}

func newPolicy(name string, m mapplace.Config, reduce string, slowStart float64) *Policy {
	return &Policy{
		name: name, slowStart: slowStart,
		Maps:     mapplace.NewPlacer(m),
		Reducers: mapplace.NewReducers(mapplace.ReducePlacement(reduce)),
	}
}

// NewHadoop returns the hadoop policy (§4.1): Hadoop 1.2.1's
// JobQueueTaskScheduler, which gives a heartbeat one reducer at most.
func NewHadoop(c HadoopConfig) *Policy {
	p := newPolicy("hadoop", mapplace.Config{Mode: mapplace.Hadoop}, c.ReducePlacement, c.SlowStart)
	p.Reducers.OneReducePerHeartbeat = true
	return p
}

// NewDelay returns the delay policy (§4.2).
func NewDelay(c DelayConfig) *Policy {
	return newPolicy("delay", mapplace.Config{Mode: mapplace.Delay, RackLocalityDelay: c.RackLocalityDelay}, c.ReducePlacement, c.SlowStart)
}

// NewEven returns the even policy (§4.3).
func NewEven(c EvenConfig) *Policy {
	return newPolicy("even", mapplace.Config{Mode: mapplace.Even, Even: mapplace.EvenVariant(c.Even)}, c.ReducePlacement, c.SlowStart)
}

// Name implements engine.Policy.
func (p *Policy) Name() string { return p.name }

// Configure asks for the paper's slow-start unless the run sets one.
func (p *Policy) Configure(cfg *engine.Config) {
	if p.slowStart > 0 {
		cfg.SlowStart = p.slowStart
	}
}

// OfferHost implements engine.HostScheduler: reducers on the host's
// reduce slots, then maps on its map slots.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	p.Reducers.OfferReducers(ctx, h)
	p.Maps.OfferMaps(ctx, h)
}

// JobFinished implements engine.JobFinishedHook.
func (p *Policy) JobFinished(_ *engine.Context, j engine.JobID) {
	p.Maps.JobFinished(j)
	p.Reducers.JobFinished(j)
}

// Inspect shows, per running job, its original maps per rack (L), the
// planned reducer quota per rack (H) of each reduce stage once planned,
// and, under delay, whether it waits for a rack-local slot.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	for _, j := range jobs {
		if j.State != engine.JobRunning {
			continue
		}
		fmt.Fprintf(&b, "%s L=%s", j.Spec.ID, mapplace.Braces(p.Maps.RackCounts(j.ID)))
		for _, st := range j.Stages {
			if st.Spec.Kind == workload.Map {
				continue
			}
			if h, ok := p.Reducers.PlannedQuota(j.ID, st.Index); ok {
				fmt.Fprintf(&b, " H(%s)=%s", st.Spec.Name, mapplace.Braces(h))
			}
		}
		if since, ok := p.Maps.Waiting(j.ID); ok {
			fmt.Fprintf(&b, " waiting since %gs", since)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
