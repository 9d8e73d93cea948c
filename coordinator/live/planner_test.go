package live

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/corral"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
)

// attemptSink keeps the attempt records of a run.
type attemptSink struct {
	discard
	mu       sync.Mutex
	attempts []engine.AttemptRecord
}

func (s *attemptSink) Attempt(r *engine.AttemptRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts = append(s.attempts, *r)
	return nil
}

// A live run tells an offline planner the run's predictions and writes
// the input blocks where the planner placed them, as a simulated run
// does (engine.New with Config.Predicted): Corral plans only the job
// that has a prediction (without predictions it would plan both), and
// that job's maps, confined to its planned racks, read replicas the
// workers hold on those racks.
func TestPlannerGetsPredictionsAndPlacesInputs(t *testing.T) {
	topo := memTopology(t, 3, 2)
	ds, err := workload.ParseDatasets("ds", []byte(`block_size_bytes: 1048576
replication: 3
datasets:
  - {name: in-a, size_bytes: 4194304}
  - {name: in-b, size_bytes: 2097152}
`), topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.ParseWorkloadFor("wl", []byte(`jobs:
  - id: a
    stages:
      - {name: map, kind: map, input: in-a, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 2, after: [map], selectivity: 1}
  - id: b
    stages:
      - {name: map, kind: map, input: in-b, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 1, after: [map], selectivity: 1}
`), ds)
	if err != nil {
		t.Fatal(err)
	}
	pred := &workload.Predicted{Jobs: []workload.Prediction{{ID: "a", Recurring: "a",
		InputBytes: 4 << 20, ShuffleBytes: 4 << 20, OutputBytes: 4 << 20, MapTasks: 4, ReduceTasks: 2}}}
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	p := corral.New(corral.DefaultConfig())
	sink := &attemptSink{}
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "corral", PolicyImpl: p, Predicted: pred, Seed: 1,
		Cluster: "plan", Listen: "127.0.0.1:0", Creds: creds, OutDir: t.TempDir(), StopWorkers: true, Sink: sink, Logf: t.Logf}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "plan") }
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	plan := p.Result()
	if plan == nil || len(plan.Jobs) != 1 {
		t.Fatalf("Corral planned %v; want job a alone, the one predicted", plan)
	}
	racks := plan.Jobs[0].Racks
	maps := 0
	for _, a := range sink.attempts {
		if a.JobName != "a" || a.Kind != workload.Map || a.Outcome != engine.AttemptSucceeded {
			continue
		}
		maps++
		if rack := int(topo.RackOf(a.Host)); !slices.Contains(racks, rack) || a.Locality != engine.NodeLocal {
			t.Errorf("map %d of job a ran on %s (rack %d), %v; want node-local on its planned racks %v",
				a.Task.Index, topo.Hosts[a.Host].Name, rack, a.Locality, racks)
		}
	}
	if maps != 4 {
		t.Errorf("%d maps of job a succeeded, want 4", maps)
	}
}
