package live

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/wire"
)

// A run whose context is cancelled once it has started (a signal to the
// command) keeps its records, and says in result.json and events.jsonl
// that it did not end: no reader takes them for a whole run.
func TestInterruptedRunIsMarked(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := computingInputs(t, topo, 20000)
	creds, _ := wire.NewCredentials(hostNames(topo))
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "intr", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "intr") }
	cfg.OnEvent = func(ev Event) {
		if ev.Kind == "started" {
			go func() { time.Sleep(200 * time.Millisecond); cancel() }()
		}
	}
	if _, err := Run(ctx, cfg); !errors.Is(err, context.Canceled) {
		t.Fatalf("run ended with %v, want it cancelled", err)
	}
	b, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Interrupted bool `json:"interrupted"`
	}
	if err := json.Unmarshal(b, &res); err != nil || !res.Interrupted {
		t.Errorf("result.json %s: want interrupted (%v)", b, err)
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil || !strings.Contains(string(events), `"interrupted"`) {
		t.Errorf("events.jsonl has no interrupted event (%v):\n%s", err, events)
	}
}
