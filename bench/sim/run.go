package sim

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

// Spec is one simulated run: a policy on a workload and topology, with a
// seed, writing its records under Dir.
type Spec struct {
	Topology *cluster.Topology
	Workload *workload.Workload
	Datasets *workload.Datasets
	// Policy is built afresh for the run; its label names the records.
	Policy    policy.Spec
	Seed      uint64
	SlowStart float64
	// Queues configures the run's queues; Predicted is what an offline
	// planner is told ahead of time (engine.Config).
	Queues    []engine.Queue
	Predicted *workload.Predicted
	// Placer places the unplaced datasets (nil: the engine's default,
	// HDFS's); MemoryLRU turns on the engine's LRU memory tier
	// (engine.Config). OutputPlacer places job outputs (nil: the
	// engine's default, the writer then hosts of its rack).
	Placer       engine.DatasetPlacer
	OutputPlacer engine.ReplicaPlacer
	MemoryLRU    bool
	// OutputPipeline writes job outputs' replicas as HDFS's pipeline
	// (engine.Config.OutputPipeline).
	OutputPipeline bool
	Dir            string
	Options        Options
}

// Timing is what a run cost the machine. It varies from run to run, so it
// is kept apart from the deterministic records.
type Timing struct {
	Policy         string // the label
	Seed           uint64
	WallS          float64
	SimS           float64
	Events         int64
	EventsPerS     float64
	Decisions      int64
	DecisionMeanUs float64
	DecisionP50Us  float64
	DecisionP99Us  float64
	PlanS          float64 // the policy's offline plan
}

// RunDir is where a run's records go inside a result directory: label
// is the policy's label (see policy.Spec.String).
func RunDir(dir, label string, seed uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s-seed%d", label, seed))
}

// RunOne simulates one run and writes its records.
func RunOne(spec Spec) (metrics.Summary, Timing, error) {
	if b := spec.Options.Background; b < 0 || b >= 1 {
		return metrics.Summary{}, Timing{}, fmt.Errorf("background share %g is outside [0, 1)", b)
	}
	if err := spec.Workload.CheckRunnable(); err != nil {
		return metrics.Summary{}, Timing{}, err
	}
	p, err := policy.Build(spec.Policy)
	if err != nil {
		return metrics.Summary{}, Timing{}, err
	}
	start := time.Now()
	eng, err := engine.New(engine.Config{
		Seed:           spec.Seed,
		SlowStart:      spec.SlowStart,
		Queues:         spec.Queues,
		Predicted:      spec.Predicted,
		Placer:         spec.Placer,
		MemoryLRU:      spec.MemoryLRU,
		OutputPipeline: spec.OutputPipeline,
		OutputPlacer:   spec.OutputPlacer,
		Stopwatch:      func() int64 { return int64(time.Since(start)) },
	}, spec.Topology, spec.Workload, spec.Datasets, p)
	if err != nil {
		return metrics.Summary{}, Timing{}, err
	}
	rec, err := metrics.NewRecorder(spec.Dir, spec.Workload)
	if err != nil {
		return metrics.Summary{}, Timing{}, err
	}
	rec.SetWindow(spec.Options.Window)
	opt := spec.Options
	opt.Sink = rec
	s := New(eng, opt)
	res, err := s.Run()
	if cerr := rec.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return metrics.Summary{}, Timing{}, fmt.Errorf("%s seed %d: %w", spec.Policy, spec.Seed, err)
	}
	if res.Stalled {
		return metrics.Summary{}, Timing{}, fmt.Errorf("%s seed %d: the run stalled: %s", spec.Policy, spec.Seed, res.StallReason)
	}
	wall := time.Since(start).Seconds()
	eng.RecordPolicyFigures()
	sum := rec.Finish(spec.Policy.String(), spec.Seed, &eng.Stats, res.UplinkBytes, res.DownlinkBytes)
	t := Timing{Policy: spec.Policy.String(), Seed: spec.Seed, WallS: wall, SimS: res.SimTime, Events: res.Events, Decisions: eng.Stats.Decisions,
		PlanS: float64(eng.Stats.PlanNanos) / 1e9}
	if wall > 0 {
		t.EventsPerS = float64(res.Events) / wall
	}
	d := &eng.Stats.DecisionTimes
	t.DecisionMeanUs, t.DecisionP50Us, t.DecisionP99Us = d.MeanNanos()/1e3, d.PercentileNanos(50)/1e3, d.PercentileNanos(99)/1e3
	return sum, t, nil
}

// FormatTiming is a one-line account of a run's cost.
func FormatTiming(t Timing) string {
	return fmt.Sprintf("%s seed %d: wall %.2fs, simulated %.0fs, %d events (%.0f/s), %d decisions (mean %.1fµs, p50 %.1fµs, p99 %.1fµs)",
		t.Policy, t.Seed, t.WallS, t.SimS, t.Events, t.EventsPerS, t.Decisions, t.DecisionMeanUs, t.DecisionP50Us, t.DecisionP99Us)
}

// checkBackground refuses a background share that leaves a rack link
// slower than the topology's limit: the run would move its bytes at a
// crawl for ages of simulated time.
func checkBackground(t *cluster.Topology, bg float64) error {
	if t == nil || bg == 0 {
		return nil
	}
	for _, r := range t.Racks {
		if left := min(r.UplinkBps, r.DownlinkBps) * (1 - bg); left < cluster.MinRateBps {
			return fmt.Errorf("background share %g leaves rack %s's link %.3g bytes/s, below the limit of %g bytes/s", bg, r.Name, left, cluster.MinRateBps)
		}
	}
	return nil
}
