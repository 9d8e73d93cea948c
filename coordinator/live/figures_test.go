package live

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
)

// finishSink keeps the engine's counters a run finishes its sink with.
type finishSink struct {
	discard
	mu    sync.Mutex
	stats *engine.Stats
}

func (s *finishSink) Finish(st *engine.Stats, _, _ []float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats = st
	return nil
}

// A live run finishes its records with the policy's own figures, as a
// simulated one does: Corral's plan objective, LP bound and gap, the
// plan's wall time and the input stored per rack reach the sink (and
// through bench's metrics.RunSink, summary.csv).
func TestPolicyFiguresReachTheSink(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	sink := &finishSink{}
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "corral", Seed: 1, Cluster: "figs", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: t.TempDir(), StopWorkers: true, Sink: sink, Logf: t.Logf}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "figs") }
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.stats == nil {
		t.Fatal("the sink was never finished")
	}
	st := sink.stats
	for _, name := range []string{"plan_objective_s", "plan_lower_bound_s", "plan_gap"} {
		if _, ok := st.PolicyFigures[name]; !ok {
			t.Errorf("no %s among the figures %v", name, st.PolicyFigures)
		}
	}
	var stored int64
	for _, b := range st.InputRackBytes {
		stored += b
	}
	if st.PlanNanos <= 0 || stored <= 0 || len(st.InputRackBytes) != len(topo.Racks) {
		t.Errorf("plan %d ns, input per rack %v: want a timed plan and the stored input", st.PlanNanos, st.InputRackBytes)
	}
}

// failingSink cannot write its summary, as a full disk would refuse it.
type failingSink struct{ discard }

func (failingSink) Finish(*engine.Stats, []float64, []float64) error {
	return errors.New("summary.csv: no space left on device")
}

// A run whose records could not be written does not succeed: before, the
// error was logged and Run returned nil, so a standalone coordinator run
// ended as a success with no summary.
func TestRecordsThatFailFailTheRun(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "recfail", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: t.TempDir(), StopWorkers: true, Sink: failingSink{}, Logf: t.Logf}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "recfail") }
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "records: summary.csv: no space left on device") {
		t.Errorf("run: %v, want the records' error", err)
	}
}
