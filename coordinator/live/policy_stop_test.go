package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
)

// brokenRecords launches nothing and finds at its first offer that it
// cannot go on, as a replay of another workload's records does.
type brokenRecords struct{ offered bool }

func (*brokenRecords) Name() string                                { return "broken" }
func (p *brokenRecords) OfferHost(*engine.Context, cluster.HostID) { p.offered = true }
func (p *brokenRecords) Err() error {
	if p.offered {
		return errors.New("records.csv:7: no such task")
	}
	return nil
}

// A policy that fails (engine.Failer) ends the live run with its error at
// once, and events.jsonl says so: the run neither waits for its stall
// timeout nor leaves its end unexplained.
func TestFailingPolicyEndsTheLiveRun(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "broken", PolicyImpl: &brokenRecords{}, Seed: 1, Cluster: "stops", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: out, StopWorkers: true, Sink: discard{}, Logf: t.Logf}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "stops") }
	_, err = Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "the policy stopped the run: records.csv:7: no such task") {
		t.Fatalf("error %v, want the policy's", err)
	}
	events, rerr := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if rerr != nil || !strings.Contains(string(events), `"policy-stopped"`) || !strings.Contains(string(events), "records.csv:7: no such task") {
		t.Errorf("events.jsonl has no policy-stopped event (%v):\n%s", rerr, events)
	}
}
