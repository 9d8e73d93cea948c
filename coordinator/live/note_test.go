package live

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/dawn"
	"github.com/racklab/racklab/coordinator/wire"
)

// recordingSink keeps the attempt records a run hands its sink.
type recordingSink struct {
	discard
	mu       sync.Mutex
	attempts []engine.AttemptRecord
}

func (s *recordingSink) Attempt(r *engine.AttemptRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts = append(s.attempts, *r)
	return nil
}

// A live run records what the policy acted on with every attempt, as a
// simulated one does: Dawn's decision notes reach the sink (and through
// bench's metrics.RunSink, attempts.csv).
func TestDecisionNotesReachTheSink(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	sink := &recordingSink{}
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "dawn", Seed: 1, Cluster: "note", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: t.TempDir(), StopWorkers: true, Sink: sink, Logf: t.Logf}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "note") }
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.attempts) < 6 {
		t.Fatalf("%d attempts recorded, want the job's 6 at least", len(sink.attempts))
	}
	for _, a := range sink.attempts {
		if a.Note.Saturation == engine.SaturationUnknown || !slices.Contains(dawn.Reasons, a.Note.Reason) {
			t.Errorf("attempt %d (%s): note %+v, want Dawn's view of the network and one of its reasons", a.ID, a.Kind, a.Note)
		}
	}
}
